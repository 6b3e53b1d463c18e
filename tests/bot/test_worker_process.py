"""The two processes of ``oracle-gate serve`` (:mod:`oracle_gate.bot.queue.worker_process`): the front answers
webhooks, a worker process of lower priority judges; neither outlives the other, and a stop sent to
the whole group (a terminal's ^C) is still an orderly one."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from oracle_gate.bot.queue.worker_process import NICENESS
from tests.bot.harness import Bot, BotFactory, Origin, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub

#: The front and the worker process: the server's own two processes.
pytestmark = pytest.mark.server


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def worker_of(bot: Bot) -> int:
    """The worker process: the server's child that runs the oracle_gate code (not a fork server)."""
    assert bot.proc is not None
    (worker,) = [c for c in children(bot.proc.pid) if os.getpriority(os.PRIO_PROCESS, c) >= NICENESS]
    return worker


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_until(condition: object, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


def test_the_worker_process_runs_below_the_front(bot: Bot) -> None:
    assert bot.proc is not None
    front = os.getpriority(os.PRIO_PROCESS, bot.proc.pid)
    assert os.getpriority(os.PRIO_PROCESS, worker_of(bot)) == min(19, front + NICENESS)


def test_the_worker_process_judges_what_the_front_stored(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    health = bot.wait_idle()
    assert health["jobs"] == {"done": 1}  # the judgement (plan jobs are not counted)
    assert health["pool"]["workers"] == 4
    assert health["pool"]["peak"] >= 1  # published by the worker process, read by the front
    (run,) = github.check_runs(REPO)
    assert run.head_sha == head


def test_kill_9_of_the_front_kills_the_workers_too(bot: Bot) -> None:
    worker = worker_of(bot)
    assert bot.stop(signal.SIGKILL) == -signal.SIGKILL
    assert wait_until(lambda: not alive(worker)), "the worker process outlived the front"


def test_the_front_stops_and_says_so_when_the_workers_die(bot: Bot) -> None:
    os.kill(worker_of(bot), signal.SIGKILL)
    assert bot.proc is not None
    assert bot.proc.wait(timeout=30) == 1  # not a server that acknowledges what nobody works on
    bot.proc = None
    assert "the worker process ended; stopping" in bot.log.read_text()


def test_a_stop_sent_to_the_whole_group_is_orderly(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """SIGINT to both processes at once (as a terminal's ^C sends it): the workers ignore it and wait
    for the front, so the running job still finishes within the grace period."""
    bot = bot_factory()
    head = open_pull(github, origin, 1, "one")
    github.slow_next("GET", f"/repos/{REPO}/pulls/1", 1.5)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    assert wait_until(lambda: bot.health()["jobs"].get("running") == 1)
    assert bot.proc is not None
    worker = worker_of(bot)
    os.kill(worker, signal.SIGINT)
    assert bot.stop(signal.SIGINT) == 0
    assert not alive(worker)
    (run,) = github.check_runs(REPO)
    assert run.head_sha == head
