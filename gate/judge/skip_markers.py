"""Skip and xfail markers in added lines, matched as text with all whitespace removed (contract v2).

Text matching is deliberate: it also catches aliases and home-made decorators
(``@skip_on_ci``) and markers in strings or comments, at the price of failing
a change that only *mentions* a marker in a test file. Failing closed is the
point of the gate. Whitespace is removed first, so ``pytest.skip (`` is
``pytest.skip(``.

In a test file (the policy's ``tests`` globs) every token counts; in any other
``.py`` file only the marker APIs do (``pytest.skip(``, not ``if mode == "skip":``).
``pytest.mark.NAME`` counts too when NAME is a word of the parent's pytest
``addopts`` (``-m 'not slow'`` deselects what ``@pytest.mark.slow`` marks).

v3.1 adds what the syntax tree says (:mod:`oracle_gate.judge.syntax_markers`) on every ``.py`` file: a
reference resolving to a skip/exit API on an added line the text rule let through.

v3.8 judges a test file's marker lines per test (:mod:`oracle_gate.judge.test_markers`): one on a
test the parent has counts only when that test carried no equal marker there; one on a new test
does not count; one outside every test counts as before.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from oracle_gate.judge.changes import FileChange
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.python_facts import python_facts
from oracle_gate.judge.test_markers import counting_marker_lines

# Order matters only for which token is named in the report: longer first.
MARKERS = (
    "pytest.mark.skipif",
    "pytest.mark.skip",
    "pytest.mark.xfail",
    "mark.skipif",
    "mark.skip",
    "mark.xfail",
    "pytest.skip(",
    "pytest.xfail(",
    "pytest.exit(",
    "unittest.skipUnless",
    "unittest.skipIf",
    "unittest.skip",
    "@skipUnless",
    "@skipIf",
    "@skip",
    "skipTest(",
    "SkipTest",
    "importorskip(",
    "expectedFailure",
    '"skip"',
    "'skip'",
    '"xfail"',
    "'xfail'",
    # The contract lists ``skipif`` and ``xfail`` as tokens of their own: matched as
    # text they also catch ``from pytest import xfail`` + ``xfail(...)`` and aliases.
    "skipif",
    "xfail",
)

#: v2: what counts in a ``.py`` file outside the tests globs: the marker APIs only.
MARKER_APIS = (
    "pytest.mark.skip",
    "pytest.mark.xfail",
    "pytest.skip(",
    "pytest.xfail(",
    "pytest.exit(",
    "unittest.skip",
    "unittest.expectedFailure",
    "SkipTest",
    "importorskip(",
)

_TEST_MARK = re.compile(r"mark\.(\w+)")  # in test files ``from pytest import mark`` counts too
_API_MARK = re.compile(r"pytest\.mark\.(\w+)")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class SkipMarker:
    path: str
    line: int
    marker: str
    text: str


def addopts_words(addopts: str) -> frozenset[str]:
    """The words of the parent's ``addopts`` (``-m 'not slow'`` -> m, not, slow)."""
    return frozenset(_WORD.findall(addopts))


def compact(text: str) -> str:
    """The line with all whitespace removed."""
    return "".join(text.split())


def find_marker(text: str, deselected: Collection[str] = ()) -> str | None:
    """The marker token on a test file's line (whitespace ignored), if any."""
    line = compact(text)
    return next((m for m in MARKERS if m in line), None) or _addopts_mark(_TEST_MARK, line, deselected)


def find_marker_api(text: str, deselected: Collection[str] = ()) -> str | None:
    """The marker API on a line of a non-test ``.py`` file (whitespace ignored), if any."""
    line = compact(text)
    return next((m for m in MARKER_APIS if m in line), None) or _addopts_mark(_API_MARK, line, deselected)


def _addopts_mark(pattern: re.Pattern[str], line: str, deselected: Collection[str]) -> str | None:
    if not deselected:
        return None
    name = next((m.group(1) for m in pattern.finditer(line) if m.group(1) in deselected), None)
    return None if name is None else f"pytest.mark.{name} (named in the parent's addopts)"


def added_skip_markers(
    change: FileChange, test_files: GlobSet, deselected: Collection[str] = ()
) -> list[SkipMarker]:
    """Markers on the added lines of a test file, or marker APIs on those of any other ``.py`` file."""
    path = change.new_path
    if path is None:
        return []
    if path in test_files:
        finder = find_marker
    elif path.lower().endswith(".py"):
        finder = find_marker_api
    else:
        return []
    found = []
    for added in change.added:
        marker = finder(added.text, deselected)
        if marker:
            found.append(SkipMarker(path, added.number, marker, added.text.strip()))
    found += _syntax_markers(change, {m.line for m in found})
    if not found or path not in test_files:
        return found
    # v3.8 rule 1: in a test file, a marker on a test is judged against that test on the parent
    counting = counting_marker_lines(
        change.new_blob,
        change.old_blob,
        change.old_path is not None,
        {m.line for m in found},
        deselected,
    )
    return [m for m in found if m.line in counting]


def _syntax_markers(change: FileChange, flagged: Collection[int]) -> list[SkipMarker]:
    """v3.1: references to the skip/exit APIs found in head's syntax tree, on added lines the text
    rule did not already flag (a file that does not parse gives none: the text rule alone)."""
    path = change.new_path
    if path is None or not path.lower().endswith(".py") or not change.added:
        return []
    text = {a.number: a.text.strip() for a in change.added}
    facts = python_facts(change.new_blob, frozenset(text))
    found = facts.markers if facts is not None else ()
    return [SkipMarker(path, line, what, text[line]) for line, what in found if line not in flagged]
