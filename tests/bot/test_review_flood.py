"""Issue 29 (TRUST.md 8): a flood of reviews costs one read of the reviews and one judgement per
``ORACLE_GATE_REVIEW_INTERVAL_MS``, not one per review. The bot's worker code runs in this process
against the fake GitHub, with a clock of the test's own (no sleeping for the interval)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from oracle_gate.bot.app.auth import AppAuth
from oracle_gate.bot.app.config import from_environment
from oracle_gate.bot.jobs.context import Context
from oracle_gate.bot.jobs.judging import run_job
from oracle_gate.bot.jobs.mapstore import ArtifactMapStore, StoreSettings
from oracle_gate.bot.queue import planning
from oracle_gate.bot.queue.delivery_jobs import JUDGE, Job
from oracle_gate.bot.queue.store import Store
from tests.bot.harness import APP_ID, AppKey, Bot, Origin, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW
from tests.bot.test_approvals import review_event, setup
from tests.bot.test_judging import REPO
from tests.github_fake.server import FakeGitHub
from tests.support.clock import FakeClock

INTERVAL_MS = 60_000
REVIEWS = f"/repos/{REPO}/pulls/1/reviews"


class Worker:
    """The worker process's loop, one job at a time in this thread, on the test's clock."""

    def __init__(self, tmp_path: Path, github: FakeGitHub, app_key: AppKey, origin: Origin) -> None:
        key_file = tmp_path / "app.pem"
        key_file.write_text(app_key.private_pem)
        env = Bot(tmp_path / "state", github, key_file, origin).env  # the bot's settings, not started
        env |= {"ORACLE_GATE_JOB_MEMORY_MB": "0", "ORACLE_GATE_REVIEW_INTERVAL_MS": str(INTERVAL_MS)}
        config = from_environment(env)
        self.clock = FakeClock()
        self.store = Store(config.database, clock=self.clock)
        auth = AppAuth(APP_ID, app_key.private_pem, github.url, seconds_between_requests=None)
        maps = ArtifactMapStore(StoreSettings(WORKFLOW, ARTIFACT, config.maps), github.url, pacing=None)
        self.ctx = Context(config=config, auth=auth, store=self.store, maps=maps, pacing=None)

    def deliver(self, event: str, payload: object) -> None:
        body = json.dumps(payload).encode()
        self.store.accept(str(uuid.uuid4()), event, [planning.delivery_job(event, body)])

    def drain(self) -> list[str]:
        """Run every job due now; their details."""
        details = []
        while (claimed := self.store.claim()) is not None:
            outcome = run_job(self.ctx, claimed)
            self.store.finish(claimed.id, outcome.state, outcome.detail)
            details.append(outcome.detail)
        return details


def test_a_flood_of_reviews_costs_one_read_of_the_reviews_and_one_judgement(
    tmp_path: Path, github: FakeGitHub, app_key: AppKey, origin: Origin
) -> None:
    head = setup(github, origin)  # a freeze change; alice may approve it
    worker = Worker(tmp_path, github, app_key, origin)
    worker.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    worker.drain()
    assert [r.conclusion for r in github.check_runs(REPO)] == ["failure"]  # not approved yet
    reads, posted = len(github.log("GET", REVIEWS)), len(github.check_runs(REPO))
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head)
    for n in range(30):  # thirty reviews, one every second, each planned and run as it comes
        github.reviews.add_review(REPO, 1, f"spammer{n}", state="COMMENTED", commit_id=head)
        worker.deliver("pull_request_review", review_event(1))
        worker.drain()
        worker.clock.advance(1)
    assert len(github.log("GET", REVIEWS)) == reads  # nothing read within the interval
    assert len(github.check_runs(REPO)) == posted
    worker.clock.advance(INTERVAL_MS / 1000)
    worker.drain()
    assert len(github.log("GET", REVIEWS)) == reads + 1
    assert len(github.check_runs(REPO)) == posted + 1
    assert github.check_runs(REPO)[-1].conclusion == "success"  # the approval counted
    planned = [d for _, _, _, job, d in worker.store.jobs() if job.kind == planning.PLAN]
    assert sum("taken by a judgement already queued" in d for d in planned) == 29


def test_a_push_is_judged_at_once_and_takes_the_waiting_reviews_with_it(
    tmp_path: Path, github: FakeGitHub, app_key: AppKey, origin: Origin
) -> None:
    """A review's wait never delays a new head: the push's judgement supersedes the waiting one and
    reads the reviews itself; a review while a judgement runs still gets its own, later."""
    head = setup(github, origin)
    worker = Worker(tmp_path, github, app_key, origin)
    github.reviews.add_review(REPO, 1, "alice", state="APPROVED", commit_id=head)
    worker.deliver("pull_request_review", review_event(1))
    assert worker.drain() == ["queued 1 job(s)"]  # the plan; the judgement waits
    assert github.check_runs(REPO) == []
    worker.deliver("pull_request", pull_request_event("synchronize", 1, head, origin.main))
    worker.drain()
    assert [r.conclusion for r in github.check_runs(REPO)] == ["success"]
    assert len(github.log("GET", REVIEWS)) == 1
    worker.clock.advance(INTERVAL_MS / 1000)
    assert worker.drain() == []  # the waiting judgement was superseded by the push's


def test_a_review_while_a_judgement_runs_waits_and_does_not_void_that_judgement(tmp_path: Path) -> None:
    """The running judgement read the reviews after the check it replaces: it posts. The review
    that came meanwhile gets a judgement of its own after the interval (a review every few seconds
    must not keep every judgement from posting, leaving an older check standing)."""
    clock = FakeClock()
    store = Store(tmp_path / "db.sqlite3", clock=clock)
    push = Job(JUDGE, REPO, 7, f"{REPO}#1", pr=1, head="a" * 40)
    review = Job(JUDGE, REPO, 7, f"{REPO}#1", pr=1, coalesce=INTERVAL_MS / 1000)
    store.accept("push", "pull_request", [push])
    running = store.claim()
    assert running is not None
    assert store.enqueue("review", [review]) == 1
    assert store.enqueue("another review", [review]) == 0  # taken by the one waiting
    assert store.is_newest(running.id, push.key)
    assert store.claim() is None  # not due yet
    clock.advance(INTERVAL_MS / 1000)
    assert not store.is_newest(running.id, push.key)  # due now: it would post after this one
    store.finish(running.id, "done")
    waiting = store.claim()
    assert waiting is not None
    assert waiting.job == review
