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

import threading
from pathlib import Path

from oracle_gate.bot.queue.store import Store

EVERY_SECONDS = 1.0


def keep_checkpointing(
    store: Store, stopping: threading.Event, every: float = EVERY_SECONDS, *, also: tuple[Path, ...] = ()
) -> threading.Thread:
    """Stop the store's connection from checkpointing on commit; checkpoint it, and the databases
    ``also`` names (whose writers do not checkpoint on commit either), every ``every`` seconds in a
    daemon thread until ``stopping`` is set (closing the store checkpoints what is left)."""
    store.defer_checkpoints()

    def run() -> None:
        checkpointer = store.checkpointer(*also)  # connections of this thread's own
        try:
            while not stopping.wait(every):
                checkpointer.checkpoint()  # a failure is logged; the WAL grows until the next one
        finally:
            checkpointer.close()

    thread = threading.Thread(target=run, name="oracle-gate-checkpoint", daemon=True)
    thread.start()
    return thread
