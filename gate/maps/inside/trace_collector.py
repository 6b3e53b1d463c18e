"""The per-test collector where ``sys.monitoring`` is missing (CPython 3.11): coverage.py's C tracer,
driven by the gate.

pytest-cov measures a test phase with coverage.py's C tracer (``ctrace``) and, at every phase
boundary, ``Coverage.switch_context`` writes the phase's lines into its SQLite file: one transaction
per phase, three per test, about a tenth of a map's whole cost on a suite of small tests. This
collector runs the same tracer (``coverage.tracer.CTracer``, the one pytest-cov's coverage.py starts)
with the same file decisions (coverage.py's ``InOrOut``, :mod:`oracle_gate.maps.inside.selection`), so it
records the same lines; only where they go differs: at a boundary the phase's lines are copied out of
the tracer's sets (which are then emptied in place, as coverage.py empties them) and handed to the
collector's batched :class:`~oracle_gate.maps.inside.collector_base.Writer`, a transaction per 50,000 lines.

Threads: as coverage.py does, through ``threading.settrace``, one tracer per thread that ``threading``
starts, all writing into one dict under one lock. Greenlet, eventlet and gevent concurrency need
coverage.py's own machinery: the collector refuses them (:func:`refusal`), and ``map`` lets coverage.py
measure instead.

At every boundary the collector checks that the main thread's trace function is still its tracer,
that ``threading`` still starts its tracer in new threads, and that the tracer still writes into its
dict and asks its selector: a test that calls ``sys.settrace`` (or starts coverage.py, which replaces
the trace function) makes the map fail closed, naming the test.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from oracle_gate.maps.inside.collector_base import Writer, refusal, running_what
from oracle_gate.maps.inside.guard import callable_name
from oracle_gate.maps.inside.selection import CoverageSelection
from oracle_gate.maps.inside.shards import TRACE_COLLECTOR


class TraceCollector:
    """coverage.py's C tracer, one per thread, recording into one dict; contexts switched in memory."""

    name = TRACE_COLLECTOR
    rearm_fired = None  # nothing to re-arm: a tracer sees every line of a traced file, every time

    def __init__(self, selection: CoverageSelection, writer: Writer) -> None:
        from coverage.tracer import CFileDisposition, CTracer

        self.selection = selection
        self.writer = writer
        selection.inorout.disp_class = CFileDisposition  # the C tracer reads its fields directly
        self._tracer_class = CTracer
        self.data: dict[str, Any] = {}  # source file -> the tracer's set of line numbers
        self.relative: dict[str, str | None] = {}  # source file -> the map's path (None: not measured)
        self.cache: dict[str, Any] = {}  # the tracers' should-trace cache, shared as coverage.py shares it
        self.lock = threading.Lock()
        self.tracers: list[Any] = []
        self.armed: dict[str, Any] = {}  # file name -> its decision to trace, as first made
        self.context = ""
        self.paused = False  # the current phase is not measured (pytest-cov's ``no_cover``)
        self.tampered: str | None = None
        self._pid = os.getpid()
        # Bound once: the checks compare these by identity.
        self._should_trace = self.should_trace
        self._install = self._install_in_thread

    def start(self) -> None:
        self._start_tracer()
        threading.settrace(self._install)
        _coverage_stack().append(self)

    # coverage.py's collector stack: a coverage.py that a test starts pauses the collector under it
    # and resumes it when stopped, as it does pytest-cov's (lines run meanwhile are its, not ours).
    @property
    def pid(self) -> int:
        return self._pid

    def pause(self) -> None:
        self.tracers[0].stop()
        threading.settrace(None)  # type: ignore[arg-type,unused-ignore]  # None is accepted at run time

    def resume(self) -> None:
        self.tracers[0].start()
        threading.settrace(self._install)

    def post_fork(self) -> None:
        """A forked child's copy: coverage.py drops it from its stack, as it drops its own."""

    def should_trace(self, filename: str, frame: FrameType | None) -> Any:
        """coverage.py's decision for ``filename`` (the C tracer caches it per file name); the gate's
        own files are the measuring tool, not the parent's code: never traced."""
        disposition = self.selection.inorout.should_trace(filename, frame)
        source = disposition.source_filename
        if disposition.trace and source:
            rel = self.relative[source] = self.selection.relative(source)
            if rel is None:
                disposition.trace = False
                disposition.reason = "the gate's own file"
            else:
                self.armed[filename] = disposition
        return disposition

    def switch(self, context: str) -> None:
        """End the current context: its lines go to the writer, the tracers' sets are emptied."""
        self.check(self.context)
        lines: dict[str, set[int]] = {}
        with self.lock:
            for source, recorded in list(self.data.items()):  # a copy: another thread may add a file
                if recorded:
                    rel = self.relative.get(source)
                    if rel is not None and not self.paused:
                        lines[rel] = set(recorded)
                    recorded.clear()
        self.writer.add(self.context, lines)
        self.context = context
        self.paused = False

    def check(self, running: str) -> None:
        """Is the collector still measuring as it was started? Else remember what changed and what
        was running: the map fails closed."""
        if self.tampered is not None or not self.tracers:
            return
        problem = self._problem()
        if problem is not None:
            self.tampered = f"{problem} while {running_what(running)} ran"

    def check_armed(self, running: str) -> None:
        """Every measured file is still traced: its cached decision is the one coverage.py made (costs
        a look-up per file: at the end of collection and of the session, not at every test)."""
        if self.tampered is not None or not self.tracers:
            return
        for filename, disposition in self.armed.items():
            still_traced = disposition.trace is True
            if not still_traced or self.cache.get(filename) is not disposition:
                self.tampered = f"the tracing of {filename} was switched off before {running}"
                return

    def stop(self) -> None:
        self.switch("")
        self.check_armed("the end of the session")
        stack = _coverage_stack()
        if self in stack:
            stack.remove(self)
        threading.settrace(None)  # type: ignore[arg-type,unused-ignore]  # None is accepted at run time
        for tracer in self.tracers:
            tracer.stop()
        self.tracers = []
        self.writer.close()

    def _problem(self) -> str | None:
        main = self.tracers[0]
        current = sys.gettrace()
        if current is not main:
            return f"its trace function was replaced (sys.settrace: {callable_name(current)})"
        hook = threading.gettrace()
        if hook is not self._install:
            return f"threading's trace hook was replaced (threading.settrace: {callable_name(hook)})"
        for tracer in self.tracers:
            if (
                tracer.data is not self.data
                or tracer.should_trace is not self._should_trace
                or tracer.should_trace_cache is not self.cache
            ):
                return "its tracer was pointed at another store or selector"
        return None

    def _start_tracer(self) -> Any:
        tracer = self._tracer_class()
        tracer.data = self.data
        tracer.lock_data = self.lock.acquire
        tracer.unlock_data = self.lock.release
        tracer.trace_arcs = False
        tracer.should_trace = self._should_trace
        tracer.should_trace_cache = self.cache
        tracer.warn = self.selection.warn
        tracer.concur_id_func = None
        tracer.file_tracers = {}
        # Unused without dynamic contexts and file tracers, but the C tracer reads them: never unset.
        tracer.should_start_context = None
        tracer.switch_context = None
        tracer.check_include = _never
        tracer.disable_plugin = None
        function = tracer.start()
        self.tracers.append(tracer)
        return function

    def _install_in_thread(self, frame: FrameType, event: str, arg: object) -> Any:
        """``threading``'s trace hook: the first event of a new thread starts that thread's tracer."""
        sys.settrace(None)
        function = self._start_tracer()
        return function(frame, event, arg) if function is not None else None


def _coverage_stack() -> list[Any]:
    """coverage.py's stack of started collectors (``Collector._collectors``; a fresh list if this
    coverage.py has none, so the collector still runs, without the nesting)."""
    from coverage.collector import Collector

    stack = getattr(Collector, "_collectors", None)
    return stack if isinstance(stack, list) else []


def _never(filename: str, frame: FrameType | None) -> bool:
    return False


def trace_refusal() -> str | None:
    """Why coverage.py must measure instead of this collector (one clause), or None."""
    reason = refusal(greenlets=False)
    if reason is not None:
        return reason
    from coverage import Coverage

    if Coverage.current() is not None:  # pytest-cov (or ``coverage run``) measures this process already
        return "a coverage.py already measuring the tests (pytest-cov's --cov, in the command or addopts)"

    try:
        from coverage.tracer import CTracer  # noqa: F401 - only whether it exists
    except ImportError:
        return "coverage.py's C tracer is not installed (a pure-Python coverage.py)"
    return None


def start_trace_collector(root: Path, data_file: Path) -> TraceCollector:
    collector = TraceCollector(CoverageSelection(root), Writer(data_file))
    collector.start()
    return collector
