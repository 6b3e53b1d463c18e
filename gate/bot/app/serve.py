"""``oracle-gate serve``: recover interrupted jobs, fork the worker process, serve webhooks until
SIGTERM/SIGINT.

Two processes (:mod:`oracle_gate.bot.queue.worker_process` says why): this one, the front, answers
webhooks (uvicorn, the inbox, redelivery on start); the worker process runs the pool and the
housekeeping. On a signal uvicorn stops accepting deliveries and finishes the ones in flight; then
the front tells the workers to stop, and they wait up to ``grace`` seconds for running jobs and
queue the rest again. When the worker process ends first, the front stops too and exits 1.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

from oracle_gate.bot.app import logs
from oracle_gate.bot.app.auth import AppAuth
from oracle_gate.bot.app.clock import Clock, SystemClock
from oracle_gate.bot.app.config import BotConfig
from oracle_gate.bot.app.ratelimit import Budgets
from oracle_gate.bot.app.redeliver import redeliver_failed
from oracle_gate.bot.app.score_settings import ensure_sandbox
from oracle_gate.bot.jobs import bounded, scoring
from oracle_gate.bot.jobs.context import Context, JobOutcome
from oracle_gate.bot.jobs.judging import run_job
from oracle_gate.bot.jobs.mapstore import ArtifactMapStore, StoreSettings
from oracle_gate.bot.queue.backoff import Backoff
from oracle_gate.bot.queue.checkpoints import keep_checkpointing
from oracle_gate.bot.queue.handover import Handover
from oracle_gate.bot.queue.housekeeping import keep_pruning
from oracle_gate.bot.queue.recovery import run_or_give_up
from oracle_gate.bot.queue.store import ClaimedJob, JobKinds, Store
from oracle_gate.bot.queue.worker_process import ParentLink, fork_workers
from oracle_gate.bot.queue.workers import Pool
from oracle_gate.bot.web import received
from oracle_gate.bot.web.inbox import Inbox
from oracle_gate.bot.web.received import Received
from oracle_gate.bot.web.server import make_app

_log = logging.getLogger("oracle_gate.bot")
#: How long a thread keeps the GIL while another waits for it (CPython's default: 5 ms). The event loop
#: needs it back after every socket read and write and every hand-over to the inbox; while the workers
#: run Python (planning, PyGithub, rendering), each of those waits could cost up to the whole interval,
#: several per delivery. 0.5 ms keeps the loop's turns short at the cost of more switches among workers
#: (issue #17, bench/bot_throughput.py, one run each on a shared 2-core machine at load 10-12: a
#: connection per delivery at 100/s while judging answered at p50 6.4 s with 5 ms, 1.6 s with 0.5 ms).
SWITCH_INTERVAL = 0.0005
#: How long past the grace period the front waits for the worker process to stop before killing it.
STOP_MARGIN = 30.0


def serve(config: BotConfig, *, grace: float | None = None) -> int:
    """Serve until SIGTERM/SIGINT: 0 after an orderly stop, 1 when the worker process died first."""
    grace = float(config.shutdown_grace) if grace is None else grace
    clock = SystemClock()  # the server's one clock, passed down to every part that reads the time
    ensure_sandbox(config.score)  # scoring on without a working sandbox: refuse to start
    recovered = _recover(config.database, clock)  # once, before either process takes a job
    received.connect(config.received_database).close()  # made (or checked) before either opens it

    def run_workers(link: ParentLink) -> int:
        return _run_workers(config, grace, link, clock)

    workers = fork_workers(config.concurrency, run_workers)  # before any thread starts
    logs.configure()
    sys.setswitchinterval(SWITCH_INTERVAL)  # this process is the server's own
    front = Front.make(config, clock, workers.wake, workers.stats)
    server = uvicorn.Server(server_config(config, front.app, grace))
    stopping = threading.Event()
    workers.watch(lambda code: _workers_ended(code, stopping, server))
    _log.info("serving", extra={"detail": f"{config!r}; {recovered} interrupted job(s) queued again"})
    _redeliver_once_listening(server, front.auth, front.store, config.redeliver_hours * 3600.0, clock)
    _survive_reraised_signals()
    try:
        server.run()
    finally:
        front.inbox.close()  # uvicorn has answered every request it took: nothing more comes in
        stopping.set()
        code = workers.stop(grace + STOP_MARGIN)
        front.close()
        logs.stop()
    return 0 if code == 0 else 1


def server_config(config: BotConfig, app: Starlette, grace: float) -> uvicorn.Config:
    """uvicorn's settings for the webhook app."""
    return uvicorn.Config(
        app,
        host=config.host,
        port=config.port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=int(grace),
        # TRUST.md 16: uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise.
        proxy_headers=bool(config.forwarded_allow_ips),
        forwarded_allow_ips=list(config.forwarded_allow_ips),
    )


@dataclass
class Front:
    """The front's parts: the jobs' database (read here), the received deliveries (written here
    only), the App's credentials, the inbox and the webhook app."""

    store: Store
    arrivals: Received
    auth: AppAuth
    inbox: Inbox
    app: Starlette

    @classmethod
    def make(
        cls, config: BotConfig, clock: Clock, wake: Callable[[], None], stats: Callable[[], dict[str, int]]
    ) -> Front:
        store = Store(config.database, clock)  # read here: the worker process writes it
        arrivals = Received(config.received_database, store.seen, store.taken, clock)  # written here only
        auth = _app_auth(config, clock)
        inbox = Inbox(arrivals, wake)
        app = make_app(
            store,
            config.webhook_secret,
            config.max_body,
            inbox,
            stats,
            status=config.status,
            pending=arrivals.pending,
            clock=clock,
        )
        return cls(store, arrivals, auth, inbox, app)

    def close(self) -> None:
        self.arrivals.close()
        self.store.close()


@dataclass
class Workers:
    """The worker process's parts: the queue, the hand-over from the front, the jobs' context, the
    judging pool and the score pool (not started)."""

    store: Store
    handover: Handover
    ctx: Context
    pool: Pool
    scores: Pool

    @classmethod
    def make(
        cls, config: BotConfig, clock: Clock, publish: Callable[[dict[str, int]], None] | None = None
    ) -> Workers:
        store = Store(config.database, clock)
        handover = Handover(store, config.received_database)
        maps = ArtifactMapStore(
            StoreSettings(config.map_workflow, config.map_artifact, config.maps),
            config.api_url,
            pacing=config.pacing,
        )
        ctx = Context(
            config=config,
            auth=_app_auth(config, clock),
            store=store,
            maps=maps,
            pacing=config.pacing,
            budgets=Budgets(clock=clock),
            clock=clock,
        )
        maps.track = ctx.track_for_job  # the map store's requests spend the job's installation's budget
        backoff = Backoff(config.retry_base, config.retry_cap)

        def run(claimed: ClaimedJob) -> JobOutcome:
            return run_or_give_up(ctx, claimed, run_job)

        pool = Pool(
            store,
            run,
            config.concurrency,
            backoff,
            publish=publish,
            kinds=JobKinds(scoring.SCORE, only=False),  # a score never holds a judging worker
            clock=clock,
        )
        scores = Pool(
            store,
            run,
            config.score.workers,
            backoff,
            kinds=JobKinds(scoring.SCORE),
            name="score",
            clock=clock,
        )
        return cls(store, handover, ctx, pool, scores)

    def close(self) -> None:
        self.handover.close()
        self.store.close()


def _app_auth(config: BotConfig, clock: Clock) -> AppAuth:
    return AppAuth(
        config.app_id, config.private_key, config.api_url, seconds_between_requests=config.pacing, clock=clock
    )


def _recover(database: Path, clock: Clock) -> int:
    """Queue again the jobs a crash left running (counting the recovery); the store closed again, so
    no connection crosses the fork."""
    store = Store(database, clock)
    try:
        return store.recover()
    finally:
        store.close()


def _run_workers(config: BotConfig, grace: float, link: ParentLink, clock: Clock) -> int:
    """The worker process (:mod:`oracle_gate.bot.queue.worker_process`): the pool and the housekeeping,
    until the front closes the pipe; running jobs then get ``grace`` seconds, the rest are requeued."""
    logs.configure()
    side = Workers.make(config, clock, link.publish)
    pool, scores, ctx = side.pool, side.scores, side.ctx
    if config.job_memory_mb:
        bounded.start_fork_server()
    side.handover.move_logged()  # what the front received before a crash or a stop, before anything new
    pool.start()
    if config.score.enabled:
        scores.start()
    keep_pruning(side.store, config.maps, config.keep, config.prune_minutes * 60.0, ctx.stopping)
    keep_checkpointing(side.store, ctx.stopping, also=(config.received_database,))
    front_gone = threading.Event()
    link.follow(lambda: _move_and_wake(side.handover, pool, scores), front_gone)
    while not front_gone.wait(1.0):
        pass
    ctx.stopping.set()
    requeued = pool.stop(grace) + scores.stop(grace)
    _log.info("stopped", extra={"detail": f"{requeued} running job(s) queued again"})
    side.close()
    logs.stop()
    return 0


def _move_and_wake(handover: Handover, *pools: Pool) -> None:
    if handover.move_logged():
        for pool in pools:
            pool.wake()


def _workers_ended(code: int, stopping: threading.Event, server: uvicorn.Server) -> None:
    """The worker process ended: expected once the front stops; before that, the front stops too
    (a server that acknowledges deliveries nobody works on would hide the failure)."""
    if stopping.is_set():
        return
    _log.error("the worker process ended; stopping", extra={"detail": f"exit code {code}"})
    server.should_exit = True


def _redeliver_once_listening(
    server: uvicorn.Server, auth: AppAuth, store: Store, window: float, clock: Clock
) -> None:
    """In the background, once the server accepts deliveries (GitHub sends redeliveries at once)."""

    def run() -> None:
        deadline = clock.monotonic() + 60
        while not server.started and clock.monotonic() < deadline:
            clock.sleep(0.05)
        if server.started:
            try:
                redeliver_failed(auth.app_requester(), store, window, clock)
            except Exception:  # noqa: BLE001 - redelivery is best effort; the server keeps serving
                _log.exception("redelivery failed")

    threading.Thread(target=run, name="oracle-gate-redeliver", daemon=True).start()


def _survive_reraised_signals() -> None:
    """uvicorn re-raises the stop signal after its own graceful shutdown, under the handlers that were
    there before it started: with Python's default SIGTERM handler that kills the process before the
    pool is stopped (running jobs neither finished nor requeued). A handler that only logs makes that
    re-raise harmless, and ``serve`` returns through its ``finally``."""
    if threading.current_thread() is not threading.main_thread():
        return

    def noted(signum: int, frame: object) -> None:
        _log.info("stop signal", extra={"detail": signal.Signals(signum).name})

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, noted)
