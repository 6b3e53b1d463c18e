"""End to end: signed deliveries in, checks posted by the App on the fake GitHub, from objects the
bot fetched into its own bare mirror."""

from __future__ import annotations

import signal

import pytest

from tests.bot.harness import (
    INSTALLATION,
    Bot,
    BotFactory,
    Origin,
    check_run_rerequested,
    merge_group_event,
    pointed,
    pull_request_event,
)
from tests.github_fake.server import FakeGitHub
from tests.support.webhooks import load, on_pull_request

REPO = "octo/repo"


def open_pull(github: FakeGitHub, origin: Origin, number: int, content: str) -> str:
    head = origin.pull(number, content)
    if (REPO, number) in github.state.pulls:
        github.state.pulls[(REPO, number)].head_sha = head
    else:
        github.add_pull(REPO, number, head_sha=head, base_sha=origin.main)
    return head


def test_an_opened_pull_request_gets_a_check_posted_by_the_app(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = open_pull(github, origin, 1, "one")
    answer = bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    assert answer.status_code == 202, answer.text
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert (run.head_sha, run.name, run.app_login, run.status) == (
        head,
        "Oracle Gate",
        "oracle-gate",
        "completed",
    )
    # No trusted map of the parent: unscored, which blocks without claiming the code failed.
    assert run.conclusion == "action_required"
    assert "map" in (run.summary or "")
    (comment,) = github.comments(REPO, 1)
    assert comment.user == "oracle-gate[bot]"
    # Installation token from the App's JWT, then the token for everything else; nothing unauthenticated.
    (token_request,) = github.log("POST", f"/app/installations/{INSTALLATION}/access_tokens")
    assert (token_request.authorization or "").startswith("Bearer ey")
    writes = github.log("POST", "/repos/*")
    assert writes
    assert all((r.authorization or "").startswith("token ghs_oracle-gate") for r in writes)
    # The mirror is bare and holds the head; nothing was checked out.
    mirror = bot.state / "mirrors" / "octo" / "repo.git"
    assert (mirror / "HEAD").is_file()
    assert not (mirror / "src").exists()


def test_the_same_delivery_twice_is_judged_once(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    head = open_pull(github, origin, 1, "one")
    payload = pull_request_event("opened", 1, head, origin.main)
    assert bot.deliver("pull_request", payload, delivery="same-id").status_code == 202
    again = bot.deliver("pull_request", payload, delivery="same-id")
    assert again.json()["message"] == "already received"
    bot.wait_idle()
    assert len(github.check_runs(REPO)) == 1


def test_a_new_head_supersedes_the_queued_judgement_of_the_old_one(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory(concurrency=1)
    busy = open_pull(github, origin, 2, "busy")
    # In the test's process the jobs run only when it waits for them: the old head's judgement is
    # still queued when the new head's delivery comes (the server kept its one worker busy for that).
    bot.deliver("pull_request", pull_request_event("opened", 2, busy, origin.main))
    old = open_pull(github, origin, 1, "old")
    bot.deliver("pull_request", pull_request_event("opened", 1, old, origin.main))
    new = open_pull(github, origin, 1, "new")
    bot.deliver("pull_request", pull_request_event("synchronize", 1, new, origin.main))
    bot.wait_idle()
    heads = sorted(r.head_sha for r in github.check_runs(REPO))
    assert heads == sorted([busy, new])
    assert old not in heads


def test_the_rerun_button_judges_again(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    """Judged again, and the same verdict on the same parent and head updates the run it posted
    (GitHub's description of check_run ``rerequested``: the App decides whether to reset or update
    the run) rather than adding a second one."""
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    assert bot.deliver("check_run", check_run_rerequested(1, head)).status_code == 202
    assert bot.wait_idle()["jobs"] == {"done": 2}
    (run,) = github.check_runs(REPO)
    assert (run.head_sha, run.updates) == (head, 1)


def test_a_merge_group_is_judged_on_the_groups_commit(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    head = origin.pull(1, "queued")
    ref, sha = origin.group(head)
    answer = bot.deliver("merge_group", merge_group_event(ref, sha, origin.main))
    assert answer.status_code == 202, answer.text
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert (run.head_sha, run.app_login, run.conclusion) == (sha, "oracle-gate", "action_required")


@pytest.mark.server  # kill -9 of the server, then its recovery
def test_a_server_killed_mid_job_completes_the_job_after_restart(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory()
    head = open_pull(github, origin, 1, "one")
    held = github.hold_next("GET", f"/repos/{REPO}/pulls/1")  # a read: no write can land after the kill
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    assert bot.jobs_become({"running": 1}), bot.health()
    bot.stop(signal.SIGKILL)
    held.set()
    assert github.check_runs(REPO) == []
    restarted = bot_factory(state=bot.state)
    restarted.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.head_sha == head
    assert restarted.health()["jobs"] == {"done": 1}


@pytest.mark.server  # jobs side by side, bounded by the pool's size
def test_fifty_pull_requests_at_once_are_all_judged_within_the_worker_bound(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory(concurrency=3)
    heads = {n: open_pull(github, origin, n, f"pr {n}") for n in range(1, 51)}
    for n, head in heads.items():
        assert (
            bot.deliver("pull_request", pull_request_event("opened", n, head, origin.main)).status_code == 202
        )
    health = bot.wait_idle(timeout=240)
    runs = github.check_runs(REPO)
    assert sorted(r.head_sha for r in runs) == sorted(heads.values())  # each once, none twice
    assert 1 <= health["pool"]["peak"] <= 3
    assert health["jobs"] == {"done": 50}


def test_commands_need_write_access_and_explain_replies(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    open_pull(github, origin, 1, "one")
    github.set_permission(REPO, "maintainer", "write")
    github.set_permission(REPO, "agent-bot", "read")
    comment = on_pull_request(load("issue_comment.created"), "/oracle-gate rerun", login="agent-bot")
    comment["issue"]["number"] = 1
    comment = pointed(comment)
    assert bot.deliver("issue_comment", comment).status_code == 202
    bot.wait_idle()
    assert github.check_runs(REPO) == []  # the pull request's author may not make the bot judge
    explain = pointed(
        on_pull_request(load("issue_comment.created"), "/oracle-gate explain", login="maintainer")
    )
    explain["issue"]["number"] = 1
    assert bot.deliver("issue_comment", explain).status_code == 202
    bot.wait_idle()
    replies = [c for c in github.comments(REPO, 1) if c.user == "oracle-gate[bot]"]
    assert len(replies) == 1
    assert github.check_runs(REPO) == []


def test_explain_of_a_merge_not_judged_replies_why_and_posts_no_check(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    """Issue 27: explain posts no check in either door; the bot once posted a failure check instead
    of the reply when the test merge could not be judged (the Action replied)."""
    open_pull(github, origin, 1, "one")
    github.set_mergeable(REPO, 1, [None])  # GitHub never finishes computing the test merge
    github.set_permission(REPO, "maintainer", "write")
    explain = pointed(
        on_pull_request(load("issue_comment.created"), "/oracle-gate explain", login="maintainer")
    )
    explain["issue"]["number"] = 1
    assert bot.deliver("issue_comment", explain).status_code == 202
    bot.wait_idle()
    replies = [c.body for c in github.comments(REPO, 1) if c.user == "oracle-gate[bot]"]
    assert len(replies) == 1
    assert "still computing" in replies[0]
    assert github.check_runs(REPO) == []
