"""Deliveries received and not yet handed to the workers: a database only the front writes.

SQLite has one write lock per database file. With the workers in a process of their own
(:mod:`oracle_gate.bot.queue.worker_process`), recording a delivery in the jobs' database meant waiting
for whichever worker transaction held that lock (a claim, a finish: under a millisecond of work,
but 8-72 ms while their process waited for the CPU at its lower priority), and every delivery's
answer waited with it. In a file only the front writes, recording a delivery waits for nobody.

The worker process reads the new rows (in WAL mode a reader never waits for the writer, nor the
writer for it) and moves them into the jobs' database as plan jobs, in one transaction of its own
that also records how far it got (:mod:`oracle_gate.bot.queue.handover`); the front deletes the rows
that were moved. A ``202`` still means stored: the row is committed here before the answer.

The file has an identity, a random token made with it. A position recorded for another file (this
one deleted and made again, its row ids starting over) does not count, and moving starts again
from the first row; the jobs' database knows every delivery id it took, so nothing is queued twice.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.bot.queue.delivery_jobs import Job
from oracle_gate.errors import UsageError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS received (
    id INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT NOT NULL UNIQUE, event TEXT NOT NULL,
    key TEXT NOT NULL, spec TEXT NOT NULL, at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS identity (token TEXT NOT NULL);
"""
#: How often (at most) the front deletes the rows the workers took.
FORGET_EVERY = 1.0
#: One received row as the workers read it: (id, delivery, event, key, spec, received at).
Row = tuple[int, str, str, str, str, float]


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the file at ``path``, made with its schema and identity if new."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)  # each statement its own transaction; all idempotent
        db.execute("BEGIN IMMEDIATE")  # two processes opening a new file make one identity
        if db.execute("SELECT COUNT(*) FROM identity").fetchone()[0] == 0:
            db.execute("INSERT INTO identity VALUES (?)", (secrets.token_hex(16),))
        db.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise UsageError(f"{path}: not a usable database: {exc}") from exc
    return db


def identity(db: sqlite3.Connection) -> str:
    return str(db.execute("SELECT token FROM identity").fetchone()[0])


def rows_after(db: sqlite3.Connection, position: int, limit: int) -> list[Row]:
    """The received rows after ``position`` (oldest first, at most ``limit``)."""
    found = db.execute(
        "SELECT id, delivery, event, key, spec, at FROM received WHERE id > ? ORDER BY id LIMIT ?",
        (position, limit),
    ).fetchall()
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), float(r[5])) for r in found]


class Received:
    """The front's side: record deliveries (:class:`oracle_gate.bot.web.inbox.Inbox` calls :meth:`receive`),
    count and forget the ones the workers took.

    ``seen`` answers whether the jobs' database already took a delivery id (a redelivery of one
    moved and forgotten here); ``taken`` how far the workers moved this file's rows."""

    def __init__(
        self, path: Path, seen: Callable[[str], bool], taken: Callable[[str], int], clock: Clock = SYSTEM
    ) -> None:
        self._db = connect(path)
        self._db.execute("PRAGMA wal_autocheckpoint = 0")  # the worker process checkpoints it
        self.token = identity(self._db)
        self._seen = seen
        self._taken = taken
        self._lock = threading.Lock()
        self._forgot = 0.0
        self._clock = clock

    def receive(self, deliveries: Sequence[tuple[str, str, Job]]) -> list[bool]:
        """Record each new delivery with its plan job in one transaction; for each, whether it was new."""
        now = self._clock.now()
        new: list[bool] = []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for delivery, event, job in deliveries:
                    inserted = 0
                    if not self._seen(delivery):
                        inserted = self._db.execute(
                            "INSERT OR IGNORE INTO received (delivery, event, key, spec, at) "
                            "VALUES (?, ?, ?, ?, ?)",
                            (delivery, event, job.key, job.to_json(), now),
                        ).rowcount
                    new.append(bool(inserted))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        self._forget_taken(now)
        return new

    def pending(self) -> int:
        """Rows the workers have not taken yet (queued jobs, for ``/healthz``)."""
        taken = self._taken(self.token)
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM received WHERE id > ?", (taken,)).fetchone()[0])

    def _forget_taken(self, now: float) -> None:
        if now - self._forgot < FORGET_EVERY:
            return
        self._forgot = now
        taken = self._taken(self.token)
        with self._lock:
            self._db.execute("DELETE FROM received WHERE id <= ?", (taken,))

    def close(self) -> None:
        with self._lock:
            self._db.close()
