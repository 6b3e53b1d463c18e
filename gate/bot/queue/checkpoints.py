"""Checkpoints of the bot database's write-ahead log, on a connection and a thread of their own.

By default SQLite copies the WAL back into the database (a checkpoint: both files written and
synced) on the commit that takes the WAL past 1000 pages, in the thread that commits, while it
holds the store's lock. Every raw delivery is about 25 KiB, so that happened every few dozen
deliveries, and the transaction that paid for the disk's sync held up the deliveries and workers
waiting for the lock (recording deliveries alone on this machine: p99 49 ms with it, 15 ms without).
:func:`keep_checkpointing` turns that off for the store's connection and checkpoints from here
instead. A ``PASSIVE`` checkpoint takes none of the locks a writer or reader needs: it copies what
no reader still uses, and the next round copies the rest.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from oracle_gate.bot.queue.store import Store

EVERY_SECONDS = 1.0
_log = logging.getLogger("oracle_gate.bot")


def checkpoint(db: sqlite3.Connection) -> tuple[int, int]:
    """One passive checkpoint: (frames in the WAL, frames copied into the database)."""
    _, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(frames), int(copied)


def keep_checkpointing(
    store: Store, stopping: threading.Event, every: float = EVERY_SECONDS, *, also: tuple[Path, ...] = ()
) -> threading.Thread:
    """Stop the store's connection from checkpointing on commit; checkpoint it, and the databases
    ``also`` names (whose writers do not checkpoint on commit either), every ``every`` seconds in a
    daemon thread until ``stopping`` is set (closing the store checkpoints what is left)."""
    paths = (store.defer_checkpoints(), *also)

    def run() -> None:
        dbs = [sqlite3.connect(path, timeout=30) for path in paths]
        try:
            while not stopping.wait(every):
                for db in dbs:
                    try:
                        checkpoint(db)
                    except sqlite3.Error:
                        _log.exception("checkpoint failed")  # the WAL grows until the next one succeeds
        finally:
            for db in dbs:
                db.close()

    thread = threading.Thread(target=run, name="oracle-gate-checkpoint", daemon=True)
    thread.start()
    return thread
