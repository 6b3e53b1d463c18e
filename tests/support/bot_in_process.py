"""The bot in the test's own process: the server's front (the real webhook app, served by uvicorn on
a loopback port in a thread) and its worker side (the real queue, jobs and pools), built as
``oracle-gate serve`` builds them (:class:`oracle_gate.bot.app.serve.Front` and ``Workers``), on a
clock of the test's own.

What differs from the process (:class:`tests.support.bot_process.Bot`), and only this: no worker
process and no worker threads. The jobs run in the test's thread when it asks what the bot made of
its deliveries (:meth:`InProcessBot.wait_idle`, which :meth:`~tests.support.bot_process.Bot.planned`
calls): the pool's own loop (claim, run the job, record its outcome; ``Pool.run_due``), until nothing
is queued. Time is the test's :class:`~tests.support.clock.FakeClock`, starting now: a job retried
after a backoff, a review's interval, a second look at a test merge or a rate limit's reset passes at
once, as far as the bot can tell.

What needs a process of its own (signals and an orderly stop, a kill and the recovery after it, the
hand-over between the front and the worker process, jobs running side by side) uses the process.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import uvicorn

from oracle_gate.bot.app.config import BotConfig, from_environment
from oracle_gate.bot.app.logs import JsonFormatter
from oracle_gate.bot.app.redeliver import redeliver_failed
from oracle_gate.bot.app.score_settings import ensure_sandbox
from oracle_gate.bot.app.serve import Front, Workers, server_config
from oracle_gate.bot.web import received
from tests.github_fake.server import FakeGitHub
from tests.support.bot_app import Origin
from tests.support.bot_process import Bot
from tests.support.clock import FakeClock

_LOGGER = "oracle_gate.bot"


class ClockedEvent(threading.Event):
    """The jobs' stop signal, waited on by the test's clock: a wait lets the time pass at once."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self._clock = clock

    def wait(self, timeout: float | None = None) -> bool:
        if timeout is None or self.is_set():
            return super().wait(timeout)
        return self._clock.wait(self, timeout)


class InProcessBot(Bot):
    """:class:`Bot`'s interface (deliver, planned, health, wait_idle, stop), in this process."""

    def __init__(self, state: Path, fake: FakeGitHub, key_file: Path, origin: Origin, concurrency: int = 4):
        super().__init__(state, fake, key_file, origin, concurrency)
        self.clock = FakeClock(time.time())
        self._config: BotConfig | None = None
        self._front: Front | None = None
        self._workers: Workers | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._log_handler: logging.Handler | None = None

    @property
    def workers(self) -> Workers:
        assert self._workers is not None, "the bot is not started"
        return self._workers

    def start(self) -> InProcessBot:
        self.state.mkdir(parents=True, exist_ok=True)
        self._log_to_file()
        config = self._config = from_environment(self.env)
        ensure_sandbox(config.score)
        received.connect(config.received_database).close()
        workers = self._workers = Workers.make(config, self.clock)
        workers.ctx.stopping = ClockedEvent(self.clock)
        workers.store.recover()  # as serve does before either side takes a job
        front = self._front = Front.make(config, self.clock, lambda: None, workers.pool.stats)
        server = self._server = uvicorn.Server(server_config(config, front.app, config.shutdown_grace))
        self._thread = threading.Thread(target=server.run, name="test-bot-front", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert self._thread.is_alive(), "the in-process front did not start"
            assert time.monotonic() < deadline, "the in-process front did not listen within 30 s"
            time.sleep(0.01)
        workers.handover.move_logged()
        if config.redeliver_hours:
            window = config.redeliver_hours * 3600.0
            redeliver_failed(front.auth.app_requester(), front.store, window, self.clock)
        return self

    def wait_idle(self, timeout: float = 60) -> dict[str, object]:
        """Run every job the deliveries made, and the jobs those queued, in this thread, letting the
        test's clock pass to a delayed job's time; the last /healthz answer."""
        workers, config = self.workers, self._config
        assert config is not None
        deadline = time.monotonic() + timeout
        while True:
            assert time.monotonic() < deadline, f"jobs still pending after {timeout} s: {self.health()}"
            workers.handover.move_logged()
            ran = workers.pool.run_due()
            if config.score.enabled:
                ran += workers.scores.run_due()
            if ran:
                continue
            due = workers.store.next_due()
            if due is None or due <= self.clock.now():
                return self.health()
            self.clock.sleep(due - self.clock.now())  # a retry's backoff, a review's interval: at once

    def stop(self, sig: int = 0) -> int:
        """An orderly stop (a signal's meaning needs the process: ``process_bot``)."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(30)
        if self._front is not None:
            self._front.inbox.close()
            self._front.close()
        if self._workers is not None:
            self._workers.ctx.stopping.set()
            self._workers.close()
        self._server = self._thread = self._front = self._workers = None
        if self._log_handler is not None:
            logging.getLogger(_LOGGER).removeHandler(self._log_handler)
            self._log_handler.close()
            self._log_handler = None
        return 0

    def _log_to_file(self) -> None:
        """The bot's JSON log lines in ``server.log``, as the process writes them."""
        handler = logging.FileHandler(self.log, encoding="utf-8")
        handler.setFormatter(JsonFormatter())
        logger = logging.getLogger(_LOGGER)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        self._log_handler = handler
