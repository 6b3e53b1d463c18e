"""The bounded worker pool: ``concurrency`` threads taking jobs from the store.

The bot runs two (:mod:`oracle_gate.bot.app.serve`): the judging workers, which take every job but a
score, and the score pool (``ORACLE_GATE_SCORE_WORKERS``), which takes only scores; a score, minutes
of head's tests, never holds a worker that another pull request's verdict waits for.

A worker sleeps on a condition until :meth:`Pool.wake` (a delivery was queued) or a short poll
interval passes. :meth:`Pool.stop` stops claiming, waits up to ``grace`` seconds for running jobs,
and puts the ones still running back in the queue (the next start runs them again).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.bot.jobs.context import JobOutcome, Transient
from oracle_gate.bot.queue.backoff import Backoff
from oracle_gate.bot.queue.store import FAILED, ClaimedJob, JobKinds, Store

POLL_SECONDS = 1.0
_log = logging.getLogger("oracle_gate.bot")


class Pool:
    def __init__(
        self,
        store: Store,
        run: Callable[[ClaimedJob], JobOutcome],
        size: int,
        backoff: Backoff | None = None,
        publish: Callable[[dict[str, int]], None] | None = None,
        *,
        kinds: JobKinds | None = None,
        name: str = "worker",
        clock: Clock = SYSTEM,
    ) -> None:
        """``publish`` is given :meth:`stats` whenever they change (the server's front reads them);
        ``kinds``: which jobs this pool claims (None: any)."""
        self._kinds = kinds
        self._clock = clock
        self._name = name
        self._store = store
        self._backoff = backoff or Backoff()
        self._run = run
        self._size = size
        self._wake = threading.Condition()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._running: dict[int, ClaimedJob] = {}
        self._guard = threading.Lock()
        self.peak = 0  # the most jobs ever running at once (tests check the bound)
        self._publish = publish or (lambda stats: None)

    def start(self) -> None:
        self._publish(self.stats())
        for i in range(self._size):
            thread = threading.Thread(target=self._loop, name=f"oracle-gate-{self._name}-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        with self._wake:
            self._wake.notify_all()

    def stats(self) -> dict[str, int]:
        """What ``/healthz`` reports of the pool: its size, jobs running now, the most ever at once."""
        with self._guard:
            return self._stats()

    def _stats(self) -> dict[str, int]:
        return {"workers": self._size, "running": len(self._running), "peak": self.peak}

    def running(self) -> int:
        with self._guard:
            return len(self._running)

    def stop(self, grace: float) -> int:
        """Stop; jobs still running after ``grace`` seconds are requeued. Returns how many were."""
        self._stopping.set()
        self.wake()
        deadline = self._clock.monotonic() + grace  # one grace period for all of them, not one each
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - self._clock.monotonic()))
        with self._guard:
            left = list(self._running.values())
        for claimed in left:
            self._store.requeue(claimed.id, "interrupted by shutdown")
        return len(left)

    def run_due(self) -> int:
        """Claim and run, in the caller's thread, every job of this pool's kinds due now, one at a
        time, as a worker thread does; how many ran. (The in-process test harness's worker loop:
        ``tests/support/bot_in_process.py``.)"""
        ran = 0
        while (claimed := self._store.claim(self._kinds)) is not None:
            self._take(claimed)
            ran += 1
        return ran

    def _loop(self) -> None:
        while not self._stopping.is_set():
            claimed = self._store.claim(self._kinds)
            if claimed is None:
                with self._wake:
                    self._wake.wait(POLL_SECONDS)
                continue
            self._take(claimed)

    def _take(self, claimed: ClaimedJob) -> None:
        """Run a claimed job, counted as running meanwhile."""
        with self._guard:
            self._running[claimed.id] = claimed
            self.peak = max(self.peak, len(self._running))
            self._publish(self._stats())
        try:
            self._finish(claimed)
        finally:
            with self._guard:
                self._running.pop(claimed.id, None)
                self._publish(self._stats())

    def _finish(self, claimed: ClaimedJob) -> None:
        job = claimed.job
        where = {"job": claimed.id, "delivery": claimed.delivery, "repo": job.repo, "pr": job.pr}
        try:
            outcome = self._run(claimed)
        except Transient as exc:
            delay = self._backoff.delay(claimed.attempts)
            self._store.requeue(claimed.id, str(exc), delay)
            _log.warning("job will be retried", extra={**where, "detail": f"in {delay:.0f} s: {exc}"})
            return
        except Exception as exc:  # noqa: BLE001 - a job's bug must not kill its worker; the job fails, visibly
            _log.exception("job failed", extra=where)
            self._store.finish(claimed.id, FAILED, f"{type(exc).__name__}: {exc}")
            return
        self._store.finish(claimed.id, outcome.state, outcome.detail)
        _log.info("job %s", outcome.state, extra={**where, "state": outcome.state, "detail": outcome.detail})
