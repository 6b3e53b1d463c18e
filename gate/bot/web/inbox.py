"""The webhook's way into the store: verified deliveries written by one thread, several to a transaction.

The event loop answers every request, so anything it waits for, every request waits for. Writing a
delivery means taking the store's lock, which the workers hold for their own transactions, and each
SQLite call gives up the GIL that the workers' Python code then holds for up to a switch interval:
a write on the loop took 1 ms alone but tens of milliseconds while jobs ran, and the requests
queued behind it (issue #17: acknowledgement p50 42 ms, p99 125 ms at 100 deliveries/s). So the loop
only hands the delivery to :class:`Inbox` and awaits its answer; the inbox's thread takes every
delivery waiting at that moment and records them in one transaction (:meth:`Store.receive`), then
answers each request and wakes the workers once. The answer still comes only after the delivery is
committed: a 202 means stored, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from oracle_gate.bot.queue.delivery_jobs import Job
from oracle_gate.errors import RetryLater

#: The most deliveries one transaction records (a burst's later ones wait for the next).
BATCH = 64
#: The most bytes of deliveries waiting to be recorded. A loop that waited on the store read no new
#: request meanwhile (the kernel's socket buffers bounded what waited); a loop that does not must bound
#: it itself, or a store stuck on its disk would hold every delivery GitHub sends in memory.
MAX_WAITING_BYTES = 256 * 1024 * 1024
_log = logging.getLogger("oracle_gate.bot")


class Recorder(Protocol):
    """Where deliveries are recorded: :class:`oracle_gate.bot.web.received.Received` in the server, or the
    jobs' own :class:`oracle_gate.bot.queue.store.Store`."""

    def receive(self, deliveries: Sequence[tuple[str, str, Job]]) -> list[bool]: ...


class InboxFull(RetryLater):
    """Too many bytes of deliveries wait to be recorded (answered 503; GitHub's delivery can be
    redelivered, and ``oracle-gate serve`` redelivers failed ones on start)."""


@dataclass(frozen=True)
class _Pending:
    delivery: str
    event: str
    job: Job
    size: int
    loop: asyncio.AbstractEventLoop
    answer: asyncio.Future[bool]


class Inbox:
    """Records deliveries for the event loop; :meth:`put` answers whether the delivery was new."""

    def __init__(
        self, store: Recorder, wake: Callable[[], None], max_waiting_bytes: int = MAX_WAITING_BYTES
    ) -> None:
        self._store = store
        self._wake = wake
        self._max_waiting = max_waiting_bytes
        self._waiting = 0  # bytes queued and not yet recorded (read and changed on the loop only)
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="oracle-gate-inbox", daemon=True)
        self._thread.start()

    async def put(self, delivery: str, event: str, job: Job, size: int) -> bool:
        """Store ``job`` (a delivery of ``size`` bytes) as the delivery's one job; False when the
        delivery was seen before. :class:`InboxFull` at once when too much waits already; else raises
        what the store raised (the request then fails, and the delivery can be redelivered)."""
        if self._waiting + size > self._max_waiting:
            raise InboxFull(f"{self._waiting} bytes of deliveries wait to be stored")
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[bool] = loop.create_future()
        self._waiting += size
        try:
            self._queue.put(_Pending(delivery, event, job, size, loop, answer))
            return await answer
        finally:
            self._waiting -= size

    def close(self, timeout: float = 10.0) -> None:
        """Record what is waiting, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch, closing = self._drain(first)
            self._record(batch)
            if closing:
                return

    def _drain(self, first: _Pending) -> tuple[list[_Pending], bool]:
        """``first`` and whatever else is waiting now (up to :data:`BATCH`); whether a close came."""
        batch = [first]
        while len(batch) < BATCH:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return batch, False
            if item is None:
                return batch, True
            batch.append(item)
        return batch, False

    def _record(self, batch: list[_Pending]) -> None:
        try:
            new = self._store.receive([(p.delivery, p.event, p.job) for p in batch])
        except Exception as exc:  # noqa: BLE001 - each waiting request fails with it; the inbox goes on
            _log.exception("could not store deliveries", extra={"detail": f"{len(batch)} delivery(ies)"})
            for pending in batch:
                _answer(pending, None, exc)
            return
        for pending, was_new in zip(batch, new, strict=True):
            _answer(pending, was_new, None)
        if any(new):
            self._wake()


def _answer(pending: _Pending, value: bool | None, error: BaseException | None) -> None:
    with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for this answer any more
        pending.loop.call_soon_threadsafe(_settle, pending.answer, value, error)


def _settle(answer: asyncio.Future[bool], value: bool | None, error: BaseException | None) -> None:
    """On the loop: the request's answer, unless it was cancelled meanwhile (its client went away)."""
    if answer.done():
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(bool(value))
