"""What both of the gate's collectors share, in a module of its own so neither imports the other.

The ``sys.monitoring`` collector (:mod:`oracle_gate.maps.inside.collector`) starts the ``settrace``
one (:mod:`oracle_gate.maps.inside.trace_collector`) when ``map`` asks for it; both write through the
batched :class:`Writer`, refuse the same coverage settings (:func:`refusal`) and name the running test
phase the same way in a tamper message (:func:`running_what`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

BATCH_LINES = 50_000  # test-line pairs held before they are written


class Writer:
    """Contexts and their lines into a coverage.py data file, a batch at a time.

    A batch is written in one transaction on one connection (``CoverageData.keep_db_open``): without
    it coverage.py opens and closes its SQLite connection for every ``add_lines``, which is two thirds
    of the writing time at a million test-line pairs.
    """

    def __init__(self, data_file: Path) -> None:
        from coverage import CoverageData

        data_file.parent.mkdir(parents=True, exist_ok=True)
        self.data = CoverageData(basename=str(data_file))
        self.data.add_lines({})  # creates the file as line data: the first write erases it otherwise
        self.pending: list[tuple[str, dict[str, set[int]]]] = []
        self.pending_lines = 0

    def add(self, context: str, lines: dict[str, set[int]]) -> None:
        if not lines:
            return
        self.pending.append((context, lines))
        self.pending_lines += sum(len(v) for v in lines.values())
        if self.pending_lines >= BATCH_LINES:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        with one_connection(self.data):
            for context, lines in self.pending:
                self.data.set_context(context)
                self.data.add_lines(lines)
        self.pending, self.pending_lines = [], 0

    def close(self) -> None:
        self.flush()
        self.data.close()


def one_connection(data: Any) -> AbstractContextManager[object]:
    """``data.keep_db_open()`` where this coverage.py has it (7.x), else no batching."""
    keep_open = getattr(data, "keep_db_open", None)
    return keep_open() if callable(keep_open) else nullcontext()


def running_what(context: str) -> str:
    """What ran, for a tamper message: a test phase, a module being collected, or start-up."""
    if not context:
        return "start-up or collection"
    return context if context.startswith("collecting ") else f"test {context}"


FOLLOWED_CONCURRENCY = ("thread", "greenlet", "eventlet", "gevent")  # in-process: sys.monitoring sees them


def refusal(config_file: str | bool = True, *, greenlets: bool = True) -> str | None:
    """Why the project's coverage configuration needs coverage.py itself, or None: one clause that
    names the setting, which ``map`` prints before it falls back to coverage.py.

    Coverage plugins (file tracers: Cython, Django templates), ``patch`` (``subprocess``, ``fork``,
    ``execv``, ``_exit``: measuring other processes, or saving data before the process is replaced) and
    ``concurrency = multiprocessing`` are coverage.py's machinery, which this collector does not
    reproduce. Threads and greenlets (``thread``, ``greenlet``, ``eventlet``, ``gevent``) it follows:
    ``sys.monitoring`` events fire in every thread and greenlet of the interpreter. ``greenlets=False``
    (the ``settrace`` collector, whose C tracer follows threads only) refuses greenlets too.
    """
    from coverage import Coverage

    cov = Coverage(config_file=config_file, data_file=None)
    plugins = _option_list(cov, "run:plugins")
    if plugins:
        return f"[run] plugins = {', '.join(plugins)}: coverage plugins are coverage.py's machinery"
    patch = _option_list(cov, "run:patch")
    if patch:
        return f"[run] patch = {', '.join(patch)}: measuring other processes is coverage.py's machinery"
    concurrency = _option_list(cov, "run:concurrency")
    unfollowed = [c for c in concurrency if c not in FOLLOWED_CONCURRENCY]
    if unfollowed:
        return f"[run] concurrency = {', '.join(unfollowed)}: other processes are coverage.py's machinery"
    green = [c for c in concurrency if c != "thread"]
    if green and not greenlets:
        return f"[run] concurrency = {', '.join(green)}: the C tracer follows threads only"
    return None


def _option_list(cov: Any, name: str) -> list[str]:
    value = cov.get_option(name)
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value] if isinstance(value, list | tuple) else []
