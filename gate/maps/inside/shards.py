"""What ``oracle-gate map`` and its pytest plugin agree on: shards and the ``ORACLE_GATE_*`` variables.

Kept apart (standard library only) so that neither side imports the other:
the plugin must stay inert and cheap, and ``map`` must run without pytest.
"""

from __future__ import annotations

import hashlib

ENV_MAP = "ORACLE_GATE_MAP"  # "1": the run measures a map, so frozen tests run
ENV_FREEZE = "ORACLE_GATE_FREEZE"  # the parent's freeze manifest (absolute path)
ENV_SHARD = "ORACLE_GATE_SHARD"  # "I/N"
ENV_REPORT = "ORACLE_GATE_REPORT"  # JSON-lines file: collected, one line per test, finish
# As named in oracle_gate.maps.inside.collector (a test checks), for the plugin not to import that module
# on the coverage.py path:
COVERAGE_COLLECTOR = "coverage.py"  # the manifest's ``collector`` when coverage.py measured
COLLECTOR_NAME = "sysmon"  # ... when the sys.monitoring collector measured (3.12+)
TRACE_COLLECTOR = "settrace"  # ... when the gate drove coverage.py's C tracer (3.11)
GATE_COLLECTORS = (COLLECTOR_NAME, TRACE_COLLECTOR)  # the gate's own collectors: no pytest-cov
ENV_COLLECTOR = "ORACLE_GATE_COLLECTOR"  # set by ``map``: which one measures
# The gate's collector's data file (it adds ``.<pid>``). Not ``COVERAGE_FILE``: a pytest-cov run from
# the project's ``addopts`` beside the collector combines and deletes every ``COVERAGE_FILE.*`` at the
# end of the session, the collector's file among them, before the collector's last write (issue 28).
ENV_DATA = "ORACLE_GATE_DATA"


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` as ``(I, N)`` with ``1 <= I <= N``; ValueError otherwise."""
    index, sep, total = text.strip().partition("/")
    if not sep or not (index + total).isascii() or not index.isdigit() or not total.isdigit():
        raise ValueError(f"shard {text!r} is not of the form I/N (e.g. 1/4)")
    i, n = int(index), int(total)
    if not 1 <= i <= n:
        raise ValueError(f"shard {text!r}: I must be between 1 and N")
    return i, n


def shard_of(nodeid: str, total: int) -> int:
    """The 1-based shard of a test: a hash of its file part, so a whole file lands in one shard."""
    file_part = nodeid.split("::", 1)[0]
    return int(hashlib.sha256(file_part.encode("utf-8")).hexdigest()[:12], 16) % total + 1
