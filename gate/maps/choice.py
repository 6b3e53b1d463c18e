"""Which collector measures a map: the gate's ``sys.monitoring`` collector or coverage.py.

The collector (:mod:`oracle_gate.maps.collector`) runs on CPython 3.12+ for the default command and for a
user's pytest command that does not measure itself; coverage.py (through pytest-cov,
``COVERAGE_CORE=ctrace``) stays for Python 3.11, for a user's command that passes ``--cov`` or runs
``coverage`` (``-m coverage`` too), and for projects whose coverage configuration needs
coverage.py's machinery (plugins, subprocess or multiprocessing measurement): the plugin refuses the
collector for those before collection and ``map`` runs the coverage.py command instead.
``ORACLE_GATE_COLLECTOR=coverage.py`` in the gate's environment asks for coverage.py anyway.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from oracle_gate.maps.layout import with_interpreter
from oracle_gate.maps.runner import default_command
from oracle_gate.maps.shards import COLLECTOR_NAME, COVERAGE_COLLECTOR, ENV_COLLECTOR

COLLECTORS = (COLLECTOR_NAME, COVERAGE_COLLECTOR)


def chosen_collector(command: Sequence[str] | None, env: Mapping[str, str] = os.environ) -> str:
    """``"sysmon"`` on 3.12+ for the default command and for a user's command that does not measure
    itself (no ``--cov``, no ``coverage``), unless coverage.py is asked for; else coverage.py."""
    if env.get(ENV_COLLECTOR) == COVERAGE_COLLECTOR or sys.version_info < (3, 12):
        return COVERAGE_COLLECTOR
    if command and measures_itself(command):
        return COVERAGE_COLLECTOR
    return COLLECTOR_NAME


def coverage_py_reason(command: Sequence[str] | None, env: Mapping[str, str] = os.environ) -> str | None:
    """Why coverage.py, not the collector, measures (one clause for ``map`` to print), or None."""
    if env.get(ENV_COLLECTOR) == COVERAGE_COLLECTOR:
        return f"{ENV_COLLECTOR}=coverage.py asks for it"
    if sys.version_info < (3, 12):
        version = ".".join(map(str, sys.version_info[:3]))
        return f"the sys.monitoring collector needs Python 3.12+, this is {version}"
    if command and measures_itself(command):
        return "the test command measures coverage itself (--cov or coverage)"
    return None


def measures_itself(command: Sequence[str]) -> bool:
    """The command runs coverage.py itself: pytest-cov's ``--cov``, or ``coverage run``."""
    return any(arg.startswith("--cov") or os.path.basename(arg) == "coverage" for arg in command)


def sysmon_command(python: str = sys.executable) -> list[str]:
    """The default command when the collector measures: plain pytest, no pytest-cov."""
    return [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


def map_command(command: Sequence[str] | None, collector: str) -> list[str]:
    """The user's command (a bare ``python`` in it the gate's), else the default for the collector."""
    if command:
        return with_interpreter(command)
    return sysmon_command() if collector == COLLECTOR_NAME else default_command()


def collector_fields(finish: Mapping[str, Any], chosen: str) -> dict[str, Any]:
    """The manifest's ``collector`` and ``python``: what the plugin reported, else what was chosen."""
    return {
        "collector": str(finish.get("collector") or chosen),
        "python": finish.get("python"),
        "collector_rearm": finish.get("rearm"),
    }
