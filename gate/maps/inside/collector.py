"""A per-test line collector on ``sys.monitoring`` (PEP 669, CPython 3.12+) for ``oracle-gate map``.

coverage.py's ``ctrace`` core pays a trace call on every line of every frame; its ``sysmon`` core
cannot switch contexts per test (each line is recorded for the first test that runs it only). This
collector does what a per-test map needs and nothing more:

* **Which code.** ``PY_START`` fires once per code object (the callback returns ``DISABLE``); a code
  object whose file the project's coverage configuration measures gets ``LINE`` events, the others
  none. Which files: coverage.py's own decision (:mod:`oracle_gate.maps.inside.selection`), from the project's
  coverage configuration; a test pytest-cov would not measure (``no_cover``) is paused for its call.
* **Each line once per test phase.** The ``LINE`` callback records ``(code, line)`` and returns
  ``DISABLE``; at each phase boundary the phase's lines are handed to the writer and the events are
  re-armed. Re-arming only the code objects that fired (``set_local_events`` to nothing and back)
  is much cheaper than ``sys.monitoring.restart_events()``, which re-arms every ``DISABLE`` of every
  tool (``PY_START`` of all code included), but that it clears a ``DISABLE`` is not documented: a
  start-up self-test decides, and ``restart_events()`` is the fallback.
* **Contexts** are named as ``pytest-cov --cov-context=test`` names them: ``<nodeid>|setup``,
  ``|run``, ``|teardown``; lines run outside any test (imports at collection) go to ``""``.
* **Writing** goes straight into a coverage.py data file (``CoverageData``: ``set_context`` then
  ``add_lines``) with repo-relative paths, a batch of contexts at a time, so memory stays flat in the
  number of tests.

It uses its own tool id (the first free one), never coverage.py's if coverage.py holds it, and checks
at every boundary that nothing in the tests switched it off (:mod:`oracle_gate.maps.inside.guard`).
"""

from __future__ import annotations

import _thread
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any, Protocol

from oracle_gate.maps.inside.collector_base import Writer, refusal, running_what
from oracle_gate.maps.inside.guard import MonitoringGuard, sysmon_problem, trace_problem
from oracle_gate.maps.inside.shards import ENV_DATA

COLLECTOR_NAME = "sysmon"
COVERAGE_COLLECTOR = "coverage.py"
TRACE_COLLECTOR = "settrace"
GATE_COLLECTORS = (COLLECTOR_NAME, TRACE_COLLECTOR)
ENV_COLLECTOR = "ORACLE_GATE_COLLECTOR"  # set by ``map``: "sysmon" or "settrace" runs that collector
TOOL_NAME = "oracle-gate"
# (file name, the frame starting in it) -> repo-relative path, or None: not measured
Selector = Callable[[str, FrameType | None], str | None]


class GateCollector(Protocol):
    """What the pytest plugin drives: :class:`LineCollector` or
    :class:`~oracle_gate.maps.inside.trace_collector.TraceCollector`."""

    paused: bool
    tampered: str | None

    @property
    def name(self) -> str: ...

    @property
    def rearm_fired(self) -> bool | None: ...

    def switch(self, context: str) -> None: ...

    def check(self, running: str) -> None: ...

    def check_armed(self, running: str) -> None: ...

    def stop(self) -> None: ...


def available() -> bool:
    """``sys.monitoring`` exists: CPython 3.12+."""
    return hasattr(sys, "monitoring")


class LineCollector:
    """The ``sys.monitoring`` tool: records each measured line once per context."""

    name = COLLECTOR_NAME

    def __init__(self, select: Selector, writer: Writer) -> None:
        self.select = select
        self.writer = writer
        self.files: dict[str, str | None] = {}  # co_filename -> relative path or None
        self.hits: list[tuple[CodeType, int]] = []
        self.context = ""
        self.tool: int | None = None
        self.rearm_fired = False
        self.paused = False  # the current phase is not measured (pytest-cov's ``no_cover``)
        self.tampered: str | None = None  # what switched the collector off, and while what ran
        self.armed: list[CodeType] = []  # every code object given LINE events
        self.guard: MonitoringGuard | None = None
        self._on_line = _line_recorder(self.hits)
        self._on_start_callback = self._on_start  # one bound method: compared by identity
        self._trace: object = None
        self._set_local_events: Callable[..., Any] = _no_call

    def start(self) -> None:
        mon: Any = getattr(sys, "monitoring")  # noqa: B009 - absent before 3.12; mypy runs on 3.11
        self.tool = _free_tool_id(mon)
        self.rearm_fired = rearm_self_test(mon, self.tool)
        mon.register_callback(self.tool, mon.events.PY_START, self._on_start_callback)
        mon.register_callback(self.tool, mon.events.LINE, self._on_line)
        mon.set_events(self.tool, mon.events.PY_START)
        self._trace = sys.gettrace()
        self.guard = MonitoringGuard(mon, self.tool)
        self._set_local_events = self.guard.original("set_local_events")
        self.guard.install()

    def switch(self, context: str) -> None:
        """End the current context (its lines go to the writer) and re-arm the line events."""
        self.check(self.context)
        if self.hits:
            # The same list stays (the line callback holds its append): take the first n, so that a
            # line another thread records meanwhile stays for the next context instead of being lost.
            n = len(self.hits)
            hits = self.hits[:n]
            del self.hits[:n]
            lines, fired = self._by_file(hits)
            if not self.paused:
                self.writer.add(self.context, lines)
            self._rearm(fired)
        self.context = context
        self.paused = False

    def check(self, running: str) -> None:
        """Is the collector still measuring as it was started? Else remember what changed, and what
        was running (a test phase, ``collecting <module>``, or start-up): the map fails closed."""
        if self.tampered is not None or self.tool is None or self.guard is None:
            return
        mon: Any = getattr(sys, "monitoring")  # noqa: B009
        callbacks = {mon.events.PY_START: self._on_start_callback, mon.events.LINE: self._on_line}
        problem = (
            (self.guard.violations[0] if self.guard.violations else None)
            or sysmon_problem(mon, self.guard.original("register_callback"), self.tool, TOOL_NAME, callbacks)
            or _recorder_problem(self._on_line, self.hits)
            or trace_problem(self._trace)
        )
        if problem is not None:
            self.tampered = f"{problem} while {running_what(running)} ran"

    def check_armed(self, running: str) -> None:
        """Every code object given ``LINE`` events still has them (costs a call per code object: at
        the end of collection and of the session, not at every test)."""
        if self.tampered is not None or self.tool is None:
            return
        mon: Any = getattr(sys, "monitoring")  # noqa: B009
        line = mon.events.LINE
        for code in self.armed:
            if mon.get_local_events(self.tool, code) != line:
                self.tampered = (
                    f"the LINE events of {code.co_qualname} ({code.co_filename}) were switched off "
                    f"before {running_what(running)}"
                )
                return

    def stop(self) -> None:
        self.switch("")
        self.check_armed("the end of the session")
        mon: Any = getattr(sys, "monitoring")  # noqa: B009
        if self.guard is not None:
            self.guard.uninstall()
        if self.tool is not None:
            mon.set_events(self.tool, 0)
            mon.register_callback(self.tool, mon.events.PY_START, None)
            mon.register_callback(self.tool, mon.events.LINE, None)
            mon.free_tool_id(self.tool)
            self.tool = None
        self.writer.close()

    def _on_start(self, code: CodeType, offset: int) -> object:
        name = code.co_filename
        if name in self.files:
            rel = self.files[name]
        else:
            rel = self.files[name] = self.select(name, _getframe(1))
        if rel is not None and self.tool is not None:
            self._set_local_events(self.tool, code, _LINE)
            self.armed.append(code)
        return _DISABLE

    def _by_file(self, hits: Iterable[tuple[CodeType, int]]) -> tuple[dict[str, set[int]], list[CodeType]]:
        """The hits' lines by measured file, and the code objects that fired (in one pass: a test's
        hits come in runs of the same code object, so the file is looked up once per run)."""
        lines: dict[str, set[int]] = {}
        fired: dict[int, CodeType] = {}
        files = self.files
        last: CodeType | None = None
        target: set[int] | None = None
        for code, line in hits:
            if code is not last:
                last = code
                fired[id(code)] = code
                rel = files.get(code.co_filename)
                target = None if rel is None else lines.setdefault(rel, set())
            if target is not None:
                target.add(line)
        return lines, list(fired.values())

    def _rearm(self, fired: list[CodeType]) -> None:
        mon: Any = getattr(sys, "monitoring")  # noqa: B009
        if not self.rearm_fired or self.tool is None:
            mon.restart_events()
            return
        set_local = self._set_local_events
        for code in fired:
            set_local(self.tool, code, 0)
            set_local(self.tool, code, _LINE)


def _recorder_problem(on_line: Callable[[CodeType, int], object], hits: list[Any]) -> str | None:
    """The line callback's code is still the recorder's, appending to the collector's own list."""
    if getattr(on_line, "__code__", None) is not _RECORDER_CODE:
        return "its line recorder's code was replaced"
    cells = getattr(on_line, "__closure__", None) or ()
    if not any(getattr(c.cell_contents, "__self__", None) is hits for c in cells):
        return "its line recorder was pointed at another list"
    return None


def _no_call(*args: object) -> None:  # pragma: no cover - replaced at start
    raise RuntimeError("the collector has not started")


def _line_recorder(hits: list[tuple[CodeType, int]]) -> Callable[[CodeType, int], object]:
    """The ``LINE`` callback: it runs once per line per test (a million times on a large suite), so
    it is a closure over the list's ``append`` and the ``DISABLE`` value, no attribute lookups.

    ``sys.monitoring`` fires in every thread, coverage.py's tracer runs only in the thread that
    started it and in threads started by ``threading`` (``threading.settrace``): a thread started
    with ``_thread.start_new_thread`` (execnet's receiver threads) is not measured. Its lines are
    left unrecorded, and not disabled (``DISABLE`` is per line, for every thread: the line must
    still fire when a measured thread runs it). The thread that creates the recorder (pytest's
    main thread) takes the fast path."""
    append = hits.append
    disable = _DISABLE
    get_ident = _get_ident
    home = get_ident()

    def on_line(code: CodeType, line: int) -> object:
        if get_ident() != home and not _threading_thread(get_ident()):
            return None
        append((code, line))
        return disable

    return on_line


def _threading_thread(ident: int) -> bool:
    """The thread was started by ``threading`` (coverage.py's tracer follows it), not by ``_thread``
    (absent from ``threading``'s table, or a ``_DummyThread`` it made when asked about the thread)."""
    thread = _THREADS.get(ident)
    return thread is not None and not isinstance(thread, threading._DummyThread)


_get_ident = _thread.get_ident  # the interpreter's own, whatever a test or gevent patches later
# a test may delete sys._getframe (attrs' test_missing_sys_getframe): the callback must not fail it
_getframe = sys._getframe
_THREADS: dict[int, threading.Thread] = getattr(threading, "_active")  # noqa: B009 - threading.enumerate()'s table
_DISABLE: object = getattr(getattr(sys, "monitoring", None), "DISABLE", None)
_LINE: int = getattr(getattr(getattr(sys, "monitoring", None), "events", None), "LINE", 0)
_RECORDER_CODE = _line_recorder([]).__code__


def _free_tool_id(mon: Any) -> int:
    """The first free tool id, coverage.py's and the debugger's last (they may claim theirs later)."""
    for tool in (3, 4, mon.PROFILER_ID, mon.OPTIMIZER_ID, mon.COVERAGE_ID, mon.DEBUGGER_ID):
        if mon.get_tool(tool) is None:
            mon.use_tool_id(tool, TOOL_NAME)
            return int(tool)
    raise RuntimeError("oracle-gate: no free sys.monitoring tool id (all six are in use)")


def rearm_self_test(mon: Any, tool: int) -> bool:
    """Does turning a code object's ``LINE`` events off and on clear the ``DISABLE`` of its lines?"""
    seen: list[int] = []

    def probe() -> int:
        return 1

    def on_line(code: CodeType, line: int) -> object:
        seen.append(line)
        return mon.DISABLE

    code = probe.__code__
    mon.register_callback(tool, mon.events.LINE, on_line)
    try:
        mon.set_local_events(tool, code, mon.events.LINE)
        probe()
        first = len(seen)
        probe()  # disabled: nothing
        second = len(seen)
        mon.set_local_events(tool, code, 0)
        mon.set_local_events(tool, code, mon.events.LINE)
        probe()  # re-armed: the line again
        third = len(seen)
    finally:
        mon.set_local_events(tool, code, 0)
        mon.register_callback(tool, mon.events.LINE, None)
    return first > 0 and second == first and third == 2 * first


def start_from_environment(
    root: Path, env: dict[str, str] | None = None, *, start: bool = True
) -> GateCollector | str | None:
    """The started collector ``map`` asked for (``sysmon``; ``settrace``:
    :mod:`oracle_gate.maps.inside.trace_collector`); a reason string when it cannot run here; else None.

    ``start=False`` only checks (the pytest-xdist controller, whose workers measure): None or a reason.
    """
    env = dict(os.environ) if env is None else env
    chosen = env.get(ENV_COLLECTOR)
    if chosen not in GATE_COLLECTORS:
        return None
    if chosen == COLLECTOR_NAME and not available():
        return f"sys.monitoring needs Python 3.12+, this is {sys.version.split()[0]}"
    if chosen == TRACE_COLLECTOR:
        from oracle_gate.maps.inside.trace_collector import trace_refusal

        reason = trace_refusal()
    else:
        reason = refusal()
    if reason is not None or not start:
        return reason
    data_file = Path(env.get(ENV_DATA) or env.get("COVERAGE_FILE") or ".coverage")
    data_file = data_file.with_name(f"{data_file.name}.{os.getpid()}")
    if chosen == TRACE_COLLECTOR:
        from oracle_gate.maps.inside.trace_collector import start_trace_collector

        return start_trace_collector(root, data_file)
    from oracle_gate.maps.inside.selection import CoverageSelection

    collector = LineCollector(CoverageSelection(root), Writer(data_file))
    collector.start()
    return collector


def collector_report(collector: GateCollector | None) -> dict[str, Any]:
    """The finish event's fields for the manifest: the collector and the Python version."""
    rearm = None if collector is None else collector.rearm_fired
    return {
        "collector": collector.name if collector is not None else COVERAGE_COLLECTOR,
        "python": ".".join(map(str, sys.version_info[:3])),
        "rearm": None if rearm is None else ("fired" if rearm else "restart_events"),
    }
