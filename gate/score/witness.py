"""SCORING.md v2, 2.3: the second witness of a run's outcomes, on both of its ends.

In the tests' process, :class:`Witness` is a pytest plugin of its own (not reachable through the
score plugin's recorder): it writes each test report's phase and result, the moment pytest hands
the report over, as one JSON line to a pipe whose other end is ``oracle-gate score`` itself. What
was written is in the parent process already: code of the change that later rewrites the recorder's
document (found through ``gc``), or the report file, cannot take it back.

In the ``score`` process, :class:`oracle_gate.maps.inside.pipe.PipeReader` drains the pipe in a thread, and
:func:`witnessed_outcomes` folds the lines with the recorder's own rules
(:class:`oracle_gate.maps.inside.outcomes.OutcomeLog`), so the two witnesses cannot disagree on what a
phase means, only on what happened. The comparison itself is pure:
:func:`oracle_gate.score.tampering.tampering`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

ENV_WITNESS = "ORACLE_GATE_SCORE_WITNESS"  # the write end's descriptor number, in the tests' process
WITNESS_NAME = "oracle_gate_score-witness"


class Witness:
    """The tests' side: one line per test report, written unbuffered to the pipe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.broken = False

    def pytest_runtest_logreport(self, report: Any) -> None:
        line = {
            "n": str(report.nodeid),
            "w": str(report.when),
            "p": bool(report.passed),
            "f": bool(report.failed),
            "s": bool(report.skipped),
            "x": hasattr(report, "wasxfail"),
        }
        self._write(line)

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        self._write({"exit": int(exitstatus)})

    def _write(self, line: Mapping[str, Any]) -> None:
        from oracle_gate.maps.inside.pipe import write_line

        if not write_line(self.fd, (json.dumps(line, sort_keys=True) + "\n").encode()):
            self.broken = True  # the pipe was closed under it: the parent then misses lines, and says so


def install(pluginmanager: Any, environ: dict[str, str] | Any) -> None:
    """Register the witness when ``score`` passed a pipe (and take the variable out of reach)."""
    raw = environ.pop(ENV_WITNESS, None)
    if raw is not None and raw.isdigit():
        pluginmanager.register(Witness(int(raw)), WITNESS_NAME)


def witnessed_outcomes(data: bytes) -> tuple[dict[str, str], int | None, int]:
    """The witness's outcomes, the exit status it saw, and how many lines it could not read."""
    from oracle_gate.maps.inside.outcomes import OutcomeLog
    from oracle_gate.maps.inside.pipe import json_lines

    log = OutcomeLog()
    exit_status: int | None = None
    lines, bad = json_lines(data)
    for line in lines:
        if not isinstance(line, dict):
            bad += 1
        elif "exit" in line and isinstance(line["exit"], int):
            exit_status = line["exit"] if exit_status is None else -1  # twice: not one session's
        elif isinstance(line.get("n"), str) and line.get("w") in ("setup", "call", "teardown"):
            report = SimpleNamespace(
                nodeid=line["n"],
                when=line["w"],
                passed=line.get("p") is True,
                failed=line.get("f") is True,
                skipped=line.get("s") is True,
                longrepr=None,
            )
            if line.get("x") is True:
                report.wasxfail = ""
            log.add(report)
        else:
            bad += 1
    return dict(log.outcomes), exit_status, bad
