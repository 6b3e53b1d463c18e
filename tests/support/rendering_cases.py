"""Verdicts built from values, one per kind a person reads, for the rendering goldens.

Everything that reaches the output is fixed here: the SHAs, the protocol's digests and the gate
version (pinned, not ``oracle_gate.__version__``, so a release does not churn the goldens). Details follow
the judge's wording, and some carry markdown that must come out escaped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

from oracle_gate.judge.approvals import ApprovalsSeen, Approver
from oracle_gate.judge.triage import TriageEntry
from oracle_gate.judge.verdict import (
    ORACLE_INPUT_FREEZE,
    ORACLE_INPUT_LOCK,
    ORACLE_INPUT_MAP,
    ORACLE_INPUT_POLICY,
    Outcome,
    Provenance,
    Reason,
    ReasonCode,
    Verdict,
)
from oracle_gate.render.check import check_summary
from oracle_gate.render.explain import explain_markdown
from oracle_gate.render.job_summary import action_summary, explain_job_summary
from oracle_gate.render.markdown import to_markdown

PARENT = "0123456789abcdef0123456789abcdef01234567"
HEAD = "fedcba9876543210fedcba9876543210fedcba98"
GATE_VERSION = "0.0.0+golden"
#: Extra protected globs as the Action's ``protected`` input may hold them: a space, a quote, a dash.
ODD_GLOBS = ("vendor data/**", "it's/**", "-dashed/**")


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


PROTOCOL = Provenance(
    policy_sha256=_digest("oracle-gate.toml"),
    freeze_sha256=_digest("freeze.json"),
    lock_sha256=_digest("fixture_lock.json"),
    coverage_sha256=_digest("parent.coverage"),
    gate_version=GATE_VERSION,
)


def _verdict(
    kind: Outcome,
    reasons: tuple[Reason, ...],
    overlap: dict[str, list[int]],
    touched: dict[str, list[int]],
    *,
    observers: dict[str, dict[int, list[str]]] | None = None,
    protocol: Provenance = PROTOCOL,
) -> Verdict:
    count = sum(map(len, overlap.values()))
    total = sum(map(len, touched.values()))
    ratio = round(count / total, 4) if total else 0.0
    return Verdict(kind, reasons, overlap, touched, ratio, PARENT, HEAD, protocol, observers or {})


def pass_clean() -> Verdict:
    touched = {"src/pkg/mod.py": [5, 6, 14], "src/pkg/util.py": [3]}
    detail = "4 touched parent line(s) in 2 file(s); none is observed by frozen tests alone"
    return _verdict(Outcome.PASS_CLEAN, (Reason(ReasonCode.LIVE_SURFACE_COVERS_DIFF, detail),), {}, touched)


def fail() -> Verdict:
    """Every fail code, on a run with extra protected globs and a failing parent allowed."""
    reasons = (
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN,
            "fixtures/users.json: edited (protected by 'fixtures/**')",
            "fixtures/users.json",
        ),
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN,
            "vendor data/a*b.csv: deleted (protected by 'vendor data/**')",
            "vendor data/a*b.csv",
        ),
        Reason(
            ReasonCode.FIXTURE_LOCK_BROKEN, "seeds/base.sql: sha256 does not match the lock", "seeds/base.sql"
        ),
        Reason(ReasonCode.RUNNER_CONFIG_CHANGED, "conftest.py: edited", "conftest.py"),
        Reason(
            ReasonCode.RUNNER_CONFIG_CHANGED,
            "pyproject.toml: [tool.pytest.ini_options] changed",
            "pyproject.toml",
        ),
        Reason(
            ReasonCode.SKIP_MARKER_ADDED,
            "tests/test_io.py:12: adds 'pytest.mark.skip': @pytest.mark.skip(reason=\"flaky | slow\")",
            "tests/test_io.py",
            12,
        ),
    )
    protocol = Provenance(**{**PROTOCOL.__dict__, "extra_protected": ODD_GLOBS, "allow_failing_parent": True})
    return _verdict(Outcome.FAIL, reasons, {}, {"src/pkg/mod.py": [5]}, protocol=protocol)


OVERLAP = {"src/pkg/mod.py": [10, 11, 12, 20, 31, 32], "src/pkg/util.py": [5, 7, 8]}
_FROZEN = "tests/test_mod.py::test_frozen"
_PARAM = ("tests/test_mod.py::test_param[1]", "tests/test_mod.py::test_param[2]")
_CLASS = "tests/test_mod.py::TestGroup::test_in_class"
_LAZY = "tests/test_util.py::test_lazy_import"


def unscored_overlap() -> Verdict:
    """Overlap in two files, several ranges each, observed by several frozen tests (more than three
    in one file, so the tables name three and count the rest)."""
    observers = {
        "src/pkg/mod.py": {
            10: [_FROZEN],
            11: [_FROZEN, *_PARAM],
            12: [_FROZEN],
            20: [_CLASS],
            31: [_FROZEN],
            32: [_FROZEN],
        },
        "src/pkg/util.py": {5: [_LAZY], 7: [_LAZY], 8: [_LAZY]},
    }
    reasons = (
        Reason(
            ReasonCode.FREEZE_OVERLAP,
            "src/pkg/mod.py: 6 touched line(s) observed only by frozen tests: 10-12, 20, 31-32",
            "src/pkg/mod.py",
        ),
        Reason(
            ReasonCode.FREEZE_OVERLAP,
            "src/pkg/util.py: 3 touched line(s) observed only by frozen tests: 5, 7-8",
            "src/pkg/util.py",
        ),
    )
    touched = {"src/pkg/mod.py": [5, 10, 11, 12, 20, 31, 32], "src/pkg/util.py": [1, 5, 7, 8]}
    return _verdict(Outcome.UNSCORED, reasons, OVERLAP, touched, observers=observers)


def unscored_incomplete() -> Verdict:
    """The oracle could not be read whole: one reason per problem, no overlap computed."""
    problems = (
        ("oracle-gate.toml", "unknown key 'tets' (ignored)", ORACLE_INPUT_POLICY),
        ("freeze.json", "entry 2 has no 'reason'", ORACLE_INPUT_FREEZE),
        ("fixture_lock.json", "sha256 of 'seeds/base.sql' is not a 64-digit hex digest", ORACLE_INPUT_LOCK),
        (None, "no coverage map for the parent commit 0123456789ab", ORACLE_INPUT_MAP),
    )
    reasons = tuple(
        Reason(ReasonCode.ORACLE_INCOMPLETE, f"{path}: {text}" if path else text, path, None, kind)
        for path, text, kind in problems
    )
    return _verdict(Outcome.UNSCORED, reasons, {}, {"src/pkg/mod.py": [5, 6]})


_LIVE = "tests/test_mod.py::test_live"


def unscored_edited() -> Verdict:
    """v2: lines observed only by a live test the change edits (observer_edited), beside an overlap
    line no test runs whose function only a frozen test observes (an inherited observer)."""
    reasons = (
        Reason(
            ReasonCode.FREEZE_OVERLAP,
            "src/pkg/mod.py: 1 touched line(s) observed only by frozen tests: 9",
            "src/pkg/mod.py",
        ),
        Reason(
            ReasonCode.OBSERVER_EDITED,
            f"src/pkg/mod.py: 2 touched line(s) observed only by tests this change edits ({_LIVE}): 5-6",
            "src/pkg/mod.py",
            5,
        ),
    )
    touched = {"src/pkg/mod.py": [5, 6, 9], "tests/test_mod.py": [7]}
    verdict = _verdict(
        Outcome.UNSCORED,
        reasons,
        {"src/pkg/mod.py": [9]},
        touched,
        observers={"src/pkg/mod.py": {9: [_FROZEN]}},
    )
    return replace(
        verdict,
        edited_only={"src/pkg/mod.py": [5, 6]},
        edited_observers={"src/pkg/mod.py": {5: [_LIVE], 6: [_LIVE]}},
        edited_tests={_LIVE: "this change edits its own function"},
        edited_test_lines={_LIVE: 6},
        inherited={"src/pkg/mod.py": [9]},
    )


#: v3.5: the policy's ``[approvals]`` entries (a login and a team, one with its optional ``@``).
APPROVERS = ("alice", "@octo-org/oracle-owners")


def fail_approvers() -> Verdict:
    """An oracle edit under a policy that names approvers: the guidance names them."""
    reasons = (
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN,
            "freeze.json: edited (protected by 'freeze.json')",
            "freeze.json",
        ),
    )
    verdict = _verdict(Outcome.FAIL, reasons, {}, {"src/pkg/mod.py": [5]})
    return replace(verdict, approvers=APPROVERS)


def approvals_stale() -> Verdict:
    """v3.5: an oracle edit whose approvals are of older heads (a push made them stale): listed, by
    login and SHA, display only; v3.9.1: one of the current head submitted before a retarget."""
    seen = ApprovalsSeen(
        head=HEAD,
        stale=(Approver("alice", "1" * 40), Approver("octo-maintainer[bot]", "2" * 40)),
        unknown_teams=("octo-org/oracle-owners", "octo-org/gone_team"),
        stale_base=(Approver("carol", HEAD),),
        base_changed_at=datetime(2026, 11, 30, 13, 0, 5, tzinfo=timezone(timedelta(hours=1))),
    )
    return replace(fail_approvers(), approvals_seen=seen)


def approvals_unreadable() -> Verdict:
    """v3.5: the reviews could not be read: the verdict is judged without approvals, and says so."""
    why = "could not list the reviews of pull request #7: GitHub answered 502 (Bad Gateway) | retry"
    return replace(fail_approvers(), approvals_seen=ApprovalsSeen(head=HEAD, unreadable=why))


def unscored_no_added_lines() -> Verdict:
    """A deletion-only change: nothing to score."""
    reasons = (Reason(ReasonCode.NO_ADDED_LINES, "the change adds no line to any scored file"),)
    return _verdict(Outcome.UNSCORED, reasons, {}, {"src/pkg/mod.py": [5, 6]})


def v3_maintainer() -> Verdict:
    """v3.5-v3.7: an approved oracle change that still rewrites a seed corpus (fail), two approvers,
    and freeze entries needing triage (one expired, one without an owner, an id with ``|`` and ``@``)."""
    reasons = (
        Reason(
            ReasonCode.SEED_REWRITTEN,
            "seeds/corpus.json: edited: the parent's content is not kept as a prefix "
            "(append-only by 'seeds/**')",
            "seeds/corpus.json",
        ),
        Reason(ReasonCode.ORACLE_CHANGE_APPROVED, f"approved by alice at {HEAD}"),
        Reason(ReasonCode.ORACLE_CHANGE_APPROVED, f"approved by bob-the-maintainer at {HEAD}"),
        Reason(ReasonCode.ORACLE_CHANGE_APPROVED, f"approved by maint at {HEAD} (by the author)"),
    )
    triage = (
        TriageEntry(_FROZEN, "alice", date(2026, 1, 31), ("expired",)),
        TriageEntry("tests/test_mod.py::test_pipe[a|b @carol]", None, None, ("no_owner",)),
    )
    touched = {"seeds/corpus.json": [1, 2]}
    return replace(_verdict(Outcome.FAIL, reasons, {}, touched), triage=triage)


VERDICT_KINDS = {
    "fail_approvers": fail_approvers,
    "unscored_no_added_lines": unscored_no_added_lines,
    "pass_clean": pass_clean,
    "fail": fail,
    "unscored_overlap": unscored_overlap,
    "unscored_incomplete": unscored_incomplete,
    "unscored_edited": unscored_edited,
    "v3_maintainer": v3_maintainer,
    "approvals_stale": approvals_stale,
    "approvals_unreadable": approvals_unreadable,
}


#: Every markdown rendering of a verdict a person reads, by name (for the structure and mention tests).
MARKDOWN_RENDERINGS: dict[str, Callable[[Verdict], str]] = {
    "comment": to_markdown,
    "check_summary": check_summary,
    "explain": explain_markdown,
    "explain_job_summary": lambda v: explain_job_summary(v, 1, replied=True, truncated=False),
    "job_summary": lambda v: action_summary(v, ("Sticky comment: created (id 1).",)),
}
