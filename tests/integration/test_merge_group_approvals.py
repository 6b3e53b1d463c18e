"""Contract v3.9.2 (issue 29): which merge groups carry their pull requests' approvals. A group of one
pull request whose tree is that pull request's head merged onto the base; a group of several whose
every entry is its pull request's head merged onto the entry ahead; every other group carries none
and says why (the verdict is then judged without approvals: fail closed)."""

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
        ("stacked", "names the entry ahead as"),
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


@dataclass(frozen=True)
class Two:
    """Two queued pull requests: #7 (a fixture rewrite) then #8 (a source edit), one group."""

    repo: Repo
    base: str
    heads: dict[int, str]
    first: str  # #7's queue commit, on the base
    group: str  # #8's queue commit, on #7's


@dataclass
class ReviewsOf:
    """Each pull request's reviews: ``alice`` approved the heads in ``approved``."""

    approved: dict[int, str]

    def reviews(self, number: int) -> list[Review]:
        head = self.approved.get(number)
        return [Review("alice", "APPROVED", head)] if head else []

    def active_member(self, team: str, login: str) -> bool:
        return False

    def team_exists(self, team: str) -> bool:
        return True

    def permission(self, login: str) -> str:
        return "write"

    def base_changed_at(self, number: int) -> datetime | None:
        return None


def two(tmp_path: Path, *, subject: str = "Merge pull request #7 from agent/seven") -> Two:
    repo = Repo(tmp_path / "r")
    repo.write("fixtures/data.json", "1\n")
    repo.write("src/a.py", "x = 1\n")
    base = repo.commit("base")
    repo.write("fixtures/data.json", "2\n")
    seven = repo.commit("seven")
    repo.checkout(base)
    repo.write("src/a.py", "x = 2\n")
    eight = repo.commit("eight")
    repo.checkout(base)
    repo.git("merge", "-q", "--no-ff", "-m", subject, seven)
    first = repo.head()
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #8 from agent/eight", eight)
    return Two(repo, base, {7: seven, 8: eight}, first, repo.head())


def two_carried(
    t: Two, *, heads: dict[int, str] | None = None, group: str | None = None, base: str = "main"
) -> ApprovalsRead:
    now = heads or t.heads
    read = group_approvals(
        Git(t.repo.root), ReviewsOf(dict(t.heads)), RULES, head_ref=ref(8, t.first), base_sha=t.base,
        head_sha=group or t.group, pull=lambda n: QueuedPull(now.get(n, "e" * 40), "agent", base),
        fetch_head=lambda n: None,
    )  # fmt: skip
    assert read is not None
    return read


def test_a_group_of_two_carries_each_pull_requests_approvals_and_paths(tmp_path: Path) -> None:
    t = two(tmp_path)
    read = two_carried(t)
    assert read.seen.unreadable == ""
    assert read.queued is not None
    assert [(q.number, q.head, sorted(q.paths)) for q in read.queued] == [
        (7, t.heads[7], ["fixtures/data.json"]),
        (8, t.heads[8], ["src/a.py"]),
    ]
    assert [[a.login for a in q.approvals] for q in read.queued] == [["alice"], ["alice"]]


@pytest.mark.parametrize(
    ("subject", "why"),
    [
        ("Merge pull request #9 from agent/nine", "is not pull request #9's change"),  # a forged name
        ("Update data (#8)", "names the same pull request twice"),
        ("the agent's own words", "names no pull request"),
    ],
)
def test_an_entry_named_otherwise_carries_none(tmp_path: Path, subject: str, why: str) -> None:
    read = two_carried(two(tmp_path, subject=subject))
    assert read.approvals is None
    assert why in read.seen.unreadable


def test_an_entry_whose_pull_request_moved_on_carries_none(tmp_path: Path) -> None:
    t = two(tmp_path)
    read = two_carried(t, heads={7: t.heads[8], 8: t.heads[8]})
    assert read.approvals is None
    assert "is not pull request #7's change" in read.seen.unreadable


def test_an_entry_whose_pull_request_targets_another_branch_carries_none(tmp_path: Path) -> None:
    read = two_carried(two(tmp_path), base="release")
    assert read.approvals is None
    assert "targets 'release', not the group's base 'main'" in read.seen.unreadable


def test_a_head_not_stacked_on_the_entry_its_branch_names_carries_none(tmp_path: Path) -> None:
    t = two(tmp_path)
    t.repo.checkout(t.heads[8])  # on #7's queue commit through its second parent only
    t.repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #8 from agent/eight", t.first)
    read = two_carried(t, group=t.repo.head())
    assert read.approvals is None
    assert "names the entry ahead as" in read.seen.unreadable
