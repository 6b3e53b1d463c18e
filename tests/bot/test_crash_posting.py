"""``kill -9`` at any point of posting, then a restart: still exactly one check run and one sticky
comment per pull request (the job runs again, finds what it posted and finishes it)."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from functools import partial

import pytest

from tests.bot.harness import Bot, BotFactory, Origin, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub, Fault


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def reached(fault: Fault, hits: int) -> bool:
    return fault.hits >= hits


def writes(github: FakeGitHub, pulls: range) -> int:
    return len(github.check_runs(REPO)) + sum(len(github.comments(REPO, n)) for n in pulls)


def more_writes(github: FakeGitHub, pulls: range, seen: int) -> bool:
    return writes(github, pulls) > seen


def one_each(github: FakeGitHub, numbers: range, heads: dict[int, str]) -> None:
    for number in numbers:
        runs = [r for r in github.check_runs(REPO) if r.head_sha == heads[number]]
        assert len(runs) == 1, (number, runs)
        assert runs[0].status == "completed"
        assert len(github.comments(REPO, number)) == 1, number


@pytest.mark.server  # kill -9 of the server, then its recovery
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", f"/repos/{REPO}/check-runs"),  # the check run was created; its answer never came
        ("POST", f"/repos/{REPO}/issues/1/comments"),  # the comment was created; likewise
    ],
)
def test_a_kill_after_a_write_landed_leaves_one_check_and_one_comment(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin, method: str, path: str
) -> None:
    bot = bot_factory()
    head = open_pull(github, origin, 1, "one")
    github.hold_answer_next(method, path, 30)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    wait_for(lambda: _landed(github, path), f"{method} {path} applied")
    assert bot.stop(signal.SIGKILL) == -signal.SIGKILL
    restarted = bot_factory(state=bot.state)
    assert restarted.wait_idle()["jobs"] == {"done": 1}
    one_each(github, range(1, 2), {1: head})


def _landed(github: FakeGitHub, path: str) -> bool:
    return bool(github.check_runs(REPO)) if path.endswith("check-runs") else bool(github.comments(REPO, 1))


@pytest.mark.server  # kill -9 of the server, then its recovery
def test_kills_between_writes_and_their_answers_leave_one_of_each(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """The report's reproduction, bounded: eight pull requests, and the server killed three times,
    each time just after a check run or a comment landed and before its answer came back."""
    pulls = range(1, 9)
    heads = {n: open_pull(github, origin, n, f"pull {n}") for n in pulls}
    github.hold_answer_next("POST", f"/repos/{REPO}/check-runs", 1.0, times=40)
    github.hold_answer_next("POST", f"/repos/{REPO}/issues/*/comments", 1.0, times=40)

    bot = bot_factory(concurrency=4)
    for number in pulls:
        bot.deliver("pull_request", pull_request_event("opened", number, heads[number], origin.main))
    for _ in range(3):
        wait_for(partial(more_writes, github, pulls, writes(github, pulls)), "a write landing", timeout=60)
        bot.stop(signal.SIGKILL)
        bot = bot_factory(concurrency=4, state=bot.state)
    bot.wait_idle(timeout=120)
    one_each(github, pulls, heads)


def test_a_recovered_job_is_not_posted_twice_by_the_restart_alone(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    """Sanity of the harness: with no kill, one of each too."""
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    one_each(github, range(1, 2), {1: head})


@pytest.mark.server  # kill -9 of the server, then its recovery
def test_a_job_recovered_more_often_than_the_limit_ends_with_a_failure_check(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """A job that kills the server every time must not be retried on every start for ever."""
    settings = {"ORACLE_GATE_MAX_RECOVERIES": "1"}
    head = open_pull(github, origin, 1, "one")
    slow = github.slow_next("GET", f"/repos/{REPO}/pulls/1", 30, times=2)  # the job is running when killed
    bot = bot_factory(env=settings)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    for attempt in range(1, 3):  # killed while running, then once more after its first recovery
        # The job is running in *this* process once its request reaches the slow answer; the store's
        # "running" alone may still be the killed process's row, before recovery has counted it.
        wait_for(partial(reached, slow, attempt), f"attempt {attempt} waiting on GitHub", timeout=60)
        bot.stop(signal.SIGKILL)
        bot = bot_factory(env=settings, state=bot.state)
    assert bot.wait_idle()["jobs"] == {"failed": 1}
    (run,) = github.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (head, "failure")
    assert "stopped while judging this 2 times" in (run.summary or "")
    assert "limit of 1" in (run.summary or "")
