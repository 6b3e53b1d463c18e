"""What contract v3.5 approvals need from the API: a pull request's reviews (every page), whether a
user is an active member of an organization's team, and a user's permission on the repository.

Each call raises :class:`oracle_gate.github.client.PublishError` on an API error; a team that does not
answer for the user (404) is "not a member", never an error. :mod:`oracle_gate.review.approvals` decides
what counts (and the core, what an approval is).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from github.Repository import Repository

from oracle_gate.github.client import NotFound, github_call


@dataclass(frozen=True)
class Review:
    """One review as ``pulls/list-reviews`` lists it."""

    login: str
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    commit: str


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
                )
                for review in self._repo.get_pull(number).get_reviews()
            ]

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
        """``repos/get-collaborator-permission-level``: ``admin``, ``write``, ``read`` or ``none``."""
        try:
            with github_call(f"read the permission of {login}"):
                return str(self._repo.get_collaborator_permission(login))
        except NotFound:
            return "none"
