"""Contract v3.9.2 (issue 29): which merge groups carry their pull request's approvals. Only a group
of one pull request whose tree is that pull request's head merged onto the base; every other group
carries none and says why (the verdict is then judged without approvals: fail closed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest

from oracle_gate.errors import PublishError
from oracle_gate.git import Git
from oracle_gate.github.reviews import Review
from oracle_gate.judge.approvals import ApprovalRules
from oracle_gate.review.approvals import ApprovalsRead
from oracle_gate.review.merge_group import QueuedPull, group_approvals, queue_entry
from tests.support.repo import Repo

RULES = ApprovalRules(("alice",), 1)


@dataclass
class Reviews:
    head: str
    asked: list[str] = field(default_factory=list)

    def reviews(self, number: int) -> list[Review]:
        self.asked.append(f"reviews:{number}")
        return [Review("alice", "APPROVED", self.head)]

    def active_member(self, team: str, login: str) -> bool:
        return False

    def team_exists(self, team: str) -> bool:
        return True

    def permission(self, login: str) -> str:
        return "write"

    def base_changed_at(self, number: int) -> datetime | None:
        return None


@dataclass(frozen=True)
class Queue:
    repo: Repo
    base: str
    head: str  # the pull request's head
    group: str  # the queue's commit: head merged onto base
    other: str  # another pull request's head


def queue(tmp_path: Path) -> Queue:
    repo = Repo(tmp_path / "r")
    repo.write("fixtures/data.json", "1\n")
    repo.write("src/a.py", "x = 1\n")
    base = repo.commit("base")
    repo.write("fixtures/data.json", "2\n")
    head = repo.commit("the pull request")
    repo.checkout(base)
    repo.write("src/a.py", "x = 2\n")
    other = repo.commit("another pull request")
    repo.checkout(base)
    repo.git("merge", "-q", "--no-ff", "-m", "the queue's commit", head)
    return Queue(repo, base, head, repo.head(), other)


def carried(q: Queue, *, ref: str, head: str | None = None, group: str | None = None) -> ApprovalsRead | None:
    source = Reviews(head or q.head)
    return group_approvals(
        Git(q.repo.root),
        source,
        RULES,
        head_ref=ref,
        base_sha=q.base,
        head_sha=group or q.group,
        pull=lambda n: QueuedPull(head or q.head, "agent"),
        fetch_head=lambda n: None,
    )


def ref(number: int, parent: str) -> str:
    return f"refs/heads/gh-readonly-queue/main/pr-{number}-{parent}"


def test_a_group_of_one_carries_its_pull_requests_approvals(tmp_path: Path) -> None:
    q = queue(tmp_path)
    read = carried(q, ref=ref(7, q.base))
    assert read is not None
    assert read.head == q.head
    assert [a.login for a in read.approvals or ()] == ["alice"]


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("stacked", "holds more than pull request #7"),
        ("not-a-queue-ref", "names no queued pull request"),
        ("other-tree", "is not its head"),
        ("absent-head", "could not be fetched"),
    ],
)
def test_any_other_group_carries_none_and_says_why(tmp_path: Path, case: str, why: str) -> None:
    q = queue(tmp_path)
    if case == "stacked":
        read = carried(q, ref=ref(7, q.other))
    elif case == "not-a-queue-ref":
        read = carried(q, ref=f"refs/heads/main/pr-7-{q.base}")
    elif case == "other-tree":  # the group holds another pull request's change too, or instead
        read = carried(q, ref=ref(7, q.base), group=q.other)
    else:
        read = carried(q, ref=ref(7, q.base), head="f" * 40)
    assert read is not None
    assert read.approvals is None
    assert why in read.seen.unreadable


def test_a_pull_request_that_cannot_be_read_carries_none(tmp_path: Path) -> None:
    q = queue(tmp_path)

    def pull(number: int) -> QueuedPull:
        raise PublishError("read pull request #7", "GitHub answered 502")

    read = group_approvals(
        Git(q.repo.root), Reviews(q.head), RULES, head_ref=ref(7, q.base), base_sha=q.base,
        head_sha=q.group, pull=pull, fetch_head=lambda n: None,
    )  # fmt: skip
    assert read is not None
    assert read.approvals is None
    assert "502" in read.seen.unreadable


def test_without_approvers_nothing_is_read(tmp_path: Path) -> None:
    q = queue(tmp_path)
    read = group_approvals(
        Git(q.repo.root), Reviews(q.head), None, head_ref=ref(7, q.base), base_sha=q.base,
        head_sha=q.group, pull=lambda n: QueuedPull(q.head, "agent"), fetch_head=lambda n: None,
    )  # fmt: skip
    assert read is None


def test_queue_entry_names() -> None:
    parent = "a" * 40
    assert queue_entry(ref(104, parent)) is not None
    assert queue_entry(f"refs/heads/gh-readonly-queue/release/1.x/pr-3-{parent}") is not None
    bad = (
        f"refs/heads/gh-readonly-queue/main/pr-0-{parent}",
        "refs/heads/gh-readonly-queue/main/pr-1",
        f"refs/heads/gh-readonly-queue/main/pr-1-{parent[:12]}",
        f"refs/heads/x/pr-1-{parent}",
    )
    for name in bad:
        assert queue_entry(name) is None, name
