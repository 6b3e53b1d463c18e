"""End to end for the events the other files leave out: ``check_suite`` requested and rerequested,
``pull_request`` reopened and edited (a base change judges; any other edit does not), ``installation``
and ``installation_repositories`` (state recorded, nothing judged). Each also redelivered with the same
``X-GitHub-Delivery``: handled once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bot.harness import INSTALLATION, Bot, Origin, pointed, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub
from tests.support.webhooks import as_base_edit, as_title_edit, load


def check_suite_event(action: str, number: int, head: str) -> dict[str, Any]:
    out = pointed(load(f"check_suite.{action}"))
    out["check_suite"]["head_sha"] = head
    template = load("check_suite.rerequested")["check_suite"]["pull_requests"][0]
    out["check_suite"]["pull_requests"] = [dict(template, number=number)]
    return out


def deliver_twice(bot: Bot, event: str, payload: dict[str, Any], delivery: str) -> str:
    first = bot.deliver(event, payload, delivery=delivery)
    assert first.status_code == 202, first.text
    again = bot.deliver(event, payload, delivery=delivery)
    assert (again.status_code, again.json()["message"]) == (202, "already received")
    return bot.planned(first)


@pytest.mark.parametrize("action", ["requested", "rerequested"])
def test_a_check_suite_request_judges_its_pull_requests_once(
    action: str, bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = open_pull(github, origin, 1, "one")
    assert deliver_twice(bot, "check_suite", check_suite_event(action, 1, head), f"cs-{action}") == (
        "queued 1 job(s)"
    )
    (run,) = github.check_runs(REPO)
    assert (run.head_sha, run.app_login, run.conclusion) == (head, "oracle-gate", "action_required")


def test_a_check_suite_of_a_stale_head_is_not_posted(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    """A (re)requested suite naming an old head cannot make the bot judge that head."""
    old = open_pull(github, origin, 1, "old")
    open_pull(github, origin, 1, "new")
    bot.deliver("check_suite", check_suite_event("rerequested", 1, old))
    bot.wait_idle()
    assert github.check_runs(REPO) == []


def test_a_check_suite_with_no_pull_request_is_ignored(bot: Bot, github: FakeGitHub) -> None:
    payload = pointed(load("check_suite.requested"))
    assert payload["check_suite"]["pull_requests"] == []
    assert deliver_twice(bot, "check_suite", payload, "cs-none").startswith("ignored")
    assert github.check_runs(REPO) == []


def test_a_reopened_pull_request_is_judged_once(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    head = open_pull(github, origin, 1, "one")
    payload = pull_request_event("reopened", 1, head, origin.main)
    assert payload["action"] == "reopened"
    assert deliver_twice(bot, "pull_request", payload, "pr-reopened") == "queued 1 job(s)"
    (run,) = github.check_runs(REPO)
    assert run.head_sha == head


def test_a_base_change_judges_again_and_another_edit_does_not(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = open_pull(github, origin, 1, "one")
    opened = pull_request_event("opened", 1, head, origin.main)
    title = as_title_edit(opened, "an older title")
    assert deliver_twice(bot, "pull_request", title, "pr-title").startswith("ignored")
    assert github.check_runs(REPO) == []
    base = as_base_edit(opened, "develop", "0" * 40)
    assert deliver_twice(bot, "pull_request", base, "pr-base") == "queued 1 job(s)"
    (run,) = github.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (head, "action_required")


def installation_state(bot: Bot) -> dict[str, Any]:
    state: dict[str, Any] = bot.health()["installations"]
    return state


def test_installation_events_record_state_and_judge_nothing(bot: Bot, github: FakeGitHub) -> None:
    created, deleted = load("installation.created"), load("installation.deleted")
    ident = created["installation"]["id"]
    deleted["installation"]["id"] = ident  # the examples are of two installations: make them one
    assert deliver_twice(bot, "installation", created, "inst-created").startswith("ignored")
    assert installation_state(bot) == {str(ident): "active"}
    added = load("installation_repositories.added")
    assert deliver_twice(bot, "installation_repositories", added, "inst-repos").startswith("ignored")
    assert installation_state(bot) == {str(ident): "active"}
    assert deliver_twice(bot, "installation", deleted, "inst-deleted").startswith("ignored")
    assert installation_state(bot) == {str(ident): "deleted"}
    assert bot.health()["jobs"] == {}
    assert github.check_runs(REPO) == []


@pytest.mark.server  # a delivery arriving while a job runs: jobs side by side
def test_a_deleted_installation_drops_its_queued_jobs(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    """Jobs queued for an installation that was then removed are not run (its token is gone)."""
    head = open_pull(github, origin, 1, "one")
    held = github.hold_next("GET", f"/repos/{REPO}/pulls/1")  # the first job holds the pull request's key
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    assert bot.jobs_become({"running": 1})
    bot.deliver("check_suite", check_suite_event("rerequested", 1, head))
    assert bot.jobs_become({"running": 1, "queued": 1})  # its plan ran: the judgement waits for the key
    deleted = load("installation.deleted")
    deleted["installation"]["id"] = INSTALLATION
    assert bot.deliver("installation", deleted).status_code == 202
    assert bot.jobs_become({"running": 1, "failed": 1})  # dropped while the first still runs
    held.set()
    health = bot.wait_idle()
    assert health["jobs"] == {"done": 1, "failed": 1}, health
    assert len(github.check_runs(REPO)) == 1  # only the job already running when the App was removed
    assert health["installations"] == {str(INSTALLATION): "deleted"}
