"""What contract v3.5 approvals need from the API: a pull request's reviews (every page), whether a
user is an active member of an organization's team, and a user's permission on the repository; and
v3.9.1, when the pull request's base branch last changed (its issue events: GitHub's "Issue event
types" lists ``base_ref_changed`` in the REST API for issue events, not in the timeline's).

Each call raises :class:`oracle_gate.github.client.PublishError` on an API error; a team that does not
answer for the user (404) is "not a member", never an error. :mod:`oracle_gate.review.approvals` decides
what counts (and the core, what an approval is).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

from github.IssueEvent import IssueEvent
from github.PaginatedList import PaginatedList
from github.Repository import Repository

from oracle_gate.github.client import NotFound, PublishError, github_call


def _aware(moment: datetime | None) -> datetime | None:
    """GitHub's times are UTC; one without an offset is read as such (comparable with the others)."""
    if moment is None:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Review:
    """One review as ``pulls/list-reviews`` lists it."""

    login: str
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    commit: str
    submitted_at: datetime | None = None  # None: GitHub gave none (a pending review)


#: Issue events that change a pull request's base branch (a person's retarget, or GitHub's after the
#: base branch was merged and deleted).
BASE_CHANGE_EVENTS = frozenset({"base_ref_changed", "automatic_base_change_succeeded"})


class ReviewReader:
    """Reads one repository's reviews, team memberships and permissions (the token's repository)."""

    def __init__(self, repo: Repository) -> None:
        self._repo = repo

    def reviews(self, number: int) -> list[Review]:
        """``pulls/list-reviews``, every page, in GitHub's (chronological) order."""
        with github_call(f"list the reviews of pull request #{number}"):
            return [
                Review(
                    login=review.user.login if review.user is not None else "",
                    state=str(review.state or ""),
                    commit=str(review.commit_id or ""),
                    submitted_at=_aware(review.submitted_at),
                )
                for review in self._repo.get_pull(number).get_reviews()
            ]

    def base_changed_at(self, number: int) -> datetime | None:
        """``issues/list-events``, every page: when the pull request's base branch last changed (None:
        never). An event whose time cannot be read is an error, never "no change"."""
        latest: datetime | None = None
        with github_call(f"list the events of pull request #{number}"):
            for event in self._events(number):
                if str(event.event or "") not in BASE_CHANGE_EVENTS:
                    continue
                at = _aware(event.created_at)
                if at is None:
                    why = f"a {event.event} event has no time"
                    raise PublishError(f"read the events of pull request #{number}", why)
                latest = at if latest is None else max(latest, at)
        return latest

    def _events(self, number: int) -> PaginatedList[IssueEvent]:
        """The pull request's issue events, paged (built here: ``get_issue`` would ``issues/get`` first)."""
        url = f"{self._repo.url}/issues/{number}/events"
        return PaginatedList(IssueEvent, self._repo.requester, url, None)

    def active_member(self, team: str, login: str) -> bool:
        """``teams/get-membership-for-user-in-org``: whether ``login`` is an active member of ``org/team``."""
        org, slug = team.split("/", 1)
        path = f"/orgs/{quote(org, safe='')}/teams/{quote(slug, safe='')}/memberships/{quote(login, safe='')}"
        try:
            with github_call(f"read {login}'s membership of the team {team}"):
                _, data = self._repo.requester.requestJsonAndCheck("GET", path)
        except NotFound:
            return False
        return isinstance(data, dict) and data.get("state") == "active"

    def team_exists(self, team: str) -> bool:
        """``teams/get-by-name``: whether ``org/team`` exists and this token can see it."""
        org, slug = team.split("/", 1)
        try:
            with github_call(f"read the team {team}"):
                self._repo.requester.requestJsonAndCheck(
                    "GET", f"/orgs/{quote(org, safe='')}/teams/{quote(slug, safe='')}"
                )
        except NotFound:
            return False
        return True

    def permission(self, login: str) -> str:
        """``repos/get-collaborator-permission-level``: ``admin``, ``maintain``, ``write``, ``read`` or
        ``none`` (:func:`role_of`)."""
        path = f"{self._repo.url}/collaborators/{quote(login, safe='')}/permission"
        try:
            with github_call(f"read the permission of {login}"):
                _, data = self._repo.requester.requestJsonAndCheck("GET", path)
        except NotFound:
            return "none"
        return role_of(data)


def role_of(data: object) -> str:
    """The permission an answer of ``repos/get-collaborator-permission-level`` gives. Its
    ``permission`` is the legacy base role, where GitHub maps ``maintain`` to ``write`` (and
    ``triage`` to ``read``); ``role_name`` says ``maintain`` (v3.9.3's maintainer, who would otherwise
    read as a writer). Any other role name (a custom role) keeps its base role: fail closed."""
    if not isinstance(data, dict):
        return "none"
    permission = str(data.get("permission") or "none")
    role = str(data.get("role_name") or "")
    return "maintain" if role.casefold() == "maintain" and permission.casefold() == "write" else permission
