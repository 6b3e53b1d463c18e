"""The oracle-gate pytest plugin: the flake freeze as a *collection filter*.

Shipped with the package under the ``pytest11`` entry point ``oracle_gate``
and inert until enabled: only :func:`pytest_addoption` and
:func:`pytest_configure` run, and they import nothing beyond the standard
library. It is enabled by any of

* ``--oracle-freeze=FILE`` or the ini option ``oracle_freeze = FILE`` (relative
  to the rootdir): the frozen node ids of that manifest (the gate's own prefix
  rules, :meth:`oracle_gate.judge.freeze.Freeze.frozen_by`) are deselected at collection
  and listed with their reasons in the terminal summary. A frozen test that is
  collected anyway (named on the command line, or put back by another plugin)
  and a frozen test that a skip/xfail marker takes out here (its condition true) are policy errors:
  the session stops before any test runs, with pytest's usage-error status 4.
* ``--oracle-shard=I/N``: keep only the tests whose file falls in shard I of N
  (by a hash of the file part of the node id, so shards are stable and a file
  never straddles two shards).
* ``--oracle-contexts``: record one coverage.py context per test phase
  (``<nodeid>|setup``, ``|run``, ``|teardown``, as ``pytest-cov
  --cov-context=test`` names them) when coverage is active, e.g. under
  ``coverage run -m pytest`` without pytest-cov.
* the ``ORACLE_GATE_*`` environment variables that ``oracle-gate map`` sets for
  the test command it runs: map mode (frozen tests are *run*, since the map
  needs what they observe), the parent's freeze manifest, the shard, and a
  JSON-lines report file for progress and the final counts.

In map mode every test boundary is also a check that no test switched the measurement off
(:mod:`oracle_gate.maps.inside.plugin_guard`, :mod:`oracle_gate.maps.inside.guard`), and pytest-cov's
``no_cover`` pauses the
collector for the test's call as it pauses coverage.py.

Under pytest-xdist (``-n``) the controller and every worker load the plugin. The workers collect,
filter (shard, freeze) and run the tests, so in map mode each worker runs the ``sys.monitoring``
collector and writes its own data file (``map`` merges them); the controller runs no test and starts
no collector, but it sees every worker's test reports and writes the report file alone (a ``start``
event, ``collected`` from the workers' collections, one ``test`` per test, ``finish``), with what
only the workers know (the frozen tests they ran, the collector they ran) sent back to it through
xdist's ``workeroutput``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from oracle_gate.maps.inside.shards import (
    COVERAGE_COLLECTOR,
    ENV_COLLECTOR,
    ENV_FREEZE,
    ENV_MAP,
    ENV_REPORT,
    ENV_SHARD,
    GATE_COLLECTORS,
    parse_shard,
    shard_of,
)

if TYPE_CHECKING:
    from oracle_gate.judge.freeze import Freeze

PLUGIN_NAME = "oracle_gate"
WORKER_OUTPUT = "oracle_gate"  # the key of a worker's results in xdist's ``workeroutput``
SKIP_MARKERS = ("skip", "skipif", "xfail")
WORKER_EVENTS = ("policy_error", "collector_tampered")  # what an xdist worker writes to the report itself
# A finished test's report line waits, with others, until this long after the last write (the runner
# polls as often): one open and write per test was a fifth of the plugin's cost per test.
PROGRESS_SECONDS = 0.2


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("oracle-gate", "oracle-gate: the flake freeze as a collection filter")
    group.addoption(
        "--oracle-freeze",
        metavar="FILE",
        default=None,
        help="deselect the tests frozen by this freeze manifest (relative to the rootdir)",
    )
    group.addoption(
        "--oracle-shard",
        metavar="I/N",
        default=None,
        help="run only shard I of N (1-based), split by a hash of each test's file",
    )
    group.addoption(
        "--oracle-contexts",
        action="store_true",
        default=False,
        help="record a coverage.py context per test phase ('<nodeid>|run') when coverage is active",
    )
    parser.addini("oracle_freeze", "freeze manifest whose tests are deselected (relative to the rootdir)")


def pytest_configure(config: pytest.Config) -> None:
    settings = Settings.from_config(config)
    if settings.enabled:
        config.pluginmanager.register(OracleGate(config, settings), f"{PLUGIN_NAME}-session")


@dataclass(frozen=True)
class Settings:
    freeze_path: Path | None = None
    freeze_source: str = ""
    map_mode: bool = False
    shard: tuple[int, int] | None = None
    report: Path | None = None
    contexts: bool = False

    @property
    def enabled(self) -> bool:
        return bool(self.freeze_path or self.map_mode or self.shard or self.report or self.contexts)

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        env = os.environ
        option = config.getoption("oracle_freeze") or str(config.getini("oracle_freeze") or "").strip()
        freeze_path, source = None, ""
        if env.get(ENV_FREEZE):
            freeze_path, source = Path(env[ENV_FREEZE]), f"${ENV_FREEZE}"
        elif option:
            freeze_path, source = config.rootpath / option, option
        shard_text = config.getoption("oracle_shard") or env.get(ENV_SHARD)
        shard = None
        if shard_text:
            try:
                shard = parse_shard(shard_text)
            except ValueError as exc:
                raise pytest.UsageError(f"oracle-gate: {exc}") from None
        return cls(
            freeze_path=freeze_path,
            freeze_source=source,
            map_mode=env.get(ENV_MAP) == "1",
            shard=shard,
            report=Path(env[ENV_REPORT]) if env.get(ENV_REPORT) else None,
            contexts=bool(config.getoption("oracle_contexts")),
        )


@dataclass(frozen=True)
class Frozen:
    nodeid: str
    entry: str
    reason: str


def load_freeze(path: Path, source: str) -> Freeze:
    from oracle_gate.judge.freeze import parse_freeze

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise pytest.UsageError(
            f"oracle-gate: cannot read the freeze manifest {source} ({exc.strerror or exc})"
        ) from None
    freeze = parse_freeze(data, source)
    if not freeze.entries and freeze.problems:
        raise pytest.UsageError(f"oracle-gate: {freeze.problems[0]}")
    return freeze


class OracleGate:
    """The enabled plugin: one per session."""

    tamper_reported = False  # the map's measurement was found switched off (and reported)
    last_phase = ""  # the coverage.py path: the test phase that ran since the last boundary

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.freeze = None
        if settings.freeze_path is not None:
            self.freeze = load_freeze(settings.freeze_path, settings.freeze_source)
        self.frozen: list[Frozen] = []  # deselected, or run for the map
        self.frozen_deselected: list[str] = []  # v2: frozen tests another filter (-k, -m) deselected
        self.policy_errors: list[str] = []
        self.selected = 0
        self.shard_deselected = 0
        self.failed: list[str] = []
        self.finished: set[str] = set()
        self.started = time.monotonic()
        self.core: str | None = None  # coverage.py's tracer while the tests ran, when coverage is active
        self.worker = hasattr(config, "workerinput")  # an xdist worker
        self.controller = is_xdist_controller(config)  # the xdist controller: runs no test itself
        self.workers: list[dict[str, Any]] = []  # the controller: what each worker sent back
        self.outcome_log = _outcome_log()
        self.plugins_collected: list[dict[str, str | None]] = []  # the plugin set at the end of collection
        # v2 2.5: the seal of each data file the collector wrote (its own; the controller: its workers')
        self.seals: list[dict[str, str]] = []
        self.seal_pipe = _take_seal_pipe() if settings.map_mode else None
        self.pending: list[str] = []  # report lines not written yet (finished tests only)
        self.write_at = 0.0  # when the pending lines are written at the latest (monotonic)
        if settings.report is not None:
            settings.report.parent.mkdir(parents=True, exist_ok=True)
        # The first event: the plugin runs (``map`` names a command that never loaded it by its absence).
        self._emit({"event": "start", "pid": os.getpid(), "map": settings.map_mode, "xdist": self.controller})
        self.collector = _start_collector(self) if settings.map_mode else None

    # -- collection ---------------------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        # A wrapper: runs after every plain implementation (-k, -m, other plugins), so it has the last word.
        yield
        if self.settings.shard is not None:
            index, total = self.settings.shard
            keep = [item for item in items if shard_of(item.nodeid, total) == index]
            self.shard_deselected = len(items) - len(keep)
            self._deselect(config, items, keep)
        if self.freeze is not None:
            self._apply_freeze(self.freeze, config, items)

    def _deselect(self, config: pytest.Config, items: list[pytest.Item], keep: list[pytest.Item]) -> None:
        kept = {id(item) for item in keep}
        dropped = [item for item in items if id(item) not in kept]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep

    def _apply_freeze(self, freeze: Freeze, config: pytest.Config, items: list[pytest.Item]) -> None:
        reasons = {e.nodeid: (e.reason or "(no reason given)") for e in freeze.entries}
        frozen_items = []
        for item in items:
            entry = freeze.frozen_by(item.nodeid)
            if entry is None:
                continue
            frozen_items.append(item)
            self.frozen.append(Frozen(item.nodeid, entry, reasons[entry]))
            from oracle_gate.maps.inside.frozen_marks import marker_in_effect  # only when a freeze is enabled

            marker = marker_in_effect(item)
            if marker is not None:
                by = "" if entry == item.nodeid else f" (by {entry!r})"
                self.policy_errors.append(
                    f"{item.nodeid} is frozen{by} and also carries a pytest.mark.{marker} "
                    "marker: a frozen test must not be skipped in place (remove the marker; the freeze "
                    "manifest is the one place that takes a test out)"
                )
        if not self.settings.map_mode:
            for arg in self._explicit_frozen_args(freeze):
                self.policy_errors.append(
                    f"{arg} is frozen but was named on the command line; a frozen test cannot be "
                    "forced to run (remove it from the freeze manifest, or run without the freeze)"
                )
            keep = [item for item in items if freeze.frozen_by(item.nodeid) is None]
            self._deselect(config, items, keep)

    def _explicit_frozen_args(self, freeze: Freeze) -> Iterable[str]:
        invocation = self.config.invocation_params.dir
        root = self.config.rootpath
        for arg in self.config.args:
            path, sep, rest = arg.partition("::")
            if not sep:
                continue
            try:
                rel = (invocation / path).resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                continue
            nodeid = f"{rel}{sep}{rest}"
            if freeze.frozen_by(nodeid) is not None:
                yield nodeid

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.freeze is not None and not self.settings.map_mode:
            forced = [item.nodeid for item in session.items if self.freeze.frozen_by(item.nodeid)]
            self.policy_errors += [
                f"{nodeid} is frozen but is still collected: something after the freeze filter put it "
                "back; a frozen test cannot be forced to run"
                for nodeid in forced
            ]
        self.selected = len(session.items)
        self.plugins_collected = _plugins_now(self.config)  # SCORING.md v2, 2.1: at the end of collection
        self._emit({"event": "collected", "tests": self.selected, "frozen": len(self.frozen)})
        if self.policy_errors:
            self._emit({"event": "policy_error", "errors": self.policy_errors})
            lines = "\n  ".join(self.policy_errors)
            raise pytest.UsageError(f"oracle-gate freeze policy error(s):\n  {lines}")
        cov = _current_coverage()
        self.core = _core_name(cov) if cov is not None else None
        if self.collector is not None:
            from oracle_gate.maps.inside.plugin_guard import report_tampering

            self.collector.check_armed("the first test")
            report_tampering(self, session)
        if self.settings.contexts and self.core == "SysMonitor":
            raise pytest.UsageError(
                "oracle-gate: --oracle-contexts: coverage.py runs on sys.monitoring, which cannot switch "
                "contexts per test; set COVERAGE_CORE=ctrace"
            )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Each collected module is a boundary: a module that switches the collector off at import is
        named."""
        if self.collector is not None:
            self.collector.check(f"collecting {report.nodeid or 'the session'}")

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """v2: note frozen tests deselected by anything (``-k``, ``-m``, a plugin), so the map's
        manifest can say the frozen test did not run."""
        if self.freeze is not None:
            self.frozen_deselected += [i.nodeid for i in items if self.freeze.frozen_by(i.nodeid)]

    # -- running ------------------------------------------------------------------------------------------

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """After a test's teardown: the coverage.py path's last boundary of the test."""
        if self.settings.map_mode and self.collector is None:
            from oracle_gate.maps.inside.plugin_guard import guard_measurement

            guard_measurement(self, None, nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.outcome_log.add(report)
        if report.failed and report.nodeid not in self.failed:
            self.failed.append(report.nodeid)
        if report.when == "teardown" and report.nodeid not in self.finished:
            self.finished.add(report.nodeid)
            outcome = "failed" if report.nodeid in self.failed else "done"
            self._emit({"event": "test", "nodeid": report.nodeid, "outcome": outcome}, batch=True)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._switch(item, "setup")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        self._switch(item, "run")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> None:
        self._switch(item, "teardown")

    def _switch(self, item: pytest.Item, phase: str) -> None:
        if self.settings.map_mode:
            from oracle_gate.maps.inside.plugin_guard import guard_measurement, no_cover, report_tampering

            guard_measurement(self, item, phase)
        if self.collector is not None:
            self.collector.switch(f"{item.nodeid}|{phase}")
            self.collector.paused = phase == "run" and no_cover(item)
            report_tampering(self, item.session)
        if self.settings.contexts:
            cov = _current_coverage()
            if cov is not None:
                cov.switch_context(f"{item.nodeid}|{phase}")

    # -- pytest-xdist (the controller) ---------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """A worker's collection (after its shard and freeze filters): every worker collects the same."""
        if self.selected:
            return
        self.selected = len(ids)
        frozen = sum(1 for nodeid in ids if self.freeze is not None and self.freeze.frozen_by(nodeid))
        self._emit({"event": "collected", "tests": self.selected, "frozen": frozen})

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        output = getattr(node, "workeroutput", None) or {}
        if isinstance(output.get(WORKER_OUTPUT), dict):
            self.workers.append(output[WORKER_OUTPUT])

    def _worker_results(self) -> None:
        """The controller takes over what its workers saw: frozen tests, filters, coverage's core."""
        seen = {f.nodeid for f in self.frozen}
        for result in self.workers:
            for nodeid, entry, reason in result.get("frozen", []):
                if nodeid not in seen:
                    seen.add(nodeid)
                    self.frozen.append(Frozen(nodeid, entry, reason))
            self.frozen_deselected += [
                t for t in result.get("frozen_deselected", []) if t not in self.frozen_deselected
            ]
            self.shard_deselected = max(self.shard_deselected, int(result.get("shard_deselected", 0)))
            self.core = self.core or result.get("coverage_core")
            self.seals += [dict(seal) for seal in result.get("seals") or [] if isinstance(seal, dict)]
            # v2 2.1: what the workers registered (their conftests, a test module's pytest_plugins)
            self.plugins_collected = _plugins_union(self.plugins_collected, result.get("plugins") or [])
        self.frozen.sort(key=lambda f: f.nodeid)

    def _collector_fields(self) -> dict[str, Any]:
        fields = _collector_fields(self.collector)
        reported = [r["collector"] for r in self.workers if isinstance(r.get("collector"), dict)]
        if self.controller and reported:
            # The workers measured; the controller did not. Re-arming "fired" only if it did in all.
            fields = dict(reported[0])
            rearms = {r.get("rearm") for r in reported}
            fields["rearm"] = rearms.pop() if len(rearms) == 1 else "restart_events"
        return fields

    # -- the end ------------------------------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.collector is not None:
            from oracle_gate.maps.inside.plugin_guard import report_tampering

            self.collector.stop()
            report_tampering(self, session)
            self._seal()
        if self.worker:
            self._send_to_controller()
            return
        if self.controller:
            self._worker_results()
        if self.seal_pipe is not None and self.seals:
            from oracle_gate.maps.inside.seal import ENV_SEAL, send_seals

            send_seals(self.seals, {ENV_SEAL: self.seal_pipe})
        self._emit(
            {
                **self._collector_fields(),
                "event": "finish",
                "exit_status": int(exitstatus),
                "tests": self.selected,
                "frozen": [f.nodeid for f in self.frozen],
                "frozen_deselected": self.frozen_deselected if self.settings.map_mode else [],
                "ran": sorted(self.finished),
                "failed": self.failed,
                "shard": list(self.settings.shard) if self.settings.shard else None,
                "coverage_version": _coverage_version(),
                "coverage_core": self.core,
                "seconds": round(time.monotonic() - self.started, 3),
                **_run_facts(self),
            }
        )

    def _seal(self) -> None:
        """v2 2.5: the collector has closed its file; its digest now, before any later code runs."""
        from oracle_gate.maps.inside.seal import collector_seal

        seal = collector_seal(self.collector)
        if seal is not None:
            self.seals.append(seal)

    def _send_to_controller(self) -> None:
        """An xdist worker's results, which only it knows, for the controller's finish event."""
        output: dict[str, Any] = getattr(self.config, "workeroutput", {})
        output[WORKER_OUTPUT] = {
            "frozen": [[f.nodeid, f.entry, f.reason] for f in self.frozen],
            "frozen_deselected": self.frozen_deselected if self.settings.map_mode else [],
            "shard_deselected": self.shard_deselected,
            "coverage_core": self.core,
            "collector": _collector_fields(self.collector) if self.collector is not None else None,
            "seals": self.seals,
            "plugins": _plugins_union(self.plugins_collected, _plugins_now(self.config)),
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        if self.settings.shard is not None:
            index, total = self.settings.shard
            terminalreporter.section("oracle-gate shard", sep="-")
            write(
                f"shard {index}/{total}: {self.selected} test(s) selected, {self.shard_deselected} "
                "in other shards (split by a hash of the test file)"
            )
        if self.freeze is not None and (self.frozen or self.freeze.problems):
            terminalreporter.section("oracle-gate freeze", sep="-")
            verb = "run for the coverage map" if self.settings.map_mode else "deselected"
            write(f"{len(self.frozen)} frozen test(s) {verb} ({self.settings.freeze_source}):")
            for f in self.frozen:
                via = "" if f.entry == f.nodeid else f" (by {f.entry})"
                write(f"  {f.nodeid}{via}: {f.reason}")
            for problem in self.freeze.problems:
                write(f"  warning: {problem}")

    def _emit(self, event: dict[str, Any], *, batch: bool = False) -> None:
        """Append ``event`` to the report; a ``batch`` event (a finished test) may wait for the next
        write, at most :data:`PROGRESS_SECONDS`; every other event writes what waits before it."""
        # Under pytest-xdist only the controller reports: its workers' results reach it anyway. A
        # policy error stops a worker before the controller learns of it, so the workers write that, and
        # the measurement switched off in a worker, which only that worker can see.
        if self.settings.report is None or (self.worker and event.get("event") not in WORKER_EVENTS):
            return
        self.pending.append(json.dumps(event, sort_keys=True) + "\n")
        now = time.monotonic()
        if batch and now < self.write_at:
            return
        lines, self.pending, self.write_at = "".join(self.pending), [], now + PROGRESS_SECONDS
        with self.settings.report.open("a", encoding="utf-8") as handle:
            handle.write(lines)


def is_xdist_controller(config: pytest.Config) -> bool:
    """pytest-xdist distributes this session (as its ``_is_distribution_mode``, after its
    ``pytest_cmdline_main`` turned ``-n N`` into ``dist``/``tx``), and this process is the controller."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return False
    if config.getoption("collectonly", False):
        return False
    return config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))


def _start_collector(plugin: OracleGate) -> Any:
    """The gate's collector when ``map`` asked for one (``sysmon``: :mod:`oracle_gate.maps.inside.collector`;
    ``settrace``: :mod:`oracle_gate.maps.inside.trace_collector`), else None.

    The xdist controller runs no test: it only checks that the collector may run (so a refusal falls
    back to coverage.py before any worker starts) and leaves measuring to its workers."""
    if os.environ.get(ENV_COLLECTOR) not in GATE_COLLECTORS:
        return None  # coverage.py measures: the collector's module is not even imported
    from oracle_gate.maps.inside.collector import start_from_environment

    # The working directory, not pytest's rootdir: ``map`` runs the command at the top of the worktree,
    # whose paths the map is relative to, and coverage.py reads its configuration from there too.
    started = start_from_environment(Path.cwd(), start=not plugin.controller)
    if isinstance(started, str):
        plugin._emit({"event": "collector_refused", "reason": started})
        name = os.environ.get(ENV_COLLECTOR)
        raise pytest.UsageError(f"oracle-gate: the {name} collector cannot run: {started}")
    return started


def _take_seal_pipe() -> str | None:
    """``map``'s seal pipe (v2 2.5), taken out of the environment the tests see."""
    from oracle_gate.maps.inside.seal import ENV_SEAL

    return os.environ.pop(ENV_SEAL, None)


def _outcome_log() -> Any:
    from oracle_gate.maps.inside.outcomes import OutcomeLog

    return OutcomeLog()


def _run_facts(plugin: OracleGate) -> dict[str, Any]:
    """Issue 20: per-test outcomes, the loaded plugin set and the Python version, for the manifest."""
    from oracle_gate.maps.inside.outcomes import (
        PLUGIN_ORIGINS,
        PLUGIN_ORIGINS_KEY,
        PLUGINS_KEY,
        PYTHON_KEY,
        loaded_plugins,
        plugins_union,
        python_version,
    )

    return {
        **plugin.outcome_log.document(),
        PLUGINS_KEY: plugins_union(plugin.plugins_collected, loaded_plugins(plugin.config)),
        PLUGIN_ORIGINS_KEY: PLUGIN_ORIGINS,
        PYTHON_KEY: python_version(),
    }


def _plugins_union(*sets: Any) -> list[dict[str, str | None]]:
    from oracle_gate.maps.inside.outcomes import plugins_union

    return plugins_union(*sets)


def _plugins_now(config: pytest.Config) -> list[dict[str, str | None]]:
    from oracle_gate.maps.inside.outcomes import loaded_plugins

    return loaded_plugins(config)


def _collector_fields(collector: Any) -> dict[str, Any]:
    """The finish event's collector fields. On the coverage.py path the collector's module is not
    imported for them: every module of the gate imported in the tests' process is assertion-rewritten
    by pytest (the gate is a ``pytest11`` plugin), from source wherever no bytecode is cached."""
    if collector is None:
        python = ".".join(map(str, sys.version_info[:3]))
        return {"collector": COVERAGE_COLLECTOR, "python": python, "rearm": None}
    from oracle_gate.maps.inside.collector import collector_report

    return collector_report(collector)


def _current_coverage() -> Any:
    try:
        from coverage import Coverage
    except ImportError:  # pragma: no cover - coverage is a dependency of the package
        return None
    return Coverage.current()


def _core_name(cov: Any) -> str | None:
    for key, value in cov.sys_info():
        if key == "core":
            return str(value)
    return None


def _coverage_version() -> str | None:
    try:
        from coverage import __version__
    except ImportError:  # pragma: no cover
        return None
    return str(__version__)
