"""A check run's annotations: failures on the files that caused them, warnings on malformed oracle
files, on runs of overlap lines and on tests this change edits.

Plain text (titles and messages go through :mod:`oracle_gate.escape`); how many are posted, and in
batches of what size, is :mod:`oracle_gate.github`'s business.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from enum import StrEnum

from oracle_gate import escape
from oracle_gate.judge.verdict import REASONS, Outcome, ReasonCode, Verdict, range_text
from oracle_gate.render.listings import edited_only_tests, edited_ranges, overlap_ranges

OVERLAP_TITLE = "Observed only by frozen tests"
INCOMPLETE_TITLE = "Oracle input unusable (oracle_incomplete)"
EDITED_TITLE = "Observed only by tests this change edits (observer_edited)"
EDITED_TEST_TITLE = "Test edited by this change (observer_edited)"
FAIL_TITLES = {
    ReasonCode.ORACLE_EDIT_FORBIDDEN: "Protected oracle path changed",
    ReasonCode.FIXTURE_LOCK_BROKEN: "Locked fixture changed",
    ReasonCode.RUNNER_CONFIG_CHANGED: "Test-runner configuration changed",
    ReasonCode.SKIP_MARKER_ADDED: "Skip or xfail marker added",
    ReasonCode.SEED_REWRITTEN: "Append-only seed corpus rewritten",
}
_OBSERVERS_NAMED = 20


class AnnotationLevel(StrEnum):
    """A check-run annotation's ``annotation_level`` (the Checks API's words)."""

    NOTICE = "notice"
    WARNING = "warning"
    FAILURE = "failure"


@dataclass(frozen=True)
class Annotation:
    """One check-run annotation; ``to_api`` is the Checks API's shape."""

    path: str
    start_line: int
    end_line: int
    level: AnnotationLevel
    title: str
    message: str

    def to_api(self) -> dict[str, str | int]:
        return {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level,
            "title": self.title,
            "message": self.message,
        }


def check_annotations(v: Verdict) -> list[Annotation]:
    """Failures on the files that caused them, a warning on each malformed oracle file, then one
    warning per run of overlap lines.

    Overlap lines are parent coordinates (on the parent's path), and each
    message says so: GitHub draws annotations on the head, where the same
    numbers may now point at other lines.
    """
    return [
        *_failure_annotations(v),
        *_incomplete_annotations(v),
        *_overlap_annotations(v),
        *_edited_annotations(v),
    ]


def _failure_annotations(v: Verdict) -> list[Annotation]:
    return [
        Annotation(
            path=r.path,
            start_line=r.line or 1,
            end_line=r.line or 1,
            level=AnnotationLevel.FAILURE,
            title=escape.annotation_title(f"{FAIL_TITLES.get(r.code, r.code)} ({r.code})"),
            message=escape.annotation_message(r.detail),
        )
        for r in v.reasons
        if r.path and REASONS.get(r.code) == Outcome.FAIL
    ]


def _incomplete_annotations(v: Verdict) -> list[Annotation]:
    """A warning on the oracle file each ``oracle_incomplete`` reason names.

    Only a repository path is annotated: a coverage map given by an absolute path on the runner (or
    outside the checkout) is no file of the repository for GitHub to draw on.
    """
    return [
        Annotation(
            path=r.path,
            start_line=1,
            end_line=1,
            level=AnnotationLevel.WARNING,
            title=INCOMPLETE_TITLE,
            message=escape.annotation_message(r.detail),
        )
        for r in v.reasons
        if r.code == ReasonCode.ORACLE_INCOMPLETE and r.path and _is_repo_path(r.path)
    ]


def _is_repo_path(path: str) -> bool:
    """A relative, normalised path GitHub could draw on (a fresh verdict's input paths are not held
    to :func:`oracle_gate.render.verdict_json.is_repo_path`, which only a stored verdict must pass)."""
    norm = posixpath.normpath(path)
    return norm == path and not path.startswith("/") and norm != ".." and not norm.startswith("../")


def _overlap_annotations(v: Verdict) -> list[Annotation]:
    out = []
    for path, ranges in overlap_ranges(v).items():
        by_line = v.overlap_observers.get(path, {})
        for a, b in ranges:
            tests = sorted({t for n in range(a, b + 1) for t in by_line.get(n, [])})
            out.append(
                Annotation(
                    path, a, b, AnnotationLevel.WARNING, OVERLAP_TITLE, _overlap_message(v, a, b, tests, path)
                )
            )
    return out


def _overlap_message(v: Verdict, a: int, b: int, tests: list[str], path: str = "") -> str:
    lines, are = ("line", "is") if a == b else ("lines", "are")
    text = (
        f"Parent {lines} {range_text(a, b)} (numbered in the parent commit {v.parent[:12]}, "
        f"not in the head) {are} touched by this change and observed only by frozen tests: "
        "no live test checks them, so a green run proves nothing here."
    )
    inherited = set(v.inherited.get(path, ()))
    if inherited and inherited & set(range(a, b + 1)):
        text += " No test runs this line; the function around it is observed only by frozen tests."
    if tests:
        named = ", ".join(tests[:_OBSERVERS_NAMED])
        more = f" and {len(tests) - _OBSERVERS_NAMED} more" if len(tests) > _OBSERVERS_NAMED else ""
        text += f" Frozen tests observing them: {named}{more}."
    return escape.annotation_message(text)


def _edited_annotations(v: Verdict) -> list[Annotation]:
    """v2: a warning on each run of edited_only lines naming the edited tests, and one on each of
    those tests (at its parent ``def`` line, or line 1 when the gate could not place it)."""
    out = []
    for path, ranges in edited_ranges(v).items():
        by_line = v.edited_observers.get(path, {})
        for a, b in ranges:
            tests = sorted({t for n in range(a, b + 1) for t in by_line.get(n, [])})
            lines, are = ("line", "is") if a == b else ("lines", "are")
            text = (
                f"Parent {lines} {range_text(a, b)} (numbered in the parent commit {v.parent[:12]}) "
                f"{are} touched by this change, and the only tests that observe these lines are tests this "
                f"change edits: a green run proves nothing about them. Edited tests: {', '.join(tests)}."
            )
            out.append(
                Annotation(
                    path,
                    a,
                    b,
                    AnnotationLevel.WARNING,
                    EDITED_TITLE,
                    escape.annotation_message(text),
                )
            )
    for test, how in edited_only_tests(v).items():
        line = v.edited_test_lines.get(test, 1)
        text = (
            f"{test}: {how}. It was the only observer of lines this change touches, so it does not count "
            "as a live observer of them: a green run of it proves nothing about them."
        )
        out.append(
            Annotation(
                test.split("::", 1)[0],
                line,
                line,
                AnnotationLevel.WARNING,
                EDITED_TEST_TITLE,
                escape.annotation_message(text),
            )
        )
    return out
