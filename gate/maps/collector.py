"""A per-test line collector on ``sys.monitoring`` (PEP 669, CPython 3.12+) for ``oracle-gate map``.

coverage.py's ``ctrace`` core pays a trace call on every line of every frame; its ``sysmon`` core
cannot switch contexts per test (each line is recorded for the first test that runs it only). This
collector does what a per-test map needs and nothing more:

* **Which code.** ``PY_START`` fires once per code object (the callback returns ``DISABLE``); a code
  object whose file the project's coverage configuration measures gets ``LINE`` events, the others
  none. The configuration is read through coverage.py's public API (``Coverage().get_option`` for
  ``run:source``, ``run:include``, ``run:omit``); without ``source`` the files under the rootdir are
  measured, except installed packages and the gate itself (as ``pytest --cov`` measures).
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

It uses its own tool id (the first free one), never coverage.py's if coverage.py holds it.
"""

from __future__ import annotations

import fnmatch
import os
import site
import sys
import sysconfig
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

COLLECTOR_NAME = "sysmon"
COVERAGE_COLLECTOR = "coverage.py"
ENV_COLLECTOR = "ORACLE_GATE_COLLECTOR"  # set by ``map``: "sysmon" runs this collector in the plugin
TOOL_NAME = "oracle-gate"
BATCH_LINES = 50_000  # test-line pairs held before they are written
Selector = Callable[[str], str | None]  # absolute file name -> repo-relative path, or None: not measured


def available() -> bool:
    """``sys.monitoring`` exists: CPython 3.12+."""
    return hasattr(sys, "monitoring")


@dataclass(frozen=True)
class FileSelection:
    """The measured files, from the project's coverage configuration (source, include, omit)."""

    root: str
    source: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    omit: tuple[str, ...] = ()
    excluded_dirs: tuple[str, ...] = ()

    @classmethod
    def from_coverage_config(cls, root: Path, config_file: str | bool = True) -> FileSelection:
        """``[run] source/include/omit`` of the project's configuration (cwd-relative, as coverage.py)."""
        from coverage import Coverage

        cov = Coverage(config_file=config_file, data_file=None)
        here = os.path.realpath(root)

        def option(name: str) -> tuple[str, ...]:
            value = cov.get_option(f"run:{name}")
            return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()

        source = tuple(_source_dir(s, here) for s in option("source"))
        return cls(
            root=here,
            source=tuple(s for s in source if s),
            include=tuple(_absolute_pattern(p, here) for p in option("include")),
            omit=tuple(_absolute_pattern(p, here) for p in option("omit")),
            excluded_dirs=_installed_dirs(),
        )

    def relative(self, filename: str) -> str | None:
        """The repo-relative (or, outside the root, absolute) path of a measured file, else None."""
        if not filename or filename.startswith("<") or not os.path.isabs(filename):
            return None
        path = os.path.realpath(filename)
        if not self._selected(path) or any(fnmatch.fnmatch(path, p) for p in self.omit):
            return None
        return os.path.relpath(path, self.root) if _under(path, self.root) else path

    def _selected(self, path: str) -> bool:
        if any(_under(path, d) for d in self.excluded_dirs):
            return False
        if self.source:
            return any(_under(path, s) for s in self.source)
        if self.include:
            return any(fnmatch.fnmatch(path, p) for p in self.include)
        return _under(path, self.root)


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _absolute_pattern(pattern: str, root: str) -> str:
    return pattern if pattern.startswith(("*", os.sep)) else os.path.join(root, pattern)


def _source_dir(source: str, root: str) -> str:
    """A ``source`` entry as a directory: a path, or an importable package's directory."""
    path = os.path.realpath(os.path.join(root, source))
    if os.path.isdir(path):
        return path
    import importlib.util

    try:
        spec = importlib.util.find_spec(source)
    except (ImportError, ValueError):
        return ""
    locations = list(spec.submodule_search_locations or []) if spec else []
    if locations:
        return os.path.realpath(locations[0])
    return os.path.realpath(spec.origin) if spec and spec.origin else ""


def _installed_dirs() -> tuple[str, ...]:
    """The standard library, installed packages, and the gate itself: never measured."""
    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths.update(site.getsitepackages())
    paths.add(site.getusersitepackages())
    paths.add(str(Path(__file__).resolve().parent.parent))  # the gate package
    return tuple(sorted(os.path.realpath(p) for p in paths if p))


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


class LineCollector:
    """The ``sys.monitoring`` tool: records each measured line once per context."""

    def __init__(self, select: Selector, writer: Writer) -> None:
        self.select = select
        self.writer = writer
        self.files: dict[str, str | None] = {}  # co_filename -> relative path or None
        self.hits: list[tuple[CodeType, int]] = []
        self.context = ""
        self.tool: int | None = None
        self.rearm_fired = False
        self._on_line = _line_recorder(self.hits)

    def start(self) -> None:
        mon: Any = getattr(sys, "monitoring")  # noqa: B009 - absent before 3.12; mypy runs on 3.11
        self.tool = _free_tool_id(mon)
        self.rearm_fired = rearm_self_test(mon, self.tool)
        mon.register_callback(self.tool, mon.events.PY_START, self._on_start)
        mon.register_callback(self.tool, mon.events.LINE, self._on_line)
        mon.set_events(self.tool, mon.events.PY_START)

    def switch(self, context: str) -> None:
        """End the current context (its lines go to the writer) and re-arm the line events."""
        if self.hits:
            # The same list stays (the line callback holds its append): take the first n, so that a
            # line another thread records meanwhile stays for the next context instead of being lost.
            n = len(self.hits)
            hits = self.hits[:n]
            del self.hits[:n]
            lines, fired = self._by_file(hits)
            self.writer.add(self.context, lines)
            self._rearm(fired)
        self.context = context

    def stop(self) -> None:
        self.switch("")
        mon: Any = getattr(sys, "monitoring")  # noqa: B009
        if self.tool is not None:
            mon.set_events(self.tool, 0)
            mon.register_callback(self.tool, mon.events.PY_START, None)
            mon.register_callback(self.tool, mon.events.LINE, None)
            mon.free_tool_id(self.tool)
            self.tool = None
        self.writer.close()

    def _on_start(self, code: CodeType, offset: int) -> object:
        mon: Any = getattr(sys, "monitoring")  # noqa: B009
        name = code.co_filename
        if name in self.files:
            rel = self.files[name]
        else:
            rel = self.files[name] = self.select(name)
        if rel is not None and self.tool is not None:
            mon.set_local_events(self.tool, code, mon.events.LINE)
        return mon.DISABLE

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
        for code in fired:
            mon.set_local_events(self.tool, code, 0)
            mon.set_local_events(self.tool, code, mon.events.LINE)


def _line_recorder(hits: list[tuple[CodeType, int]]) -> Callable[[CodeType, int], object]:
    """The ``LINE`` callback: it runs once per line per test (a million times on a large suite), so
    it is a closure over the list's ``append`` and the ``DISABLE`` value, no attribute lookups."""
    append = hits.append
    disable = _DISABLE

    def on_line(code: CodeType, line: int) -> object:
        append((code, line))
        return disable

    return on_line


_DISABLE: object = getattr(getattr(sys, "monitoring", None), "DISABLE", None)


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


def refusal(config_file: str | bool = True) -> str | None:
    """Why the project's coverage configuration needs coverage.py itself, or None.

    Coverage plugins (file tracers: Cython, Django templates) and subprocess or multiprocessing
    measurement are coverage.py's machinery, which this collector does not reproduce.
    """
    from coverage import Coverage

    cov = Coverage(config_file=config_file, data_file=None)
    plugins = cov.get_option("run:plugins")
    if plugins:
        return f"the coverage configuration loads plugins ({', '.join(map(str, plugins))})"  # type: ignore[arg-type]
    patch = cov.get_option("run:patch") or []
    if "subprocess" in patch:  # type: ignore[operator]
        return "the coverage configuration measures subprocesses (patch = subprocess)"
    concurrency = cov.get_option("run:concurrency") or []
    if "multiprocessing" in concurrency:  # type: ignore[operator]
        return "the coverage configuration measures multiprocessing (concurrency = multiprocessing)"
    return None


def start_from_environment(
    root: Path, env: dict[str, str] | None = None, *, start: bool = True
) -> LineCollector | str | None:
    """The started collector ``map`` asked for; a reason string when it cannot run here; else None.

    ``start=False`` only checks (the pytest-xdist controller, whose workers measure): None or a reason.
    """
    env = dict(os.environ) if env is None else env
    if env.get(ENV_COLLECTOR) != COLLECTOR_NAME:
        return None
    if not available():
        return f"sys.monitoring needs Python 3.12+, this is {sys.version.split()[0]}"
    reason = refusal()
    if reason is not None or not start:
        return reason
    data_file = Path(env.get("COVERAGE_FILE") or ".coverage")
    data_file = data_file.with_name(f"{data_file.name}.{os.getpid()}")
    collector = LineCollector(FileSelection.from_coverage_config(root).relative, Writer(data_file))
    collector.start()
    return collector


def collector_report(collector: LineCollector | None) -> dict[str, Any]:
    """The finish event's fields for the manifest: the collector and the Python version."""
    return {
        "collector": COLLECTOR_NAME if collector is not None else COVERAGE_COLLECTOR,
        "python": ".".join(map(str, sys.version_info[:3])),
        "rearm": ("fired" if collector.rearm_fired else "restart_events") if collector else None,
    }
