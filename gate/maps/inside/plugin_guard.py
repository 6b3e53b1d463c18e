"""The pytest plugin's side of a tamper-proof map (:mod:`oracle_gate.maps.inside.guard`) and of pytest-cov's
``no_cover``: kept apart from :mod:`oracle_gate.maps.inside.pytest_plugin`, which calls these at every
boundary.

``guard_measurement`` runs at every test phase and after each test's teardown
(``pytest_runtest_logfinish``: pytest-cov stops coverage.py before ``pytest_sessionfinish``).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from oracle_gate.maps.inside.guard import coverage_tracer_problem


def no_cover(item: pytest.Item) -> bool:
    """pytest-cov's ``no_cover`` (marker or fixture): coverage.py does not measure the test's call."""
    return item.get_closest_marker("no_cover") is not None or "no_cover" in getattr(item, "fixturenames", ())


def report_tampering(plugin: Any, session: pytest.Session) -> None:
    """Once the collector found itself switched off: say so in the report (``map`` then makes no map)
    and stop the session, since nothing it measures from here on can be trusted."""
    collector = plugin.collector
    reason = getattr(collector, "tampered", None)
    if reason is None or plugin.tamper_reported:
        return
    plugin.tamper_reported = True
    plugin._emit({"event": "collector_tampered", "reason": reason})
    session.shouldstop = f"oracle-gate: the map's measurement was switched off: {reason}"


def guard_measurement(plugin: Any, item: pytest.Item | None, phase: str) -> None:
    """The coverage.py path: at each boundary the trace function must still be coverage.py's (the
    collector's path checks its own ``sys.monitoring`` registration, :meth:`LineCollector.check`).
    Run four times a test: what is only needed to explain a problem is computed only then."""
    ran = plugin.last_phase
    if item is not None:
        plugin.last_phase = f"{item.nodeid}|{phase}"
    if plugin.collector is not None or plugin.controller or plugin.tamper_reported:
        return
    if plugin.core not in ("CTracer", "PyTracer"):
        return  # not measuring by tracing
    problem = coverage_tracer_problem(_current_coverage())
    if problem is None or (item is not None and phase == "run" and no_cover(item)):
        return  # coverage.py's tracer; or pytest-cov paused coverage.py for this call (no_cover)
    plugin.tamper_reported = True
    running = f"test {ran}" if ran else "start-up or collection"
    plugin._emit({"event": "collector_tampered", "reason": f"{problem} while {running} ran"})
    if item is not None:
        item.session.shouldstop = f"oracle-gate: the map's measurement was switched off: {problem}"


def _current_coverage() -> Any:
    """``Coverage.current()``; coverage.py is imported at the first check (the collector's path, which
    never checks this, does not import it at all)."""
    return _coverage_class().current()


@functools.cache
def _coverage_class() -> Any:
    from coverage import Coverage

    return Coverage
