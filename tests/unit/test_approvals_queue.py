"""Contract v3.9.2 in the pure core: a merge group of several pull requests, each with its own
approvals; the group's oracle change is approved only when every pull request that makes one is."""

from __future__ import annotations

import dataclasses

from oracle_gate.judge.approvals import Approval, QueuedApprovals, queue_makers
from oracle_gate.judge.verdict import Evidence, ReasonCode, Verdict, evaluate
from tests.unit.test_approvals import WITHOUT, codes, oracle_edit_evidence

FIRST, SECOND = "1" * 40, "2" * 40
ORACLE_PATHS = frozenset({"freeze.json", "pytest.ini", "tests/test_new.py"})


def entry(number: int, head: str, paths: frozenset[str], *approvers: str) -> QueuedApprovals:
    approvals = tuple(Approval(login, head, (), "write") for login in approvers)
    return QueuedApprovals(number, "agent", head, approvals, paths)


def group(*queued: QueuedApprovals) -> Verdict:
    ev: Evidence = oracle_edit_evidence(None, author=None)
    return evaluate(dataclasses.replace(ev, queued=queued))


def test_the_oracle_change_is_approved_by_the_pull_request_that_makes_it() -> None:
    v = group(entry(7, FIRST, frozenset({"src/m.py"})), entry(8, SECOND, ORACLE_PATHS, "alice"))
    assert (v.verdict, codes(v)) == ("pass_clean", {"oracle_change_approved", "live_surface_covers_diff"})
    approved = [r.detail for r in v.reasons if r.code == ReasonCode.ORACLE_CHANGE_APPROVED]
    assert approved == [f"approved by alice at {SECOND}"]


def test_an_unapproved_maker_leaves_every_reason() -> None:
    split = (frozenset({"freeze.json", "src/m.py"}), frozenset({"pytest.ini", "tests/test_new.py"}))
    v = group(entry(7, FIRST, split[0], "alice"), entry(8, SECOND, split[1]))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_an_approval_of_another_pull_requests_head_approves_nothing() -> None:
    stolen = QueuedApprovals(8, "agent", SECOND, (Approval("alice", FIRST, (), "write"),), ORACLE_PATHS)
    v = group(entry(7, FIRST, frozenset({"src/m.py"}), "alice"), stolen)
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_every_maker_approved_approves_the_group() -> None:
    split = (frozenset({"freeze.json", "src/m.py"}), frozenset({"pytest.ini", "tests/test_new.py"}))
    v = group(entry(7, FIRST, split[0], "alice"), entry(8, SECOND, split[1], "alice"))
    approved = [r.detail for r in v.reasons if r.code == ReasonCode.ORACLE_CHANGE_APPROVED]
    assert v.verdict == "pass_clean"
    assert approved == [f"approved by alice at {FIRST}", f"approved by alice at {SECOND}"]


def test_a_change_no_single_entry_made_needs_every_pull_request() -> None:
    one, two = entry(7, FIRST, frozenset(), "alice"), entry(8, SECOND, frozenset({"a.py"}))
    assert [q.number for q in queue_makers((one, two), ["freeze.json"])] == [7, 8]
    assert [q.number for q in queue_makers((one, two), [None])] == [7, 8]
    v = group(entry(7, FIRST, frozenset({"src/m.py"})), entry(8, SECOND, frozenset({"src/m.py"}), "alice"))
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)


def test_the_authors_own_approval_does_not_count_for_their_entry() -> None:
    own = QueuedApprovals(8, "agent", SECOND, (Approval("agent", SECOND, (), "admin"),), ORACLE_PATHS)
    v = group(entry(7, FIRST, frozenset({"src/m.py"})), own)
    assert (v.verdict, codes(v)) == ("fail", WITHOUT)
