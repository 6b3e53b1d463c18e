"""Contract v3.9 in the core (issue 29): an approval bound to the base its approver saw, and the
maintainer's own pull request (opt-in). Each attack leaves the verdict as without approvals."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from oracle_gate.judge.approvals import Approval, ApprovalRules, counting_approvers
from oracle_gate.judge.policy import parse_policy
from oracle_gate.judge.verdict import Evidence, ReasonCode, Verdict, evaluate
from tests.unit.test_approvals import WITHOUT, alice, codes, oracle_edit_evidence

REVIEWED = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
AUTHORS = b'[approvals]\noracle = ["alice"]\nauthors = ["maint"]\n'


def retargeted(approvals: tuple[Approval, ...], changed: datetime | None) -> Verdict:
    return evaluate(dataclasses.replace(oracle_edit_evidence(approvals), base_changed_at=changed))


def test_an_approval_submitted_before_the_base_changed_is_stale() -> None:
    """The attack: approved on head H against the agent's branch, then retargeted without a push."""
    approval = alice(submitted_at=REVIEWED)
    assert retargeted((approval,), None).verdict == "pass_clean"  # as today, with no base change
    v = retargeted((approval,), REVIEWED + timedelta(minutes=5))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_an_approval_submitted_after_the_base_changed_counts() -> None:
    v = retargeted((alice(submitted_at=REVIEWED + timedelta(seconds=1)),), REVIEWED)
    assert v.verdict == "pass_clean"


@pytest.mark.parametrize(
    ("name", "submitted"),
    [("in the same second", REVIEWED), ("at no known time", None)],
)
def test_an_approval_not_known_to_follow_the_base_change_is_stale(
    name: str, submitted: datetime | None
) -> None:
    v = retargeted((alice(submitted_at=submitted),), REVIEWED)
    assert v.verdict == "fail", name


def test_offsets_compare_as_instants() -> None:
    later = REVIEWED.astimezone(datetime.fromisoformat("2026-11-30T13:00:00+02:00").tzinfo)
    assert retargeted((alice(submitted_at=later + timedelta(seconds=1)),), REVIEWED).verdict == "pass_clean"


def authored(author: str, permission: str | None, approvals: tuple[Approval, ...] = ()) -> Evidence:
    ev = oracle_edit_evidence(approvals, policy=AUTHORS, author=author)
    return dataclasses.replace(ev, author_permission=permission)


@pytest.mark.parametrize("permission", ["maintain", "admin", "ADMIN"])
def test_a_named_author_with_maintain_or_admin_approves_their_own_pull_request(permission: str) -> None:
    v = evaluate(authored("maint", permission))
    assert v.verdict == "pass_clean"
    approved = [r.detail for r in v.reasons if r.code == ReasonCode.ORACLE_CHANGE_APPROVED]
    assert len(approved) == 1
    assert approved[0].endswith("(by the author)")
    assert approved[0].startswith("approved by maint at ")


@pytest.mark.parametrize(
    ("name", "author", "permission", "policy"),
    [
        ("write only", "maint", "write", AUTHORS),
        ("permission not asked", "maint", None, AUTHORS),
        ("no permission", "maint", "none", AUTHORS),
        ("not named in authors", "agent", "admin", AUTHORS),
        ("named only as an approver", "alice", "admin", AUTHORS),
        ("no authors key (opt-in)", "maint", "admin", b'[approvals]\noracle = ["alice", "maint"]\n'),
    ],
)
def test_the_authors_own_pull_request_counts_only_when_opted_in(
    name: str, author: str, permission: str | None, policy: bytes
) -> None:
    ev = oracle_edit_evidence((), policy=policy, author=author)
    v = evaluate(dataclasses.replace(ev, author_permission=permission))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT), name


def test_the_author_is_one_approval_of_count() -> None:
    policy = b'[approvals]\noracle = ["alice"]\nauthors = ["maint"]\ncount = 2\n'
    ev = dataclasses.replace(
        oracle_edit_evidence((), policy=policy, author="maint"), author_permission="admin"
    )
    assert evaluate(ev).verdict == "fail"
    both = dataclasses.replace(ev, approvals=(alice(),))
    assert evaluate(both).verdict == "pass_clean"
    found = counting_approvers(
        ApprovalRules(("alice",), 2, ("maint",)),
        (alice(), alice(login="maint")),  # the author's own review never counts twice
        author="maint",
        head_sha=ev.changes.head,
        author_permission="admin",
    )
    assert [(a.login, a.by_author) for a in found] == [("alice", False), ("maint", True)]


@pytest.mark.parametrize(
    ("authors", "problem"),
    [
        (b'authors = ["octo-org/maintainers"]', "names a team"),
        (b'authors = ["release-bot[bot]"]', "is a bot"),
        (b'authors = "maint"', "must be a list of logins"),
        (b"authors = [3]", "is not a string"),
    ],
)
def test_a_malformed_authors_key_is_incomplete_and_approves_nothing(authors: bytes, problem: str) -> None:
    table = b'[approvals]\noracle = ["alice"]\n' + authors + b"\n"
    policy = parse_policy(table)
    assert policy.approvals is None
    assert any(problem in str(p) for p in policy.problems), policy.problems
    ev = oracle_edit_evidence((), policy=table, author="maint")
    v = evaluate(dataclasses.replace(ev, author_permission="admin"))
    assert "oracle_change_approved" not in codes(v)
    assert v.verdict == "fail"
