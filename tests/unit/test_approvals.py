"""Contract v3.5 in the core: the [approvals] table, every rule an approval must pass, and the
replacement of the oracle-edit reasons. "An agent's pull request cannot approve itself": each way
it might try is a case below that must leave the verdict as without approvals."""

from __future__ import annotations

import dataclasses

import pytest

from oracle_gate.judge.approvals import Approval, ApprovalRules, counting_approvers, parse_approvals
from oracle_gate.judge.policy import parse_policy
from oracle_gate.judge.verdict import (
    APPROVABLE,
    Evidence,
    Reason,
    ReasonCode,
    Verdict,
    evaluate,
    oracle_change_approved,
)
from tests.support.factories import HEAD, added, change_set, evidence, lines, modified

OTHER_SHA = "c" * 40
POLICY = b'[approvals]\noracle = ["alice", "@octo-org/oracle-owners", "release-bot[bot]"]\ncount = 1\n'


def alice(**changes: object) -> Approval:
    base = Approval(login="alice", commit=HEAD, teams=(), permission="write")
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def oracle_edit_evidence(
    approvals: tuple[Approval, ...] | None, *, policy: bytes = POLICY, author: str | None = "agent"
) -> Evidence:
    """A change that edits freeze.json (protected) and pytest.ini (runner configuration) and
    adds a skip marker: three approvable reasons, and a live edit that would otherwise pass."""
    changes = change_set(
        modified("freeze.json", b'{"schema": 1, "frozen": []}\n', b'{"schema": 1, "frozen": [] }\n'),
        modified("pytest.ini", b"[pytest]\n", b"[pytest]\naddopts = -q\n"),
        modified("src/m.py", lines("def f():", "    return 1"), lines("def f():", "    return 2")),
        added("tests/test_new.py", lines("import pytest", "@pytest.mark.skip", "def helper(): pass")),
    )
    ev = evidence(changes, policy=parse_policy(policy))
    return dataclasses.replace(ev, approvals=approvals, author=author)


def codes(v: Verdict) -> set[str]:
    return {str(c) for c in v.codes}


WITHOUT = {"oracle_edit_forbidden", "runner_config_changed", "skip_marker_added"}


def test_baseline_without_approvals_fails() -> None:
    v = evaluate(oracle_edit_evidence(None))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_one_listed_approver_on_head_replaces_every_approvable_reason() -> None:
    v = evaluate(oracle_edit_evidence((alice(),)))
    assert (v.verdict, codes(v)) == ("pass_clean", {"oracle_change_approved", "live_surface_covers_diff"})
    approved = [r for r in v.reasons if r.code == ReasonCode.ORACLE_CHANGE_APPROVED]
    assert [r.detail for r in approved] == [f"approved by alice at {HEAD}"]


def test_one_reason_per_distinct_approver_and_a_repeat_counts_once() -> None:
    team = Approval("bob", HEAD, ("octo-org/oracle-owners",), "maintain")
    v = evaluate(oracle_edit_evidence((alice(), team, alice(), alice(login="ALICE"))))
    approved = [r.detail for r in v.reasons if r.code == ReasonCode.ORACLE_CHANGE_APPROVED]
    assert approved == [f"approved by alice at {HEAD}", f"approved by bob at {HEAD}"]


@pytest.mark.parametrize(
    ("name", "approval", "author"),
    [
        ("the author", alice(), "alice"),
        ("the author in another case", alice(), "ALICE"),
        ("an old head", alice(commit=OTHER_SHA), "agent"),
        ("an abbreviated head", alice(commit=HEAD[:12]), "agent"),
        ("read permission", alice(permission="read"), "agent"),
        ("triage permission", alice(permission="triage"), "agent"),
        ("no permission", alice(permission="none"), "agent"),
        ("someone not named", alice(login="mallory"), "agent"),
        ("a team not named", alice(login="mallory", teams=("octo-org/agents",)), "agent"),
        ("a team of another org", alice(login="mallory", teams=("evil-org/oracle-owners",)), "agent"),
        ("a bot through a named team", alice(login="agent[bot]", teams=("octo-org/oracle-owners",)), "x"),
        ("a bot named without [bot]", alice(login="alice[bot]"), "agent"),
        ("a named bot with read", alice(login="release-bot[bot]", permission="read"), "agent"),
        ("an empty login", alice(login=""), "agent"),
    ],
)
def test_an_approval_that_breaks_a_rule_approves_nothing(name: str, approval: Approval, author: str) -> None:
    v = evaluate(oracle_edit_evidence((approval,), author=author))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT), name


def test_a_named_bot_counts() -> None:
    v = evaluate(oracle_edit_evidence((alice(login="release-bot[bot]"),)))
    assert "oracle_change_approved" in codes(v)


def test_team_member_with_leading_at_counts() -> None:
    member = alice(login="carol", teams=("@Octo-Org/Oracle-Owners",), permission="admin")
    assert evaluate(oracle_edit_evidence((member,))).verdict == "pass_clean"


def test_count_not_met_changes_nothing() -> None:
    policy = b'[approvals]\noracle = ["alice", "bob"]\ncount = 2\n'
    v = evaluate(oracle_edit_evidence((alice(), alice(commit=HEAD.upper())), policy=policy))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)
    both = (alice(), alice(login="bob"))
    assert evaluate(oracle_edit_evidence(both, policy=policy)).verdict == "pass_clean"


def test_without_an_author_nothing_counts() -> None:
    """The core fails closed: who the author is must be known to exclude them."""
    assert evaluate(oracle_edit_evidence((alice(),), author=None)).verdict == "fail"


def test_without_an_approvals_table_nothing_changes() -> None:
    v = evaluate(oracle_edit_evidence((alice(),), policy=b"forbid_skip_markers = true\n"))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_empty_oracle_list_is_valid_and_approves_nothing() -> None:
    v = evaluate(oracle_edit_evidence((alice(),), policy=b"[approvals]\noracle = []\n"))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_nothing_to_replace_adds_no_approval_reason() -> None:
    changes = change_set(modified("src/m.py", lines("x = 1"), lines("x = 2")))
    ev = dataclasses.replace(
        evidence(changes, policy=parse_policy(POLICY)), approvals=(alice(),), author="agent"
    )
    v = evaluate(ev)
    assert (v.verdict, codes(v)) == ("pass_clean", {"live_surface_covers_diff"})


def test_other_reasons_still_apply_after_approval() -> None:
    """oracle_incomplete (here: a malformed policy key) is not approvable."""
    policy = b"bogus_key = 1\n" + POLICY
    v = evaluate(oracle_edit_evidence((alice(),), policy=policy))
    assert (v.verdict, codes(v)) == ("unscored", {"oracle_change_approved", "oracle_incomplete"})


def test_dynamic_rebinding_is_approvable_by_name() -> None:
    assert ReasonCode.DYNAMIC_REBINDING in APPROVABLE
    assert ReasonCode("dynamic_rebinding") is ReasonCode.DYNAMIC_REBINDING
    assert ReasonCode.SEED_REWRITTEN not in APPROVABLE


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (b'[approvals]\noracle = ["a"]\nextra = 1\n', "unknown key 'extra'"),
        (b"[approvals]\ncount = 1\n", "needs 'oracle'"),
        (b'[approvals]\noracle = ["a", 3]\n', "entry 1 is not a string"),
        (b'[approvals]\noracle = "alice"\n', "must be a list"),
        (b'[approvals]\noracle = ["a"]\ncount = 0\n', "'approvals.count' must be an integer >= 1"),
        (b'[approvals]\noracle = ["a"]\ncount = true\n', "'approvals.count' must be an integer >= 1"),
        (b'[approvals]\noracle = ["a"]\ncount = "1"\n', "'approvals.count' must be an integer >= 1"),
        (b'[approvals]\noracle = ["a/b/c"]\n', "neither a login nor an org/team slug"),
        (b'[approvals]\noracle = [""]\n', "neither a login nor an org/team slug"),
        (b'approvals = ["alice"]\n', "'approvals' must be a table"),
    ],
)
def test_malformed_table_is_incomplete_and_approves_nothing(table: bytes, problem: str) -> None:
    policy = parse_policy(table)
    assert policy.approvals is None
    assert any(problem in str(p) and p.source == "oracle-gate.toml" for p in policy.problems), policy.problems
    v = evaluate(oracle_edit_evidence((alice(login="a"),), policy=table))
    assert "oracle_incomplete" in codes(v)
    assert "oracle_change_approved" not in codes(v)
    assert v.verdict == "fail"


def test_parse_strips_leading_at_and_splits_logins_from_teams() -> None:
    rules, problems = parse_approvals({"oracle": ["@Alice", "org/Team"], "count": 2})
    assert problems == []
    assert rules == ApprovalRules(("Alice", "org/Team"), 2)
    assert rules.logins == {"alice"}
    assert rules.teams == {"org/team"}


def test_counting_approvers_is_sorted_and_distinct() -> None:
    rules = ApprovalRules(("zed", "amy"))
    found = counting_approvers(rules, [alice(login="zed"), alice(login="amy")], author="x", head_sha=HEAD)
    assert [a.login for a in found] == ["amy", "zed"]


def test_a_dynamic_rebinding_reason_is_replaced_like_the_others() -> None:
    """The v3.2 reason (decided by another rule) is in the replaced set by name."""
    ev = oracle_edit_evidence((alice(),))
    rebinding = Reason(ReasonCode.DYNAMIC_REBINDING, "src/m.py:3: exec(...)", "src/m.py", 3)
    kept = Reason(ReasonCode.FREEZE_OVERLAP, "src/m.py: 1 touched line(s)", "src/m.py")
    after = oracle_change_approved([rebinding, kept], ev)
    assert [r.code for r in after] == [ReasonCode.FREEZE_OVERLAP, ReasonCode.ORACLE_CHANGE_APPROVED]
