"""Issue 29 (TRUST.md 12): an approver who loses access does not keep their approval green until the
next event on the pull request. GitHub's ``member``, ``membership`` and ``team`` deliveries (real
payloads from @octokit/webhooks-examples, pointed at the test's repository, installation and people)
make the bot judge again the pull requests whose verdict rests on approvals, and only those."""

from __future__ import annotations

import copy
from typing import Any

from tests.bot.harness import INSTALLATION, Bot, Origin, pointed, pull_request_event
from tests.bot.test_approvals import judged, review_event, setup
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub
from tests.support.webhooks import load


def member_event(login: str, action: str = "edited") -> dict[str, Any]:
    """``member``: a collaborator of the test repository added, removed or given another permission."""
    payload = pointed(load("member.edited"))  # GitHub's example has no member.removed
    payload["action"] = action
    payload["member"]["login"] = login
    return payload


def membership_event(login: str, org: str = "octo", team: str = "owners") -> dict[str, Any]:
    """``membership.removed``: an organization's team lost a member (the event names no repository)."""
    payload = copy.deepcopy(load("membership.removed"))
    payload["installation"]["id"] = INSTALLATION
    payload["member"]["login"] = login
    payload["organization"]["login"] = org
    payload["team"]["slug"] = team
    return payload


def team_event(org: str = "octo", team: str = "owners") -> dict[str, Any]:
    """``team.removed_from_repository``: a team's access to the test repository was taken away."""
    payload = pointed(load("team.removed_from_repository"))
    payload["organization"]["login"] = org
    payload["team"]["slug"] = team
    return payload


def approved(bot: Bot, github: FakeGitHub, origin: Origin, login: str) -> str:
    """A freeze change ``login`` approved: its check is green. The head."""
    head = setup(github, origin)
    github.reviews.add_review(REPO, 1, login, state="APPROVED", commit_id=head)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "success", summary
    return head


def test_an_approver_whose_write_access_is_taken_away_no_longer_approves(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    approved(bot, github, origin, "alice")
    github.set_permission(REPO, "alice", "read")
    conclusion, summary = judged(bot, github, "member", member_event("alice"))
    assert conclusion == "failure", summary
    assert "approved by" not in summary


def test_an_approver_taken_out_of_the_named_team_no_longer_approves(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    github.set_permission(REPO, "carol", "write")
    github.reviews.add_member("octo", "owners", "carol")
    approved(bot, github, origin, "carol")
    del github.reviews.teams[("octo", "owners")]["carol"]
    conclusion, summary = judged(bot, github, "membership", membership_event("carol"))
    assert conclusion == "failure", summary
    assert "approved by carol" not in summary


def test_a_teams_access_change_judges_again_whatever_rests_on_approvals(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    github.set_permission(REPO, "carol", "write")
    github.reviews.add_member("octo", "owners", "carol")
    approved(bot, github, origin, "carol")
    github.set_permission(REPO, "carol", "read")  # the team gave carol her write access
    conclusion, summary = judged(bot, github, "team", team_event())
    assert conclusion == "failure", summary


def test_only_pull_requests_resting_on_approvals_and_on_that_login_are_judged_again(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    approved(bot, github, origin, "alice")  # pull request 1
    plain = open_pull(github, origin, 2, "two")  # pull request 2: no approval involved
    bot.deliver("pull_request", pull_request_event("opened", 2, plain, origin.main))
    bot.wait_idle()

    def judgements() -> tuple[int, int]:  # each judgement reads its pull request first
        return len(github.log("GET", f"/repos/{REPO}/pulls/1")), len(
            github.log("GET", f"/repos/{REPO}/pulls/2")
        )

    before = judgements()
    bot.deliver("member", member_event("bob", "added"))  # not an approver of anything
    bot.wait_idle()
    assert judgements() == before
    bot.deliver("member", member_event("alice"))
    bot.wait_idle()
    after = judgements()
    assert after[0] > before[0]
    assert after[1] == before[1]


def test_a_closed_pull_request_is_not_judged_again_and_then_forgotten(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    approved(bot, github, origin, "alice")
    posted = len(github.check_runs(REPO))
    github.state.pulls[(REPO, 1)].closed_at = "2026-12-04T12:00:00Z"
    bot.deliver("member", member_event("alice"))
    bot.wait_idle()
    reads = len(github.log("GET", f"/repos/{REPO}/pulls/1"))
    bot.deliver("member", member_event("alice", "removed"))
    bot.wait_idle()
    assert len(github.check_runs(REPO)) == posted
    assert len(github.log("GET", f"/repos/{REPO}/pulls/1")) == reads  # forgotten: not even read
