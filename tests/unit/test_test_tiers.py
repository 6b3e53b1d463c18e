"""The test suite's own shape: each tier imports only the shared helpers and itself.

A tier is a folder ``tests/<tier>/`` (unit, integration, github, e2e, ...). What more than one tier
uses lives in ``tests/support/``, and the fake GitHub in ``tests/github_fake/``; a tier never
imports another tier, and no module imports a ``conftest`` (fixtures reach tests by name, and a
conftest imported as a module is loaded twice). Read with ``ast``, lazy imports included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
SHARED = ("tests.support", "tests.github_fake")


def module_name(path: Path, root: Path) -> str:
    """``tests/e2e/test_x.py`` -> ``tests.e2e.test_x`` (a package's ``__init__`` is the package)."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_tests_modules(path: Path, module: str) -> Iterator[str]:
    """Every ``tests.*`` module ``path`` imports, relative imports resolved against ``module``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from tests import e2e`` and ``from . import conftest`` name the module in the alias
            names = [base] + [
                f"{base}.{alias.name}" for alias in node.names if base == "tests" or alias.name == "conftest"
            ]
        else:
            continue
        yield from (name for name in names if name == "tests" or name.startswith("tests."))


def allowed_for(module: str) -> tuple[str, ...]:
    """The shared helpers, and the module's own tier (nothing more for the shared helpers)."""
    parts = module.split(".")
    if len(parts) < 3 or ".".join(parts[:2]) in SHARED:
        return SHARED
    return (*SHARED, ".".join(parts[:2]))


def inside(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def violations(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        for name in imported_tests_modules(path, module):
            if name == "tests":
                continue  # ``from tests import x`` is judged by the tests.x it names
            if name.rpartition(".")[2] == "conftest":
                found.append(f"{module} imports a conftest: {name}")
            elif not inside(name, allowed_for(module)):
                found.append(f"{module} imports another tier: {name}")
    return found


def test_each_tier_imports_only_the_shared_helpers_and_itself() -> None:
    assert violations(TESTS) == []


@pytest.mark.parametrize(
    ("where", "source", "offence"),
    [
        (
            "unit/test_x.py",
            "from tests.e2e.harness import Runner\n",
            "tests.unit.test_x imports another tier",
        ),
        ("unit/test_x.py", "from tests.github import verdicts\n", "imports another tier: tests.github"),
        ("github/test_x.py", "from .conftest import REPO\n", "imports a conftest: tests.github.conftest"),
        ("e2e/test_x.py", "def f():\n    import tests.integration.conftest\n", "imports a conftest"),
        ("support/x.py", "from tests.e2e import git_http\n", "tests.support.x imports another tier"),
    ],
    ids=[
        "unit-imports-e2e",
        "unit-imports-github",
        "relative-conftest",
        "lazy-conftest",
        "support-imports-e2e",
    ],
)
def test_the_rule_sees_a_crossing(tmp_path: Path, where: str, source: str, offence: str) -> None:
    """The checker itself can fail, on absolute, relative and lazy imports."""
    root = tmp_path / "tests"
    probe = root / where
    probe.parent.mkdir(parents=True)
    probe.write_text(source)
    (root / "e2e").mkdir(exist_ok=True)
    (root / "e2e" / "ok.py").write_text("from tests.support import harness\nfrom . import events\n")
    (found,) = violations(root)
    assert offence in found
