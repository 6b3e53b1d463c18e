"""Turns to write the bot's database, across its two processes, queued by the kernel.

SQLite lets one connection write at a time, and a connection that finds the database locked polls:
it sleeps 1, 2, 5, 10, ... up to 100 ms between tries, and a writer that commits and begins again
at once (a worker planning a burst of deliveries) can take the lock back every time before the
sleeper wakes. With the workers in a process of their own (:mod:`oracle_gate.bot.worker_process`),
that sleeper was the inbox, and every delivery waiting on it: recording one delivery took 20-640 ms
at 100 deliveries/s while the workers planned them (bench/bot_throughput.py, machine load 5; with
this lock, 20-57 ms and the acknowledgement's p99 from 178-595 ms down to 53 ms in the same hour).

So both processes take an advisory lock (``flock``) on a file beside the database around every
write transaction, before SQLite's: the kernel queues the waiters and wakes the first as soon as
the lock is released, with no polling, so the inbox waits for the transaction under way and not
for a sleep. The kernel drops a dead process's locks: ``kill -9`` at any point leaves nothing locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


class WriteTurns:
    """The write lock of the database at ``database`` (a file beside it)."""

    def __init__(self, database: Path) -> None:
        self._lock = os.open(database.with_name(database.name + ".write-lock"), _FLAGS, 0o600)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Hold the write lock (callers in one process are serialized by the store's own lock)."""
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._lock, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._lock)


_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
