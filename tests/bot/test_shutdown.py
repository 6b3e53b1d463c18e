"""SIGTERM: the server stops taking deliveries, a running job finishes within the grace period or is
queued again, and the next start completes whatever is left: nothing lost, nothing judged twice."""

from __future__ import annotations

import signal
import time

import pytest

from tests.bot.harness import Bot, BotFactory, Origin, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub

#: SIGTERM to the server: its orderly stop needs the process.
pytestmark = pytest.mark.server


def wait_running(bot: Bot, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while bot.health()["jobs"].get("running") != 1:
        assert time.monotonic() < deadline, bot.health()
        time.sleep(0.05)


def test_sigterm_lets_a_running_job_finish(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory()
    head = open_pull(github, origin, 1, "one")
    github.slow_next("GET", f"/repos/{REPO}/pulls/1", 1.5)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    wait_running(bot)
    assert bot.stop(signal.SIGTERM) == 0
    (run,) = github.check_runs(REPO)  # finished during the grace period, before the process ended
    assert run.head_sha == head
    restarted = bot_factory(state=bot.state)
    assert restarted.wait_idle()["jobs"] == {"done": 1}
    assert len(github.check_runs(REPO)) == 1


def test_sigterm_requeues_a_job_that_outlasts_the_grace(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory(env={"ORACLE_GATE_SHUTDOWN_GRACE": "1"})
    head = open_pull(github, origin, 1, "one")
    github.slow_next("GET", f"/repos/{REPO}/pulls/1", 4.0)  # a read: nothing is written before the stop
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    wait_running(bot)
    started = time.monotonic()
    assert bot.stop(signal.SIGTERM) == 0
    assert time.monotonic() - started < 3.5  # it did not wait for the job beyond the grace
    assert github.check_runs(REPO) == []
    restarted = bot_factory(state=bot.state)
    assert restarted.wait_idle()["jobs"] == {"done": 1}
    (run,) = github.check_runs(REPO)
    assert run.head_sha == head
    assert "1 running job(s) queued again" in bot.log.read_text()
