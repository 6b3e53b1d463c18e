"""Per-installation rate-limit awareness: what GitHub last said of an installation's budget.

Every installation has its own primary budget (5,000+ requests an hour). After each job the bot
notes the ``x-ratelimit-remaining`` and ``x-ratelimit-reset`` its client saw; before a job of an
installation whose budget is nearly spent, the worker waits for the reset (bounded by
``max_pause``, and cut short by shutdown) instead of spending the rest and failing a check halfway.
Another installation's jobs are not held up by it beyond the worker that waits.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from oracle_gate.bot.app.clock import SYSTEM, Clock

DEFAULT_FLOOR = 100
DEFAULT_MAX_PAUSE = 300.0


@dataclass(frozen=True)
class Budget:
    remaining: int
    reset: float  # epoch seconds


class Budgets:
    def __init__(
        self,
        floor: int = DEFAULT_FLOOR,
        max_pause: float = DEFAULT_MAX_PAUSE,
        clock: Clock = SYSTEM,
    ) -> None:
        self.floor = floor
        self.max_pause = max_pause
        self._clock = clock
        self._known: dict[int, Budget] = {}
        self._lock = threading.Lock()

    def note(self, installation: int, requester: Any) -> None:
        """What the client's last answer said (PyGithub's requester keeps the headers' values)."""
        remaining, _limit = getattr(requester, "rate_limiting", (-1, -1))
        reset = getattr(requester, "rate_limiting_resettime", 0)
        if not isinstance(remaining, int) or remaining < 0 or not isinstance(reset, int | float):
            return
        with self._lock:
            self._known[installation] = Budget(remaining, float(reset))

    def pause_for(self, installation: int) -> float:
        """Seconds to wait before spending more of this installation's budget (0: go ahead)."""
        with self._lock:
            budget = self._known.get(installation)
        if budget is None or budget.remaining >= self.floor:
            return 0.0
        wait = budget.reset - self._clock.now()
        if wait <= 0:
            with self._lock:
                self._known.pop(installation, None)
            return 0.0
        return min(wait, self.max_pause)
