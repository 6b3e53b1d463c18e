"""The "GitHub's behaviour, fact by fact" table (docs/trust.md) names, per fact, the tests that show it: each
named test must exist in the suite, so a test that moves or is renamed cannot leave a row claiming a
proof that is gone.

A cell names tests as backticked ``path::test_name``, ``path`` (a file or directory that must
exist), or ``…fragment…`` (a test of the cell's last-named file whose name contains the fragment).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "trust.md").read_text()
SECTION = "## GitHub's behaviour, fact by fact"
ELLIPSIS = "…"


def facts_table(markdown: str) -> dict[str, str]:
    """Fact (first column) -> its "Shown by" cell (last column), for every row of the section's table."""
    body = markdown.split(SECTION + "\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| Fact ")]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]
    return {c[0]: c[-1] for c in cells if len(c) >= 3}


def defined_tests(path: Path) -> set[str]:
    """Every ``test_*`` function of a test module, at module level or in a class."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
    }


def missing_references(cell: str) -> list[str]:
    """The references of ``cell`` that name no existing file or test (empty: all exist)."""
    missing: list[str] = []
    current: Path | None = None
    for ref in re.findall(r"`([^`]+)`", cell):
        if not re.match(r"[\w./-]+(::\S+)?$", ref.strip(ELLIPSIS)):
            continue  # an input name, a constant, prose in code
        path_part, _, name = ref.partition("::")
        if path_part.startswith(ELLIPSIS):
            name, path_part = ref, ""
        if path_part and "/" in path_part:
            current = ROOT / path_part
            if not current.exists():
                missing.append(ref)
                continue
        if not name:
            continue
        if current is None or not current.is_file():
            missing.append(f"{ref} (no test file named before it)")
        elif not any(_matches(name, found) for found in defined_tests(current)):
            missing.append(f"{ref} (not in {current.relative_to(ROOT)})")
    return missing


def _matches(name: str, found: str) -> bool:
    fragment = name.strip(ELLIPSIS)
    if name.startswith(ELLIPSIS) or name.endswith(ELLIPSIS):
        return fragment in found and (name.startswith(ELLIPSIS) or found.startswith(fragment))
    return found == name


def test_the_table_is_found_and_names_tests() -> None:
    table = facts_table(PAGE)
    assert len(table) >= 10
    assert sum("::" in cell for cell in table.values()) >= 4


@pytest.mark.parametrize(("fact", "cell"), sorted(facts_table(PAGE).items()))
def test_every_test_a_fact_names_exists(fact: str, cell: str) -> None:
    assert missing_references(cell) == [], fact


@pytest.mark.parametrize(
    "cell",
    [
        "`tests/e2e/test_no_such_file.py`",
        "`tests/github/test_publish_faults.py::test_that_was_renamed`",
        "`tests/github/test_publish_faults.py::test_a_429_without_retry_after_is_waited_then_retried`, "
        "`…no_such…`",
        "`…fragment_without_a_file…`",
    ],
)
def test_a_reference_to_a_missing_test_is_caught(cell: str) -> None:
    assert missing_references(cell) != []


def test_a_reference_to_an_existing_test_passes() -> None:
    cell = (
        "`tests/github/test_publish_faults.py::test_a_429_without_retry_after_is_waited_then_retried`, "
        "`…waits_at_least_a_minute…`, `docs/action.md`"
    )
    assert missing_references(cell) == []
