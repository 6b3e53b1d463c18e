"""Contract v3.5 approvals: a pull request's reviews and the members of an organization's teams;
v3.9.1: the pull request's issue events (``base_ref_changed`` says when its base branch changed).

State lives in :class:`Reviews` (``fake.reviews``), seeded by a test as reviewers would click it
together; the handlers answer from it with the spec's own examples (``responses._rebased_value``),
with only the fields this state decides overwritten, and the server validates every answer against
the spec as for any other operation. Reviews are listed in the order they were added (GitHub lists
them chronologically) and paged like every list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tests.github_fake import responses

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.github_fake.server import Call, FakeGitHub, Reply

REVIEW_STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")


@dataclass
class Review:
    id: int
    login: str
    state: str
    commit_id: str
    body: str = ""
    submitted_at: str = ""  # ISO time, GitHub's form (2026-11-30T12:00:00Z)


@dataclass
class IssueEvent:
    """One entry of ``issues/list-events``: its common properties (GitHub's docs, "Issue event types")."""

    id: int
    event: str  # base_ref_changed, automatic_base_change_succeeded, labeled, ...
    created_at: str
    actor: str = "agent"


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Reviews:
    #: (repo, pull number) -> the reviews in the order they were submitted
    reviews: dict[tuple[str, int], list[Review]] = field(default_factory=dict)
    #: (org, team slug) -> {login: "active" | "pending"}
    teams: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    #: (repo, issue number) -> its issue events, oldest first
    events: dict[tuple[str, int], list[IssueEvent]] = field(default_factory=dict)
    next_id: int = 9000

    def add_review(
        self,
        repo: str,
        number: int,
        login: str,
        *,
        state: str,
        commit_id: str,
        body: str = "",
        submitted_at: str | None = None,
    ) -> Review:
        if state not in REVIEW_STATES:
            raise ValueError(f"state must be one of {REVIEW_STATES}")
        self.next_id += 1
        review = Review(self.next_id, login, state, commit_id, body, submitted_at or now())
        self.reviews.setdefault((repo, number), []).append(review)
        return review

    def add_event(self, repo: str, number: int, event: str, *, created_at: str | None = None) -> IssueEvent:
        """An issue event of pull request ``number`` (``base_ref_changed``: a retarget)."""
        self.next_id += 1
        found = IssueEvent(self.next_id, event, created_at or now())
        self.events.setdefault((repo, number), []).append(found)
        return found

    def dismiss(self, review: Review) -> None:
        """What a dismissal leaves: the review, its state now ``DISMISSED``."""
        review.state = "DISMISSED"

    def add_team(self, org: str, team: str) -> None:
        """A team that exists (``add_member`` adds its team too)."""
        self.teams.setdefault((org.lower(), team.lower()), {})

    def add_member(self, org: str, team: str, login: str, state: str = "active") -> None:
        self.teams.setdefault((org.lower(), team.lower()), {})[login.lower()] = state


def reviews_list(fake: FakeGitHub, call: Call) -> Reply:
    if fake.state.repos.get(call.repo) is None:
        return fake._not_found()
    template = responses._rebased_value("pull-request-review-items", fake.url, call.repo)[0]
    found = fake.reviews.reviews.get((call.repo, int(call.params["pull_number"])), [])
    items = [_review(template, review, fake.url) for review in found]
    page, headers = fake._page(call, items)
    from tests.github_fake.server import Reply

    return Reply(200, page, headers)


def _review(template: dict[str, Any], review: Review, api: str) -> dict[str, Any]:
    data = dict(template)
    data.update(
        id=review.id,
        node_id=responses.node_id("PullRequestReview", review.id),
        state=review.state,
        commit_id=review.commit_id,
        body=review.body,
        user=responses.user(review.login, api),
        submitted_at=review.submitted_at,
    )
    return data


#: The properties every issue event has (the spec's example is a ``labeled`` one: its ``label`` goes).
COMMON = ("id", "node_id", "url", "actor", "event", "commit_id", "commit_url", "created_at")


def events_list(fake: FakeGitHub, call: Call) -> Reply:
    from tests.github_fake.server import Reply

    if fake.state.repos.get(call.repo) is None:
        return fake._not_found()
    template = responses._rebased_value("issue-event-for-issue-items", fake.url, call.repo)[0]
    found = fake.reviews.events.get((call.repo, int(call.params["issue_number"])), [])
    items = [_event(template, event, fake.url, call.repo) for event in found]
    page, headers = fake._page(call, items)
    return Reply(200, page, headers)


def _event(template: dict[str, Any], event: IssueEvent, api: str, repo: str) -> dict[str, Any]:
    data = {key: template[key] for key in COMMON}
    data.update(
        id=event.id,
        node_id=responses.node_id("IssueEvent", event.id),
        url=f"{api}/repos/{repo}/issues/events/{event.id}",
        actor=responses.user(event.actor, api),
        event=event.event,
        commit_id=None,
        commit_url=None,
        created_at=event.created_at,
        performed_via_github_app=None,
    )
    return data


def team_membership_get(fake: FakeGitHub, call: Call) -> Reply:
    from tests.github_fake.server import Reply

    members = fake.reviews.teams.get((call.params["org"].lower(), call.params["team_slug"].lower()), {})
    state = members.get(call.params["username"].lower())
    if state is None:
        return fake._not_found()
    data = responses._rebased(
        "team-membership-response-if-user-is-a-team-maintainer", fake.url, call.params["org"] + "/-"
    )
    data.update(role="member", state=state)
    return Reply(200, data)


def team_get(fake: FakeGitHub, call: Call) -> Reply:
    from tests.github_fake.server import Reply

    org, slug = call.params["org"], call.params["team_slug"]
    if (org.lower(), slug.lower()) not in fake.reviews.teams:
        return fake._not_found()
    data = responses._rebased("team-full", fake.url, org + "/-")
    # The official example lacks two required fields (as the branch protection's teams do).
    data.update(slug=slug, name=slug, type="organization")
    data["organization"]["archived_at"] = None
    return Reply(200, data)


HANDLERS: dict[str, Callable[[FakeGitHub, Call], Reply]] = {
    "pulls/list-reviews": reviews_list,
    "teams/get-membership-for-user-in-org": team_membership_get,
    "teams/get-by-name": team_get,
    "issues/list-events": events_list,
}
