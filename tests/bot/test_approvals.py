"""Contract v3.5 approvals through the bot, against the fake GitHub: reviews, team memberships and
permissions are read at judging time; a review re-judges the pull request; a push makes every
approval stale; an API error never reads as "no approvals" (TRUST.md invariant 12)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.bot.harness import Bot, Origin, pointed, pull_request_event
from tests.bot.test_judgement_rules import with_map
from tests.bot.test_judging import REPO
from tests.github_fake.server import FakeGitHub
from tests.support.webhooks import as_base_edit, load

POLICY = '[approvals]\noracle = ["alice", "@octo/owners"]\n'
#: a freeze file (no test frozen: the map's test stays live); ``%s`` varies with each version
FREEZE = '{"schema": 1, "frozen": [], "note": "%s"}\n'


def approvers_on_main(origin: Origin) -> None:
    """The parent names approvers and has a freeze file."""
    r = origin.repo
    r.write("oracle-gate.toml", POLICY)
    r.write("freeze.json", FREEZE % "one")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "approvers")
    origin.main = r.git("rev-parse", "HEAD")


def fixture_pull(github: FakeGitHub, origin: Origin, number: int, content: str) -> str:
    """A maintainer's freeze pull request (it changes the code too): its head SHA."""
    r = origin.repo
    r.git("checkout", "-q", "--detach", origin.main)
    r.write("freeze.json", FREEZE % content)
    r.write("src/app.py", f"def f():\n    return {content!r}\n")
    r.git("commit", "-q", "-am", f"pull {number}: {content}")
    head = r.git("rev-parse", "HEAD")
    r.git("checkout", "-q", "--detach", origin.main)
    r.git("merge", "-q", "--no-ff", "-m", f"merge {number}", head)
    r.git("update-ref", f"refs/pull/{number}/head", head)
    r.git("update-ref", f"refs/pull/{number}/merge", r.git("rev-parse", "HEAD"))
    r.git("checkout", "-q", "main")
    if (REPO, number) in github.state.pulls:
        github.state.pulls[(REPO, number)].head_sha = head
    else:
        github.add_pull(REPO, number, head_sha=head, base_sha=origin.main, author="agent-bot")
    return head


def review_event(number: int) -> dict[str, object]:
    payload = pointed(load("pull_request_review.submitted"))
    payload["pull_request"]["number"] = number
    return payload


def judged(bot: Bot, github: FakeGitHub, event: str, payload: dict[str, object]) -> tuple[str, str]:
    assert bot.deliver(event, payload).status_code == 202
    bot.wait_idle()
    run = github.check_runs(REPO)[-1]
    return run.conclusion or "", run.summary or ""


def setup(github: FakeGitHub, origin: Origin) -> str:
    approvers_on_main(origin)
    with_map(github, origin)
    github.set_permission(REPO, "alice", "write")
    return fixture_pull(github, origin, 1, "two")


def test_an_approved_freeze_change_passes_and_a_push_makes_the_approval_stale(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = setup(github, origin)
    conclusion, summary = judged(
        bot, github, "pull_request", pull_request_event("opened", 1, head, origin.main)
    )
    assert conclusion == "failure", summary
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "success", summary
    assert f"approved by alice at {head}" in summary
    pushed = fixture_pull(github, origin, 1, "three")
    conclusion, summary = judged(
        bot, github, "pull_request", pull_request_event("synchronize", 1, pushed, origin.main)
    )
    assert conclusion == "failure", summary
    assert "Stale approvals" in summary
    assert f"`alice` approved `{head[:12]}`" in summary
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=pushed)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "success", summary


def test_a_team_member_approves_but_a_dismissed_review_does_not(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = setup(github, origin)
    github.set_permission(REPO, "carol", "write")
    github.reviews.add_member("octo", "owners", "carol")
    review = github.reviews.add_review(REPO, 1, "carol", state="APPROVED", commit_id=head)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "success", summary
    assert "approved by carol" in summary
    github.reviews.dismiss(review)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary


def test_the_authors_own_approval_and_a_readers_do_not_count(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = setup(github, origin)
    github.set_permission(REPO, "agent-bot", "admin")
    github.set_permission(REPO, "reader", "read")
    github.reviews.add_member("octo", "owners", "agent-bot")
    github.reviews.add_member("octo", "owners", "reader")
    github.reviews.add_review(REPO, 1, "agent-bot", state="APPROVED", commit_id=head)
    github.reviews.add_review(REPO, 1, "reader", state="APPROVED", commit_id=head)
    github.reviews.add_review(REPO, 1, "alice", state="COMMENTED", commit_id=head, body="approved")
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary
    assert "approved by" not in summary


def test_reviews_that_cannot_be_read_are_said_and_never_pass(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = setup(github, origin)
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head)
    github.fail_next("GET", f"/repos/{REPO}/pulls/1/reviews", 403, times=20)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary
    assert "Approvals could not be read" in summary


def _bot_account(github: FakeGitHub, head: str) -> None:
    github.set_permission(REPO, "helper[bot]", "write")
    github.reviews.add_member("octo", "owners", "helper[bot]")  # a bot never counts through a team
    github.reviews.add_review(REPO, 1, "helper[bot]", state="APPROVED", commit_id=head)


def _a_team_the_policy_does_not_name(github: FakeGitHub, head: str) -> None:
    github.set_permission(REPO, "mallory", "admin")
    github.reviews.add_member("agents", "owners", "mallory")  # a team the agent controls
    github.reviews.add_review(REPO, 1, "mallory", state="APPROVED", commit_id=head)


def _a_later_change_request(github: FakeGitHub, head: str) -> None:
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head)
    github.reviews.add_review(REPO, 1, "alice", state="CHANGES_REQUESTED", commit_id=head)


@pytest.mark.parametrize(
    "review",
    [_bot_account, _a_team_the_policy_does_not_name, _a_later_change_request],
    ids=lambda f: f.__name__,
)
def test_what_an_agent_could_arrange_never_approves(
    bot: Bot, github: FakeGitHub, origin: Origin, review: Callable[[FakeGitHub, str], None]
) -> None:
    head = setup(github, origin)
    review(github, head)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary
    assert "approved by" not in summary


# Contract v3.9.1 (issue 29): a retarget after the review makes it stale. GitHub's issue events may
# lag behind the delivery: the bot keeps each edited delivery's base change, so an approval given
# before it stays stale whatever the API says yet, and whichever job of the pull request runs next.
REVIEWED, RETARGETED = "2026-11-30T12:00:00Z", "2026-11-30T12:05:00Z"


def retarget_event(number: int, head: str, base: str) -> dict[str, object]:
    payload = as_base_edit(pull_request_event("synchronize", number, head, base), "mine", "0" * 40)
    payload["pull_request"]["updated_at"] = RETARGETED
    return payload


def test_a_retarget_after_the_approval_makes_it_stale_before_the_api_says_so(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = setup(github, origin)
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head, submitted_at=REVIEWED)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "success", summary  # no retarget known: the approval counts
    conclusion, summary = judged(bot, github, "pull_request", retarget_event(1, head, origin.main))
    assert conclusion == "failure", summary
    assert "submitted before the base branch changed at `2026-11-30 12:05:00 UTC`" in summary
    assert f"`alice` approved `{head[:12]}`" in summary
    # Another delivery re-judges: the stored retarget still holds (the issue events list none).
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head)  # now: after it
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "success", summary  # on a run of its own: the newest, the one GitHub shows
    assert [r.conclusion for r in github.check_runs(REPO)] == ["success", "failure", "success"]


def test_a_retarget_the_bot_never_heard_of_is_read_from_the_issue_events(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = setup(github, origin)
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head, submitted_at=REVIEWED)
    github.reviews.add_event(REPO, 1, "base_ref_changed", created_at=RETARGETED)  # delivery lost
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary
    assert "submitted before the base branch changed" in summary


def test_issue_events_that_cannot_be_read_never_pass(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    head = setup(github, origin)
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head, submitted_at=REVIEWED)
    github.fail_next("GET", f"/repos/{REPO}/issues/1/events", 403, times=20)
    conclusion, summary = judged(bot, github, "pull_request_review", review_event(1))
    assert conclusion == "failure", summary
    assert "Approvals could not be read" in summary
