"""Transient failures (GitHub 5xx, timeouts, rate limits) back off: a job's next attempt waits
exponentially longer, up to a cap, instead of spending its attempts at once; and the map store's own
API requests count in the installation's rate-limit budget."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from oracle_gate.bot.app.config import from_environment
from oracle_gate.bot.app.ratelimit import Budgets
from oracle_gate.bot.jobs.context import Context, JobOutcome, Transient
from oracle_gate.bot.jobs.mapstore import ArtifactMapStore, StoreSettings
from oracle_gate.bot.queue.backoff import Backoff
from oracle_gate.bot.queue.delivery_jobs import JUDGE, Job
from oracle_gate.bot.queue.store import FAILED, QUEUED, ClaimedJob, Store
from oracle_gate.bot.queue.workers import Pool
from tests.bot.harness import BotFactory, Origin, minimal_environment, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW
from tests.bot.test_judging import open_pull
from tests.github_fake.server import FakeGitHub
from tests.support.bot_in_process import InProcessBot
from tests.support.clock import FakeClock

JOB = Job(JUDGE, "octo/repo", 7, "octo/repo#1", pr=1)


def test_the_delay_doubles_per_attempt_up_to_the_cap() -> None:
    backoff = Backoff(base=2, cap=10)
    assert [backoff.delay(n) for n in (1, 2, 3, 4, 5, 100)] == [2, 4, 8, 10, 10, 10]
    assert Backoff(base=0, cap=10).delay(3) == 0


def test_the_delays_are_configured_from_the_environment(tmp_path: Path) -> None:
    env = minimal_environment(tmp_path)
    default = from_environment(env)
    assert (default.retry_base, default.retry_cap) == (5.0, 300.0)
    tuned = from_environment({**env, "ORACLE_GATE_RETRY_BASE_MS": "250", "ORACLE_GATE_RETRY_CAP_MS": "1000"})
    assert (tuned.retry_base, tuned.retry_cap) == (0.25, 1.0)


def test_a_requeued_job_is_not_claimed_before_its_delay(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    store = Store(tmp_path / "db.sqlite3", clock=clock)
    store.accept("d1", "pull_request", [JOB])
    claimed = store.claim()
    assert claimed is not None
    store.requeue(claimed.id, "GitHub answered 502", delay=8)
    assert store.claim() is None
    assert store.next_due() == clock.now() + 8
    clock.advance(7.9)
    assert store.claim() is None
    clock.advance(0.2)
    again = store.claim()
    assert again is not None
    assert (again.id, again.attempts) == (claimed.id, 2)


def test_a_job_failing_transiently_is_retried_with_growing_waits_then_failed(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    store = Store(tmp_path / "db.sqlite3", clock=clock)
    attempts: list[float] = []
    ran = threading.Event()

    def flaky(claimed: ClaimedJob) -> JobOutcome:
        attempts.append(clock.now())
        ran.set()
        raise Transient("GitHub answered 503")

    pool = Pool(store, flaky, 1, Backoff(base=10, cap=15))
    store.accept("d1", "pull_request", [JOB])
    pool.start()
    try:
        for wait in (10, 15):  # after attempt 1: base; after attempt 2: 20, capped at 15
            assert ran.wait(5)
            ran.clear()
            settle(store, QUEUED)
            assert store.next_due() == clock.now() + wait
            time.sleep(1.5)  # the worker polls: a job not yet due stays queued
            assert len(attempts) == (1 if wait == 10 else 2)
            clock.advance(wait)
            pool.wake()
        assert ran.wait(5)
        settle(store, FAILED)
    finally:
        pool.stop(5)
    assert attempts == [1_000_000.0, 1_000_010.0, 1_000_025.0]
    ((_, _, state, _, detail),) = store.jobs()
    assert (state, detail) == (FAILED, "GitHub answered 503")


def settle(store: Store, state: str) -> None:
    deadline = time.monotonic() + 5
    while store.jobs()[0][2] != state and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.jobs()[0][2] == state


def test_the_map_stores_requests_count_in_the_installations_budget(
    tmp_path: Path, github_fake: FakeGitHub
) -> None:
    """The map store makes its own client: its answers' rate-limit headers must reach the budget of
    the installation whose job asked, or a job could spend the rest of a budget unseen."""
    github_fake.add_repo("octo/repo")
    github_fake.rate_limit_headers = {
        "X-RateLimit-Remaining": "3",
        "X-RateLimit-Reset": str(int(time.time()) + 60),
    }
    maps = ArtifactMapStore(
        StoreSettings(WORKFLOW, ARTIFACT, tmp_path / "maps"), github_fake.url, pacing=None
    )
    budgets = Budgets(floor=100)
    ctx = Context(config=None, auth=None, store=None, maps=maps, budgets=budgets)  # type: ignore[arg-type]
    maps.track = ctx.track_for_job
    maps.find("octo/repo", "b" * 40, github_fake.token)  # outside a job: counted nowhere
    ctx.note_budgets()
    assert budgets.pause_for(7) == 0
    ctx.begin_job(7)
    found = maps.find("octo/repo", "b" * 40, github_fake.token)
    assert found.manifest is None  # no run yet: the requests were made, and answered
    assert found.waiting
    ctx.note_budgets()
    assert 50 < budgets.pause_for(7) <= 60
    assert budgets.pause_for(8) == 0


def test_end_to_end_a_job_github_turned_away_is_retried_after_the_backoff(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """GitHub answers 429 asking for a wait longer than the client will make: the job is retried by
    the queue, not at once but after ``ORACLE_GATE_RETRY_BASE_MS``, and the check is posted once."""
    bot = bot_factory(env={"ORACLE_GATE_RETRY_BASE_MS": "1500"})
    assert isinstance(bot, InProcessBot)  # the bot's clock is the test's: the backoff passes at once
    head = open_pull(github, origin, 1, "one")
    github.fail_next("GET", "/repos/octo/repo/pulls/1", 429, headers={"retry-after": "3600"})
    passed: list[tuple[float, int]] = []  # (seconds the bot let pass, reads of the pull request before)
    bot.clock.on_sleep = lambda seconds: passed.append(
        (seconds, len(github.log("GET", "/repos/octo/repo/pulls/1")))
    )
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    assert bot.wait_idle()["jobs"] == {"done": 1}
    _first, _second = github.log("GET", "/repos/octo/repo/pulls/1")
    assert sum(s for s, reads in passed if reads == 1) >= 1.5  # between the first read and the second
    (run,) = github.check_runs("octo/repo")
    assert run.head_sha == head
