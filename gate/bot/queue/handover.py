"""The worker process's side of :mod:`oracle_gate.bot.web.received`: move the front's received deliveries
into the queue, as plan jobs, and wake the pool.

Called whenever the front says it recorded something (a byte on the wake pipe) and every second in
case a wake-up was lost; one transaction in the jobs' database per batch, recording the position
with the jobs (:meth:`oracle_gate.bot.queue.store.Store.take`), so a kill at any point moves each row once.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from oracle_gate.bot.queue.store import DatabaseError, Store
from oracle_gate.bot.web import received

#: The most rows one transaction moves.
BATCH = 256
_log = logging.getLogger("oracle_gate.bot")


class Handover:
    def __init__(self, store: Store, path: Path) -> None:
        self._store = store
        self._db = received.connect(path)  # this process only reads it
        self._guard = threading.Lock()

    def move(self) -> int:
        """Move every received row not moved yet; how many were new deliveries."""
        moved = 0
        with self._guard:
            token = received.identity(self._db)
            while True:
                rows = received.rows_after(self._db, self._store.taken(token), BATCH)
                moved += self._store.take(token, rows)
                if len(rows) < BATCH:
                    return moved

    def move_logged(self) -> int:
        """:meth:`move`; a failure is logged and tried again at the next wake-up (rows stay received)."""
        try:
            return self.move()
        except (DatabaseError, OSError):
            _log.exception("could not move received deliveries into the queue")
            return 0

    def close(self) -> None:
        with self._guard:
            self._db.close()
