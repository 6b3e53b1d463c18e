"""How long a job waits before its next attempt after a transient failure (GitHub 5xx, a timeout, a
rate limit): exponential from ``base`` seconds, doubled per attempt made, never over ``cap``."""

from __future__ import annotations

from dataclasses import dataclass

from oracle_gate.review.settings import default

DEFAULT_BASE_SECONDS = int(default("retry-base-ms")) / 1000  # the one definition: oracle_gate.review.settings
DEFAULT_CAP_SECONDS = int(default("retry-cap-ms")) / 1000


@dataclass(frozen=True)
class Backoff:
    base: float = DEFAULT_BASE_SECONDS
    cap: float = DEFAULT_CAP_SECONDS

    def delay(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th attempt failed (1: ``base``, 2: twice that, ...)."""
        if attempts < 1 or self.base <= 0:
            return 0.0
        return min(self.cap, self.base * 2.0 ** min(attempts - 1, 32))
