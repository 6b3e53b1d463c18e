"""How long a job waits before its next attempt after a transient failure (GitHub 5xx, a timeout, a
rate limit): exponential from ``base`` seconds, doubled per attempt made, never over ``cap``."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_BASE_SECONDS = 5.0
DEFAULT_CAP_SECONDS = 300.0


@dataclass(frozen=True)
class Backoff:
    base: float = DEFAULT_BASE_SECONDS
    cap: float = DEFAULT_CAP_SECONDS

    def delay(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th attempt failed (1: ``base``, 2: twice that, ...)."""
        if attempts < 1 or self.base <= 0:
            return 0.0
        return min(self.cap, self.base * 2.0 ** min(attempts - 1, 32))
