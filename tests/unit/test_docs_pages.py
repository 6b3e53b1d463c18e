"""The README teaches and docs/ holds the reference: the README stays short, its two first-use
commands are what CI runs, and every relative link of the README and of docs/ leads somewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_LINES = 250  # issue 31: first use, setup and "what to do after a verdict" in the first screenfuls
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^\s*(?:[-*] |\d+\. )?\s*(`{3,}|~{3,})")


def documents() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def outside_blocks(markdown: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced blocks."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(markdown.splitlines(), 1):
        opening = FENCE.match(line)
        if opening and (fence is None or opening[1].startswith(fence)):
            fence = opening[1] if fence is None else None
            continue
        if fence is None:
            lines.append((number, line))
    return lines


def prose_lines(markdown: str) -> list[tuple[int, str]]:
    """The lines outside fenced blocks with inline code removed: a link there is text."""
    return [(number, re.sub(r"(`+)(?:(?!\1).)+\1", "", line)) for number, line in outside_blocks(markdown)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, inline markup and punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in outside_blocks(markdown):
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            base = slug(heading[1])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    """Relative links of ``document`` that name no file of the repository, or no heading of it."""
    broken = []
    for number, line in prose_lines(document.read_text(encoding="utf-8")):
        for match in LINK.finditer(line):
            target = match["target"]
            if re.match(r"[a-z][a-z+.-]*:", target):
                continue  # https:, mailto:: not ours to check here
            path_part, _, anchor = target.partition("#")
            path = (document.parent / path_part).resolve() if path_part else document
            where = f"{document.relative_to(root)}:{number}: {target}"
            if not path.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in anchors(path.read_text(encoding="utf-8")):
                broken.append(f"{where} (no such heading)")
    return broken


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_somewhere(document: Path) -> None:
    assert broken_links(document) == []


def test_a_broken_link_and_a_missing_heading_are_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Set it up with `init`\n\n[ok](#set-it-up-with-init) [gone](nowhere.md) [typo](#set-it-up)\n"
        "`[in code](nowhere.md)`\n\n```sh\n[in a block](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    found = [entry.split(": ", 1)[1] for entry in broken_links(page, tmp_path)]
    assert found == ["nowhere.md (no such file)", "#set-it-up (no such heading)"]


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Set it up with `init` and `doctor`", "set-it-up-with-init-and-doctor"),
        ("GitHub's behaviour, fact by fact", "githubs-behaviour-fact-by-fact"),
        (
            "Maintainers' path and stability (contract v3.4–v3.7)",
            "maintainers-path-and-stability-contract-v34v37",
        ),
    ],
)
def test_anchors_are_githubs(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_the_readme_stays_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES


def first_use_commands() -> list[str]:
    """The shell blocks of the README's "First use" section, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## First use\n", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)]


def test_first_use_is_two_commands_the_demo_then_the_tests() -> None:
    demo, tests = first_use_commands()
    assert "\n" not in demo
    assert "\n" not in tests
    assert demo.endswith("oracle-gate demo")
    assert tests.endswith("&& .venv/bin/python -m pytest")


def test_the_readmes_test_command_is_what_ci_runs() -> None:
    """Each step of the README's test command is a line `.ci/run` runs, the test run itself exactly."""
    _, tests = first_use_commands()
    ci_lines = {line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()}
    steps = [step.strip() for step in tests.split("&&")]
    assert [step for step in steps if step not in ci_lines] == []
    assert steps[-1] == ".venv/bin/python -m pytest"
