"""The run's wall-time budget (../shared/spec/TRUST.md invariant 8): a limit reached is a verdict.

A pull request controls how long the gate's work takes (its tests under ``coverage-command``, the
size of its change); GitHub kills a job at its ``timeout-minutes`` with nothing posted, which leaves
a required check pending. So the run raises :class:`BudgetSpent` (a :class:`GateError`) in the main
thread when the budget less a reserve for posting has passed, and the usual path for a run that
could not compute a verdict posts a ``failure`` check saying why.

``SIGALRM`` interrupts Python code and the waits it is blocked in (a child process the map builder
started is killed by it on the way out). Off the main thread, or without ``setitimer``, no budget is
armed (never the case in the Docker action).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from oracle_gate.errors import GateError

MAX_RESERVE = 120.0  # seconds kept for posting the failure check (one request's retries fit)


class BudgetSpent(GateError):
    """The run's wall-time budget was spent before a verdict was computed."""


def reserve_for(budget: float) -> float:
    """Seconds of ``budget`` kept for posting once it is spent: a quarter, at most two minutes."""
    return min(MAX_RESERVE, budget / 4)


@contextmanager
def wall_time_budget(seconds: float) -> Iterator[None]:
    """Raise :class:`BudgetSpent` inside the block when ``seconds - reserve_for(seconds)`` have passed."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    work = seconds - reserve_for(seconds)

    def spent(signum: int, frame: FrameType | None) -> None:
        raise BudgetSpent(
            f"the run's time budget was spent ({work:.0f} of the {seconds:.0f} s of input "
            "time-budget, the rest kept for posting this): no verdict was computed"
        )

    previous = signal.signal(signal.SIGALRM, spent)
    signal.setitimer(signal.ITIMER_REAL, work)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
