"""What the map's pytest plugin imports in the tests' process on the coverage.py path (Python 3.11).

Every module of the gate imported there is assertion-rewritten by pytest (the gate is a ``pytest11``
plugin distribution), from source wherever no rewritten bytecode is cached: the coverage.py path
must not import the ``sys.monitoring`` collector's module only to name itself in the report.
"""

from __future__ import annotations

import subprocess
import sys

from oracle_gate.maps.inside import collector, pytest_plugin, shards


def test_the_coverage_py_finish_fields_are_the_collectors_own() -> None:
    assert shards.COVERAGE_COLLECTOR == collector.COVERAGE_COLLECTOR
    assert shards.COLLECTOR_NAME == collector.COLLECTOR_NAME
    assert shards.TRACE_COLLECTOR == collector.TRACE_COLLECTOR
    assert shards.GATE_COLLECTORS == collector.GATE_COLLECTORS
    assert shards.ENV_COLLECTOR == collector.ENV_COLLECTOR
    assert pytest_plugin._collector_fields(None) == collector.collector_report(None)


def test_the_coverage_py_path_does_not_import_the_collector() -> None:
    """Starting (nothing, for coverage.py) and the finish event's fields, in a fresh interpreter."""
    probe = (
        "import os, sys\n"
        "os.environ['ORACLE_GATE_COLLECTOR'] = 'coverage.py'\n"
        "from oracle_gate.maps.inside import pytest_plugin\n"
        "class Plugin:\n"
        "    controller = False\n"
        "assert pytest_plugin._start_collector(Plugin()) is None\n"
        "pytest_plugin._collector_fields(None)\n"
        "print('oracle_gate.maps.inside.collector' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
