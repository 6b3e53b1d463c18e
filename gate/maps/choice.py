"""Which collector measures a map: one of the gate's own or coverage.py (through pytest-cov).

The gate's collectors run pytest without pytest-cov and write the map themselves: on CPython 3.12+
the ``sys.monitoring`` collector (:mod:`oracle_gate.maps.inside.collector`), before that coverage.py's C
tracer driven by the gate (:mod:`oracle_gate.maps.inside.trace_collector`). They run for the default command
and for a user's pytest command that does not measure itself. coverage.py (through pytest-cov,
``COVERAGE_CORE=ctrace``) measures for a user's command that passes ``--cov`` or runs ``coverage``
(``-m coverage`` too), and for projects whose coverage configuration needs coverage.py's machinery
(plugins, subprocess or multiprocessing measurement, greenlets on 3.11): the plugin refuses the
collector for those before collection and ``map`` runs the coverage.py command instead, saying why.
``ORACLE_GATE_COLLECTOR=coverage.py`` in the gate's environment asks for coverage.py anyway.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from oracle_gate.maps.inside.shards import (
    COLLECTOR_NAME,
    COVERAGE_COLLECTOR,
    ENV_COLLECTOR,
    GATE_COLLECTORS,
    TRACE_COLLECTOR,
)
from oracle_gate.maps.layout import with_interpreter
from oracle_gate.maps.pytest_options import NEUTRAL
from oracle_gate.maps.runner import default_command

COLLECTORS = (*GATE_COLLECTORS, COVERAGE_COLLECTOR)


def chosen_collector(command: Sequence[str] | None, env: Mapping[str, str] = os.environ) -> str:
    """The gate's collector (``"sysmon"`` on 3.12+, ``"settrace"`` before) for the default command and
    for a user's command that does not measure itself (no ``--cov``, no ``coverage``), unless
    ``ORACLE_GATE_COLLECTOR`` names another; else coverage.py."""
    asked = env.get(ENV_COLLECTOR)
    if asked == COVERAGE_COLLECTOR:
        return COVERAGE_COLLECTOR
    if command and measures_itself(command):
        return COVERAGE_COLLECTOR
    if asked in GATE_COLLECTORS:
        return str(asked)  # sysmon before 3.12: the plugin refuses it, and coverage.py measures
    return COLLECTOR_NAME if sys.version_info >= (3, 12) else TRACE_COLLECTOR


def coverage_py_reason(command: Sequence[str] | None, env: Mapping[str, str] = os.environ) -> str | None:
    """Why coverage.py, not the collector, measures (one clause for ``map`` to print), or None."""
    if env.get(ENV_COLLECTOR) == COVERAGE_COLLECTOR:
        return f"{ENV_COLLECTOR}=coverage.py asks for it"
    if command and measures_itself(command):
        return "the test command measures coverage itself (--cov or coverage)"
    return None


def measures_itself(command: Sequence[str]) -> bool:
    """The command runs coverage.py itself: pytest-cov's ``--cov``, or ``coverage run``, also inside a
    shell string (``sh -c '... pytest --cov=pkg'``: every word of every argument is looked at)."""
    words = (word for arg in command for word in arg.split())
    return any(word.startswith("--cov") or os.path.basename(word) == "coverage" for word in words)


def sysmon_command(python: str = sys.executable) -> list[str]:
    """The default command when one of the gate's collectors measures: plain pytest, no pytest-cov."""
    return [python, "-m", "pytest", "-q", *NEUTRAL]


def map_command(command: Sequence[str] | None, collector: str) -> list[str]:
    """The user's command (a bare ``python`` in it the gate's), else the default for the collector."""
    if command:
        return with_interpreter(command)
    return sysmon_command() if collector in GATE_COLLECTORS else default_command()


def collector_fields(finish: Mapping[str, Any], chosen: str) -> dict[str, Any]:
    """The manifest's ``collector`` and ``python``: what the plugin reported, else what was chosen."""
    return {
        "collector": str(finish.get("collector") or chosen),
        "python": finish.get("python"),
        "collector_rearm": finish.get("rearm"),
    }
