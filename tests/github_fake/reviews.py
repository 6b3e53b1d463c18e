"""Contract v3.5 approvals: a pull request's reviews and the members of an organization's teams.

State lives in :class:`Reviews` (``fake.reviews``), seeded by a test as reviewers would click it
together; the handlers answer from it with the spec's own examples (``responses._rebased_value``),
with only the fields this state decides overwritten, and the server validates every answer against
the spec as for any other operation. Reviews are listed in the order they were added (GitHub lists
them chronologically) and paged like every list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Reviews:
    #: (repo, pull number) -> the reviews in the order they were submitted
    reviews: dict[tuple[str, int], list[Review]] = field(default_factory=dict)
    #: (org, team slug) -> {login: "active" | "pending"}
    teams: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    next_id: int = 9000

    def add_review(
        self, repo: str, number: int, login: str, *, state: str, commit_id: str, body: str = ""
    ) -> Review:
        if state not in REVIEW_STATES:
            raise ValueError(f"state must be one of {REVIEW_STATES}")
        self.next_id += 1
        review = Review(self.next_id, login, state, commit_id, body)
        self.reviews.setdefault((repo, number), []).append(review)
        return review

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
}
