"""A clock of the test's own for the bot (:class:`oracle_gate.bot.app.clock.Clock`): time passes only
when the test or the code under test says so, and a wait returns at once."""

from __future__ import annotations

import threading
from collections.abc import Callable

START = 2_000_000_000.0


class FakeClock:
    def __init__(self, start: float = START) -> None:
        self._at = start
        self._lock = threading.Lock()
        self.waited: list[float] = []  # every sleep or wait asked for, in order
        #: called with the seconds of each sleep or wait, before the time passes (a test's probe)
        self.on_sleep: Callable[[float], None] | None = None

    def now(self) -> float:
        with self._lock:
            return self._at

    def monotonic(self) -> float:
        return self.now()

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._at += seconds

    def set(self, at: float) -> None:
        with self._lock:
            self._at = at

    def sleep(self, seconds: float) -> None:
        if self.on_sleep is not None:
            self.on_sleep(seconds)
        self.waited.append(seconds)
        self.advance(max(0.0, seconds))

    def wait(self, event: threading.Event, seconds: float) -> bool:
        """At once: set already, or the whole time passed (nothing else runs meanwhile in a test)."""
        if event.is_set():
            return True
        self.sleep(seconds)
        return event.is_set()
