"""The rules the bot keeps now because the Action keeps them (issue 17; TRUST.md 5, 6, 8, 11):
allowed bases, never judging a stale test merge, commands acting only after the permission check,
and a huge comment costing the server's event loop nothing. Each of these failed on the old bot."""

from __future__ import annotations

import time
from typing import Any

import requests

from tests.bot.harness import Bot, BotFactory, Origin, pointed, pull_request_event, push_event
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.bot.test_judging import REPO, open_pull
from tests.bot.test_stale import move_main, remerge
from tests.github_fake.server import FakeGitHub
from tests.support.webhooks import load, on_pull_request

FAST_LOOKS = {"ORACLE_GATE_MERGE_WAIT_MS": "50"}


def with_map(github: FakeGitHub, origin: Origin) -> None:
    run = github.add_workflow_run(REPO, WORKFLOW, origin.main)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, origin.main, run.id))


def comment(github: FakeGitHub, number: int, body: str, login: str) -> tuple[dict[str, Any], int]:
    said = github.add_comment(REPO, number, body, user=login)
    payload = pointed(on_pull_request(load("issue_comment.created"), body, login=login))
    payload["issue"]["number"] = number
    payload["comment"]["id"] = said.id
    return payload, said.id


def test_a_pull_request_to_another_base_does_not_post_the_required_check(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    """TRUST.md 5: the same head against a branch the author pushed gets a check under another name."""
    with_map(github, origin)
    head = open_pull(github, origin, 1, "one")
    origin.repo.git("update-ref", "refs/heads/mine", origin.main)  # the author's branch
    origin.repo.git("update-ref", "refs/pull/2/merge", origin.repo.git("rev-parse", "refs/pull/1/merge"))
    github.add_pull(REPO, 2, head_sha=head, base_sha=origin.main, base_ref="mine")
    bot.deliver("pull_request", pull_request_event("opened", 2, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.name == "Oracle Gate (base: mine)"
    assert run.head_sha == head
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    assert sorted(r.name for r in github.check_runs(REPO)) == ["Oracle Gate", "Oracle Gate (base: mine)"]


def test_a_stale_test_merge_after_a_push_to_main_is_never_judged(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """TRUST.md 6: after the default branch moves, refs/pull/N/merge still merges onto the old tip
    until GitHub recomputes it; the bot looks again and never re-posts the old parent's success."""
    bot = bot_factory(env=FAST_LOOKS)
    with_map(github, origin)
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (passed,) = github.check_runs(REPO)
    assert passed.conclusion == "success"
    move_main(origin)  # GitHub has not recomputed refs/pull/1/merge yet
    bot.deliver("push", push_event(origin.main))
    bot.wait_idle()
    latest = github.check_runs(REPO)[-1]
    assert latest.conclusion != "success"
    assert "not onto the current tip" in (latest.summary or "")
    assert latest.name == "Oracle Gate"
    remerge(origin, 1, head)  # GitHub catches up: the next look judges the fresh merge
    bot.deliver("pull_request", pull_request_event("synchronize", 1, head, origin.main))
    bot.wait_idle()
    fresh = github.check_runs(REPO)[-1]
    assert fresh.conclusion == "action_required"  # the new parent has no map yet: unscored
    assert "not onto the current tip" not in (fresh.summary or "")


def test_a_readers_rerun_changes_nothing_and_cancels_no_queued_judgement(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """The permission is known before the command has any effect: no job queued or superseded."""
    bot = bot_factory(concurrency=1)
    busy = open_pull(github, origin, 2, "busy")
    github.slow_next("GET", f"/repos/{REPO}/pulls/2", 2.0)  # keeps the only worker busy
    bot.deliver("pull_request", pull_request_event("opened", 2, busy, origin.main))
    time.sleep(0.5)
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))  # queued
    github.set_permission(REPO, "reader", "read")
    payload, comment_id = comment(github, 1, "/oracle-gate rerun", "reader")
    assert bot.deliver("issue_comment", payload).status_code == 202
    bot.wait_idle()
    assert sorted(r.head_sha for r in github.check_runs(REPO)) == sorted([busy, head])
    assert [r.content for r in github.reactions(comment_id)] == ["-1"]


def test_a_writers_rerun_is_judged_and_the_grammar_is_the_actions(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    """One grammar for both doors: case does not matter, the command is the first line."""
    head = open_pull(github, origin, 1, "one")
    github.set_permission(REPO, "maintainer", "write")
    payload, comment_id = comment(github, 1, "/Oracle-Gate RERUN\nthanks", "maintainer")
    bot.deliver("issue_comment", payload)
    bot.wait_idle()
    assert [r.head_sha for r in github.check_runs(REPO)] == [head]
    assert [r.content for r in github.reactions(comment_id)] == ["eyes"]
    later, later_id = comment(github, 1, "thanks!\n/oracle-gate rerun", "maintainer")
    bot.deliver("issue_comment", later)
    bot.wait_idle()
    assert len(github.check_runs(REPO)) == 1  # a command on a later line is no command
    assert github.reactions(later_id) == []


def test_a_huge_comment_does_not_stall_the_server(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    """The old handler ran a quadratic regex on the event loop: 64 KiB of newlines froze /healthz."""
    open_pull(github, origin, 1, "one")
    payload, _ = comment(github, 1, "\n" * (1 << 20) + "x", "someone")  # every newline a line start
    started = time.monotonic()
    answer = bot.deliver("issue_comment", payload)
    assert answer.status_code == 202
    assert requests.get(f"{bot.url}/healthz", timeout=5).status_code == 200
    assert time.monotonic() - started < 3.0
    bot.wait_idle()
    assert github.check_runs(REPO) == []


def test_a_change_over_the_changed_bytes_budget_is_not_read(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """TRUST.md 8: judging holds about nine times the changed bytes; past the budget the verdict is
    unscored (oracle_incomplete) and says so, and nothing of the change is read."""
    bot = bot_factory(env={"ORACLE_GATE_MAX_CHANGED_BYTES": "1024"})
    with_map(github, origin)
    head = open_pull(github, origin, 1, "x" * 4096)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.conclusion == "action_required"
    assert "over the 1024-byte budget of one judgement" in (run.summary or "")
