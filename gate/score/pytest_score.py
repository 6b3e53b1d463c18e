"""The scoring run's pytest plugin, loaded by ``-p oracle_gate.score.pytest_score`` (never autoloaded).

``oracle-gate score`` runs head's tests through it twice (:mod:`oracle_gate.score.run`). It is configured
by ``ORACLE_GATE_SCORE_*`` variables only, and does what SCORING.md's Procedure 2-3 asks inside the
run itself, so one pytest process is one run:

* the parent's freeze is a collection filter (the last word on the item list); a frozen test still
  collected afterwards, or a frozen parametrized test collected under a new id
  (:func:`oracle_gate.score.decide.parametrization_leaks`), stops the session before any test runs;
* harness tests run first; when one fails, the session stops before the first tree test;
* the second run reverses the order within each file (files keep their order);
* ``random`` is seeded per test from a digest of its id (``PYTHONHASHSEED``, ``TZ``, ``LC_ALL`` are
  the runner's environment);
* it writes JSON lines (``start``, ``collected``, ``test``, ``finish``) to the report file, the
  ``finish`` event carrying every outcome, skip reason and the loaded plugin set.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.maps.inside.outcomes import (
    PLUGIN_ORIGINS,
    PLUGIN_ORIGINS_KEY,
    OutcomeLog,
    loaded_plugins,
    plugins_union,
    python_version,
)
from oracle_gate.score.mutation.settings import ENV_LINES
from oracle_gate.score.settings import (
    ENV_FREEZE,
    ENV_HARNESS,
    ENV_PARENT_IDS,
    ENV_REPORT,
    ENV_REVERSE,
    ENV_WATCH_EXCLUDE,
    PLUGIN_MODULE,
)


class ScorePlugin:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.report = Path(os.environ[ENV_REPORT])
        self.freeze = _load_freeze(os.environ.get(ENV_FREEZE))
        ids_file = os.environ.get(ENV_PARENT_IDS)
        self.parent_ids: list[str] = json.loads(Path(ids_file).read_text("utf-8")) if ids_file else []
        self.harness_globs = _globs(json.loads(os.environ.get(ENV_HARNESS, "[]") or "[]"))
        self.reverse = os.environ.get(ENV_REVERSE) == "1"
        self.log = OutcomeLog()
        self.harness: set[str] = set()
        self.collected: list[str] = []
        self.before_filter: list[str] = []  # collected, before the freeze filter
        self.leaked: list[str] = []
        self.harness_failed = False
        self.stopped = False
        self.plugins_collected: list[dict[str, str | None]] = []  # the plugin set at the end of collection
        self._handle: Any = None
        self._emit({"event": "start", "pid": os.getpid()})

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        # The outermost wrapper: its code after ``yield`` runs after every other implementation.
        yield
        self.before_filter = [i.nodeid for i in items]
        if self.freeze is not None:
            keep = [i for i in items if self.freeze.frozen_by(i.nodeid) is None]
            dropped = [i for i in items if self.freeze.frozen_by(i.nodeid) is not None]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = keep
        self.harness = {i.nodeid for i in items if _is_harness(i.nodeid, self.harness_globs)}
        items[:] = ordered(items, self.harness, reverse=self.reverse)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from oracle_gate.score.decide import parametrization_leaks

        self.collected = [i.nodeid for i in session.items]
        self.plugins_collected = loaded_plugins(self.config, own=(PLUGIN_MODULE,))
        if WATCH is not None:
            WATCH.checkpoint("the end of collection")
        if self.freeze is not None:
            still = [t for t in self.collected if self.freeze.frozen_by(t) is not None]
            entries = [e.nodeid for e in self.freeze.entries]
            leaks = parametrization_leaks(entries, self.before_filter, self.parent_ids)
            self.leaked = sorted(set(still) | set(leaks))
        self._emit({"event": "collected", "tests": len(self.collected)})
        if self.leaked:
            self._finish(exit_status=4)
            raise pytest.UsageError(
                "oracle-gate score: frozen test(s) still collected after the freeze filter: "
                + ", ".join(self.leaked[:5])
            )

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        random.seed(int.from_bytes(hashlib.sha256(item.nodeid.encode("utf-8")).digest()[:8], "big"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, Any, Any]:
        result = yield
        if self.harness_failed and nextitem is not None and nextitem.nodeid not in self.harness:
            self.stopped = True
            item.session.shouldstop = "oracle-gate score: a harness test failed; the tree tests are not run"
        return result

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.log.add(report)
        if report.failed and report.nodeid in self.harness:
            self.harness_failed = True
        if report.when == "teardown":
            self._emit({"event": "test", "nodeid": report.nodeid})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if WATCH is not None:
            WATCH.checkpoint("the end of the session")
        self._finish(int(exitstatus))

    def _finish(self, exit_status: int) -> None:
        if self._handle is not None and self._handle.closed:
            return  # finished already (a leak stops the session before sessionfinish)
        self._emit(
            {
                "event": "finish",
                "exit_status": exit_status,
                "collected": self.collected,
                "harness": sorted(self.harness),
                "harness_stopped": self.stopped,
                "leaked": self.leaked,
                "plugins": plugins_union(
                    self.plugins_collected, loaded_plugins(self.config, own=(PLUGIN_MODULE,))
                ),
                PLUGIN_ORIGINS_KEY: PLUGIN_ORIGINS,
                "rebound": [r.document() for r in WATCH.found] if WATCH is not None else [],
                "python_version": python_version(),
                **self.log.document(),
            }
        )
        self._handle.close()

    def _emit(self, event: dict[str, Any]) -> None:
        if self._handle is None:
            self._handle = self.report.open("a", encoding="utf-8")
        self._handle.write(json.dumps(event, sort_keys=True) + "\n")
        self._handle.flush()  # the runner polls the file for progress


def ordered(items: list[pytest.Item], harness: set[str], *, reverse: bool) -> list[pytest.Item]:
    """Harness tests first, then the others; each group keeps its files in order, and with
    ``reverse`` the tests within each file run in reverse."""

    def by_file(group: list[pytest.Item]) -> list[pytest.Item]:
        files: dict[str, list[pytest.Item]] = {}
        for item in group:
            files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
        return [i for tests in files.values() for i in (reversed(tests) if reverse else tests)]

    first = [i for i in items if i.nodeid in harness]
    rest = [i for i in items if i.nodeid not in harness]
    return by_file(first) + by_file(rest)


def _globs(globs: list[str]) -> Any:
    from oracle_gate.judge.globs import GlobSet

    return GlobSet(tuple(str(g) for g in globs))


def _is_harness(nodeid: str, globs: Any) -> bool:
    return nodeid.split("::", 1)[0] in globs


def _load_freeze(path: str | None) -> Any:
    if not path:
        return None
    from oracle_gate.judge.freeze import parse_freeze

    return parse_freeze(Path(path).read_bytes(), "freeze")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(ENV_REPORT):
        from oracle_gate.score.witness import install

        install(config.pluginmanager, os.environ)  # v2 2.3: the second witness, a plugin of its own
        config.pluginmanager.register(ScorePlugin(config), "oracle_gate_score-session")
        _lines_recorder_register(config)
        for name in (ENV_REPORT, ENV_FREEZE, ENV_PARENT_IDS, ENV_HARNESS, ENV_REVERSE):
            os.environ.pop(name, None)  # out of reach of a test's ``os.environ`` and its children


def _append_checkout() -> None:
    """The runner starts Python with ``-P`` (the checkout not first on ``sys.path``): append the
    checkout and its ``src/`` at the end, before pytest loads entry points and collects."""
    for path in (Path.cwd(), Path.cwd() / "src"):
        if path.is_dir() and str(path) not in sys.path:
            sys.path.append(str(path))


def _watch_namespaces() -> Any:
    """v2 2.2: start watching the tree's modules (before any of them is imported)."""
    from oracle_gate.score.watch_namespaces import install

    globs = _globs(json.loads(os.environ.pop(ENV_WATCH_EXCLUDE, "[]") or "[]"))
    return install(Path.cwd(), lambda path: path in globs)


def _lines_recorder_register(config: pytest.Config) -> None:
    from oracle_gate.score.mutation import recorder

    recorder.register(config)


WATCH: Any = None
if os.environ.get(ENV_REPORT):
    _append_checkout()
    WATCH = _watch_namespaces()
    if os.environ.get(ENV_LINES):  # SCORING.md 2.4: trace the touched lines from before collection
        from oracle_gate.score.mutation import recorder as _recorder

        _recorder.start(os.environ.pop(ENV_LINES))
