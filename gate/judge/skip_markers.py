"""Skip and xfail markers in added test lines, matched as text.

Text matching is deliberate: it also catches aliases and home-made decorators
(``@skip_on_ci``) and markers in strings or comments, at the price of failing
a change that only *mentions* a marker in a test file. Failing closed is the
point of the gate.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.judge.changes import FileChange
from gate.judge.globs import GlobSet

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
    "unittest.skipUnless",
    "unittest.skipIf",
    "unittest.skip",
    "@skipUnless",
    "@skipIf",
    "@skip",
    "skipTest(",
    "importorskip(",
    "expectedFailure",
    # The contract lists ``skipif`` and ``xfail`` as tokens of their own: matched as
    # text they also catch ``from pytest import xfail`` + ``xfail(...)`` and aliases.
    "skipif",
    "xfail",
)


@dataclass(frozen=True)
class SkipMarker:
    path: str
    line: int
    marker: str
    text: str


def find_marker(text: str) -> str | None:
    return next((m for m in MARKERS if m in text), None)


def added_skip_markers(change: FileChange, test_files: GlobSet) -> list[SkipMarker]:
    """Markers on the added lines of a file whose head path is a test file."""
    if change.new_path is None or change.new_path not in test_files:
        return []
    found = []
    for added in change.added:
        marker = find_marker(added.text)
        if marker:
            found.append(SkipMarker(change.new_path, added.number, marker, added.text.strip()))
    return found
