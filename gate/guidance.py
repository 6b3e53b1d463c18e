"""What a person does next after a verdict that is not ``pass_clean``: the values behind
``templates/_guidance.md.j2``, which the sticky comment and the check summary include.

A reason code alone tells an author that something is wrong, not what to do about it (issue 18). Each
reason here gets its way out: the frozen tests that alone observe the overlap lines and the two ways
to make those lines live; the edited tests that stopped counting and why; the oracle file that could
not be read and how it is fixed; who may approve an oracle change. Everything named here (paths, test
ids, details, approvers) is data the template escapes; the wording lives in the template.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from oracle_gate.judge.verdict import (
    ORACLE_INPUT_FREEZE,
    ORACLE_INPUT_LOCK,
    ORACLE_INPUT_MAP,
    ORACLE_INPUT_POLICY,
    Outcome,
    ReasonCode,
    Verdict,
    line_ranges,
    range_text,
)

#: Reasons that a person must make or approve (v3.5 replaces them by ``oracle_change_approved``).
#: By value, so that codes another version adds (v3.2 ``dynamic_rebinding``, v3.6
#: ``seed_rewritten``) get their guidance as soon as the judge reports them.
ORACLE_EDIT_CODES = (
    "oracle_edit_forbidden",
    "fixture_lock_broken",
    "runner_config_changed",
    "skip_marker_added",
    "dynamic_rebinding",
    "seed_rewritten",
)
#: Caps that keep the guidance a fixed size whatever the verdict holds (the reasons table above it
#: and verdict.json list everything): frozen tests, files per test, edited tests, incomplete rows.
FROZEN_TESTS_NAMED = 10
FILES_PER_TEST = 5
EDITED_TESTS_NAMED = 10
INCOMPLETE_ROWS = 20

#: How an unreadable oracle input is fixed, by ``Reason.oracle_input``.
INCOMPLETE_FIXES = {
    ORACLE_INPUT_POLICY: (
        "Correct the policy on the base branch, in a pull request of its own: the gate reads it from "
        "the parent commit, so an edit in this pull request counts only once merged. Then rebase."
    ),
    ORACLE_INPUT_FREEZE: (
        "Correct the freeze manifest on the base branch, in a pull request of its own: every entry "
        "needs a `nodeid` that names a test the map saw run, a `reason`, and a `bound_sha` in the parent's "
        "history. Then rebase."
    ),
    ORACLE_INPUT_LOCK: (
        "Correct the fixture lock on the base branch, in a pull request of its own: every locked path "
        "needs the 64-digit SHA-256 of its bytes. Then rebase."
    ),
    ORACLE_INPUT_MAP: (
        "Give the gate a usable coverage map of the parent commit: let the map workflow run for it "
        "(or run `oracle-gate map` on it, with the parent's tests passing), then re-run this check."
    ),
}
UNKNOWN_INPUT_FIX = (
    "Correct the file named on the base branch, or rebuild the parent's coverage map; then re-run this check."
)


@dataclass(frozen=True)
class FrozenObserver:
    """A frozen test that observes overlap lines: per file (parent path), those lines as text."""

    test: str
    files: tuple[tuple[str, str], ...]
    more_files: int = 0


@dataclass(frozen=True)
class IncompleteItem:
    """One ``oracle_incomplete`` reason: the file, what is wrong, how to fix it."""

    path: str | None
    detail: str
    fix: str


@dataclass(frozen=True)
class Guidance:
    """Per reason of a verdict, what the template needs to say what to do next."""

    oracle_edit_codes: tuple[str, ...] = ()
    approvers: tuple[str, ...] = ()
    seed_rewritten: bool = False
    dynamic_rebinding: bool = False
    frozen: tuple[FrozenObserver, ...] = ()
    frozen_more: int = 0
    #: ``freeze_overlap`` is a reason (the ways out are said even when a stored verdict.json
    #: written before ``overlap_observers`` existed names no frozen test).
    freeze_overlap: bool = False
    observer_edited: bool = False
    edited: Mapping[str, str] = field(default_factory=dict)
    edited_more: int = 0
    incomplete: tuple[IncompleteItem, ...] = ()
    incomplete_more: int = 0
    no_added_lines: bool = False

    @property
    def approvable(self) -> bool:
        """Whether an approval could lift any of the oracle reasons (v3.5: never ``seed_rewritten``)."""
        return any(c != "seed_rewritten" for c in self.oracle_edit_codes)

    @property
    def any(self) -> bool:
        return bool(
            self.oracle_edit_codes
            or self.freeze_overlap
            or self.observer_edited
            or self.incomplete
            or self.no_added_lines
        )


def guidance(v: Verdict) -> Guidance:
    """The guidance for ``v`` (empty for ``pass_clean``)."""
    if v.verdict == Outcome.PASS_CLEAN:
        return Guidance()
    codes = [str(c) for c in v.codes]
    frozen, edited, incomplete = frozen_observers(v), edited_tests(v), incomplete_items(v)
    return Guidance(
        oracle_edit_codes=tuple(c for c in codes if c in ORACLE_EDIT_CODES),
        approvers=v.approvers,
        seed_rewritten="seed_rewritten" in codes,
        dynamic_rebinding="dynamic_rebinding" in codes,
        frozen=tuple(frozen[:FROZEN_TESTS_NAMED]),
        frozen_more=max(0, len(frozen) - FROZEN_TESTS_NAMED),
        freeze_overlap=ReasonCode.FREEZE_OVERLAP in v.codes,
        observer_edited=ReasonCode.OBSERVER_EDITED in v.codes,
        edited=dict(list(edited.items())[:EDITED_TESTS_NAMED]),
        edited_more=max(0, len(edited) - EDITED_TESTS_NAMED),
        incomplete=incomplete[:INCOMPLETE_ROWS],
        incomplete_more=max(0, len(incomplete) - INCOMPLETE_ROWS),
        no_added_lines=ReasonCode.NO_ADDED_LINES in v.codes,
    )


def frozen_observers(v: Verdict) -> list[FrozenObserver]:
    """Every frozen test observing an overlap line, with the lines it observes per file: fixing and
    unfreezing it makes those lines live (when no other frozen test is their only other observer)."""
    by_test: dict[str, dict[str, list[int]]] = {}
    for path, by_line in sorted(v.overlap_observers.items()):
        for line, tests in sorted(by_line.items()):
            for test in tests:
                by_test.setdefault(test, {}).setdefault(path, []).append(line)
    out = []
    for test, files in sorted(by_test.items()):
        shown = sorted(files.items())[:FILES_PER_TEST]
        texts = tuple(
            (path, ", ".join(range_text(a, b) for a, b in line_ranges(lines))) for path, lines in shown
        )
        out.append(FrozenObserver(test, texts, max(0, len(files) - FILES_PER_TEST)))
    return out


def edited_tests(v: Verdict) -> dict[str, str]:
    """The edited tests that were the only observers of some touched line, each with how it was
    edited (the same tests the edited-observers table names)."""
    only = {t for lines in v.edited_observers.values() for tests in lines.values() for t in tests}
    return {t: how for t, how in sorted(v.edited_tests.items()) if t in only}


def incomplete_items(v: Verdict) -> tuple[IncompleteItem, ...]:
    """Each ``oracle_incomplete`` reason as file, problem (without the file's name it starts with)
    and fix (the gate's own words, by the oracle input the reason is about)."""
    return tuple(
        IncompleteItem(
            r.path,
            r.detail.removeprefix(f"{r.path}: ") if r.path else r.detail,
            INCOMPLETE_FIXES.get(r.oracle_input or "", UNKNOWN_INPUT_FIX),
        )
        for r in v.reasons
        if r.code == ReasonCode.ORACLE_INCOMPLETE
    )
