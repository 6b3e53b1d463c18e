"""The bot's one clock: wall time, monotonic time, and waiting.

``oracle-gate serve`` makes one :class:`SystemClock` and passes it down (the store, the workers, the
jobs' context, the App's tokens, the front's status page); nothing else in the bot reads the time
(``tests/unit/test_import_rules.py`` checks it). A test gives its own clock instead
(``tests/support/clock.py``): a delayed retry, a review's interval, a test merge looked at again or a
rate limit's reset then passes at once, and the test says how much time passed.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Wall-clock time, epoch seconds (what is stored, and compared with GitHub's times)."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary start, never going back (durations and deadlines)."""

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass."""

    def wait(self, event: threading.Event, seconds: float) -> bool:
        """Let up to ``seconds`` pass, ending early when ``event`` is set; whether it is set."""


class SystemClock:
    """The machine's clocks."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def wait(self, event: threading.Event, seconds: float) -> bool:
        return event.wait(seconds)


#: The default of a part made without the server's clock (a command-line tool, a test that does not
#: care); ``serve`` passes its own.
SYSTEM = SystemClock()
