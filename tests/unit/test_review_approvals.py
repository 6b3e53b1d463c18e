"""oracle_gate.review.approvals: which reviews become approvals the core is given, and that an API error
is never read as "no approvals" (contract v3.5, TRUST.md invariant 12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from oracle_gate.action import events as action_events
from oracle_gate.bot.queue import delivery_jobs as events
from oracle_gate.errors import PublishError
from oracle_gate.github.reviews import Review
from oracle_gate.judge.approvals import ApprovalRules, Approver, counting_approvers
from oracle_gate.review.approvals import read_approvals, split_approved
from tests.support.webhooks import action_plan, load

HEAD = "a" * 40
OLD = "b" * 40
RULES = ApprovalRules(("alice", "octo/owners", "gate-bot[bot]"), 1)


@dataclass
class Source:
    listed: list[Review]
    members: dict[str, set[str]] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    fail: str = ""
    asked: list[str] = field(default_factory=list)
    base_changed: datetime | None = None  # v3.9.1: the pull request's last base change

    def reviews(self, number: int) -> list[Review]:
        if self.fail == "reviews":
            raise PublishError("list the reviews", "GitHub answered 502")
        return self.listed

    def active_member(self, team: str, login: str) -> bool:
        self.asked.append(f"{team}:{login}")
        if self.fail == "teams":
            raise PublishError("read the team", "GitHub answered 403")
        return login in self.members.get(team, set())

    def team_exists(self, team: str) -> bool:
        return team in self.members

    def permission(self, login: str) -> str:
        self.asked.append(f"permission:{login}")
        return self.permissions.get(login, "none")

    def base_changed_at(self, number: int) -> datetime | None:
        self.asked.append("events")
        if self.fail == "events":
            raise PublishError("list the events", "GitHub answered 502")
        return self.base_changed


def counted(source: Source, author: str = "agent") -> list[Approver]:
    read = read_approvals(source, RULES, number=7, author=author, head=HEAD)
    assert read.approvals is not None
    return counting_approvers(RULES, read.approvals, author=author, head_sha=HEAD)


def test_a_named_writer_approving_the_head_counts() -> None:
    source = Source([Review("alice", "APPROVED", HEAD)], permissions={"alice": "write"})
    assert counted(source) == [Approver("alice", HEAD)]


def test_a_team_member_counts_only_through_a_named_team() -> None:
    source = Source(
        [Review("carol", "APPROVED", HEAD), Review("dave", "APPROVED", HEAD)],
        members={"octo/owners": {"carol"}, "octo/other": {"dave"}},
        permissions={"carol": "write", "dave": "admin"},
    )
    assert counted(source) == [Approver("carol", HEAD)]
    assert "octo/other:dave" not in source.asked  # a team the policy does not name is never asked


@pytest.mark.parametrize(
    ("reviews", "permissions", "author"),
    [
        pytest.param([Review("alice", "APPROVED", HEAD)], {"alice": "write"}, "alice", id="own review"),
        pytest.param([Review("other[bot]", "APPROVED", HEAD)], {"other[bot]": "write"}, "a", id="bot"),
        pytest.param([Review("alice", "APPROVED", OLD)], {"alice": "write"}, "agent", id="old sha"),
        pytest.param([Review("alice", "APPROVED", HEAD)], {"alice": "read"}, "agent", id="reader"),
        pytest.param(
            [Review("alice", "COMMENTED", HEAD)], {"alice": "write"}, "agent", id="commented 'approved'"
        ),
        pytest.param([Review("alice", "DISMISSED", HEAD)], {"alice": "write"}, "agent", id="dismissed"),
        pytest.param(
            [Review("alice", "APPROVED", HEAD), Review("alice", "CHANGES_REQUESTED", HEAD)],
            {"alice": "write"},
            "agent",
            id="later changes requested",
        ),
    ],
)
def test_what_never_counts(reviews: list[Review], permissions: dict[str, str], author: str) -> None:
    assert counted(Source(reviews, permissions=permissions), author=author) == []


def test_the_latest_review_per_user_decides_and_a_pending_one_is_not_submitted() -> None:
    reviews = [
        Review("alice", "CHANGES_REQUESTED", OLD),
        Review("alice", "APPROVED", HEAD),
        Review("alice", "PENDING", HEAD),
    ]
    assert counted(Source(reviews, permissions={"alice": "write"})) == [Approver("alice", HEAD)]


def test_approvals_of_an_older_head_are_stale() -> None:
    current, stale = split_approved([Review("alice", "APPROVED", OLD), Review("bob", "APPROVED", HEAD)], HEAD)
    assert [r.login for r in current] == ["bob"]
    assert stale == [Approver("alice", OLD)]


def test_a_named_team_that_does_not_exist_approves_nothing_and_is_listed() -> None:
    source = Source([Review("carol", "APPROVED", HEAD)], permissions={"carol": "write"})
    read = read_approvals(source, RULES, number=7, author="agent", head=HEAD)
    assert read.seen.unknown_teams == ("octo/owners",)
    assert counted(source) == []
    named = Source([Review("alice", "APPROVED", HEAD)], permissions={"alice": "write"})
    assert read_approvals(named, RULES, number=7, author="agent", head=HEAD).seen.unknown_teams == ()


@pytest.mark.parametrize("fail", ["reviews", "teams"])
def test_an_api_error_is_not_no_approvals_but_unreadable(fail: str) -> None:
    source = Source([Review("carol", "APPROVED", HEAD)], members={"octo/owners": {"carol"}}, fail=fail)
    read = read_approvals(source, RULES, number=7, author="agent", head=HEAD)
    assert read.approvals is None
    assert "GitHub answered" in read.seen.unreadable
    assert read.seen.head == HEAD


@pytest.mark.parametrize("action", ["submitted", "dismissed"])
def test_a_review_event_judges_the_pull_request_again_at_its_current_head(action: str) -> None:
    payload = load(f"pull_request_review.{action}")
    jobs = events.plan("pull_request_review", payload)
    assert isinstance(jobs, list)
    assert [(job.kind, job.pr, job.head) for job in jobs] == [
        (events.JUDGE, payload["pull_request"]["number"], None)
    ]


def test_a_review_event_that_changes_nothing_is_ignored() -> None:
    payload = {**load("pull_request_review.submitted"), "action": "requested"}
    assert isinstance(events.plan("pull_request_review", payload), events.Ignored)


def review_run(
    pull_requests: list[dict[str, object]], event: str = "pull_request_review"
) -> dict[str, object]:
    """The real workflow_run.completed payload, as the run of a review workflow."""
    payload = load("workflow_run.completed")
    payload["workflow_run"].update(event=event, conclusion="success", pull_requests=pull_requests)
    return payload


def test_the_actions_review_run_judges_the_pull_request_github_names_at_the_apis_head() -> None:
    pr = {"number": 7, "head": {"sha": "c" * 40}, "base": {"ref": "main"}}
    plan = action_plan("workflow_run", review_run([pr]), "Oracle Gate")
    assert isinstance(plan, action_events.Judge)
    # The head is asked from the API, never taken from the run (the pull request's own workflow).
    assert (plan.pr.number, plan.pr.head_sha, plan.pr.base_ref, plan.use_event_sha) == (
        7,
        None,
        "main",
        False,
    )


@pytest.mark.parametrize("event", ["pull_request", "push", "workflow_dispatch"])
def test_only_a_review_run_re_judges_through_workflow_run(event: str) -> None:
    pr = {"number": 7, "head": {"sha": "c" * 40}, "base": {"ref": "main"}}
    assert isinstance(action_plan("workflow_run", review_run([pr], event), "x"), action_events.Ignore)


def test_a_review_run_of_a_fork_names_no_pull_request_and_is_ignored_saying_so() -> None:
    plan = action_plan("workflow_run", review_run([]), "Oracle Gate")
    assert isinstance(plan, action_events.Ignore)
    assert "fork" in plan.why


# v3.9.1 (issue 29): the base an approval was given on.
REVIEWED = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def reviewed(login: str = "alice", at: datetime | None = REVIEWED) -> Review:
    return Review(login, "APPROVED", HEAD, submitted_at=at)


def test_a_retarget_after_the_review_makes_it_stale_and_says_so() -> None:
    source = Source(
        [reviewed()], permissions={"alice": "write"}, base_changed=REVIEWED + timedelta(minutes=1)
    )
    read = read_approvals(source, RULES, number=7, author="agent", head=HEAD)
    assert read.base_changed_at == REVIEWED + timedelta(minutes=1)
    assert read.seen.stale_base == (Approver("alice", HEAD),)
    assert read.approvals is not None
    assert (
        counting_approvers(
            RULES, read.approvals, author="agent", head_sha=HEAD, base_changed_at=read.base_changed_at
        )
        == []
    )


def test_the_later_of_the_delivery_and_the_events_is_the_base_change() -> None:
    heard = REVIEWED + timedelta(minutes=2)  # the bot's stored edited delivery (the API lags behind it)
    source = Source([reviewed()], permissions={"alice": "write"}, base_changed=None)
    read = read_approvals(source, RULES, number=7, author="agent", head=HEAD, base_changed_at=heard)
    assert read.base_changed_at == heard
    assert read.seen.stale_base == (Approver("alice", HEAD),)


def test_the_events_are_read_only_when_an_approval_could_count() -> None:
    source = Source([Review("agent", "APPROVED", HEAD, REVIEWED), Review("bob", "COMMENTED", HEAD)])
    read = read_approvals(source, RULES, number=7, author="agent", head=HEAD)
    assert "events" not in source.asked
    assert read.seen.stale_base == ()


def test_events_that_cannot_be_read_are_never_no_base_change() -> None:
    source = Source([reviewed()], permissions={"alice": "write"}, fail="events")
    read = read_approvals(source, RULES, number=7, author="agent", head=HEAD)
    assert read.approvals is None
    assert read.seen.unreadable


def test_the_authors_permission_is_asked_only_when_authors_names_them() -> None:
    rules = ApprovalRules(("alice",), 1, ("maint",))
    source = Source([], permissions={"maint": "admin"})
    read = read_approvals(source, rules, number=7, author="maint", head=HEAD)
    assert read.author_permission == "admin"
    other = Source([], permissions={"agent": "admin"})
    assert read_approvals(other, rules, number=7, author="agent", head=HEAD).author_permission is None
    assert "permission:agent" not in other.asked
