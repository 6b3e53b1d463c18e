"""Running the test command for a map: the child's environment, progress from the plugin's report,
the tail of its output.

The command runs with ``COVERAGE_CORE=ctrace``: on Python 3.14+ coverage.py would otherwise pick
``sysmon``, which cannot switch contexts per test and silently records incomplete per-test data.
The package's pytest plugin (:mod:`oracle_gate.maps.inside.pytest_plugin`) is told through ``ORACLE_GATE_*``
variables that it runs for a map, and reports progress and the final counts through a JSON-lines file
(:class:`RunReport`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle_gate.maps.inside.pipe import PipeReader
from oracle_gate.maps.inside.seal import ENV_SEAL
from oracle_gate.maps.inside.shards import (
    ENV_COLLECTOR,
    ENV_DATA,
    ENV_FREEZE,
    ENV_MAP,
    ENV_REPORT,
    ENV_SHARD,
    GATE_COLLECTORS,
)
from oracle_gate.maps.mapfile import MapError
from oracle_gate.maps.pytest_options import NEUTRAL

DEFAULT_COMMAND = ("python", "-m", "pytest", "-q", *NEUTRAL, "--cov", "--cov-context=test")
# pytest-cov's terminal report is not needed for a map and costs a pass over every measured file.
DEFAULT_REPORT_OFF = ("--cov-report=",)
TAIL_LINES = 30
REPORT_FILE = "report.jsonl"  # in the scratch directory: the plugin's JSON-lines report
DATA_DIR = "data"  # in the scratch directory: where the run writes its coverage data
RAW_NAME = "raw.coverage"  # in DATA_DIR: the run's data file(s), ``raw.coverage[.suffix]``
# In the scratch directory: where a coverage.py running beside the gate's collector (pytest-cov from
# the project's addopts) writes. Never read: the map is the collector's, and pytest-cov combines (and
# deletes) every file named like its own data file, so the collector's must not be named like it.
BESIDE_DIR = "coverage-beside"

Progress = Callable[[int, int | None, float], None]  # (tests done, tests selected or None, seconds)


def default_command(python: str = sys.executable) -> list[str]:
    """The default test command, run by ``python`` (the interpreter the gate runs under)."""
    return [python, *DEFAULT_COMMAND[1:], *DEFAULT_REPORT_OFF]


@dataclass
class RunReport:
    """What the pytest plugin reported through its JSON-lines file."""

    selected: int | None = None
    done: int = 0
    finish: dict[str, Any] | None = None
    policy_errors: list[str] = field(default_factory=list)
    started: bool = False  # the plugin wrote its ``start`` event: it was loaded, and enabled
    refused: str | None = None  # why the plugin refused the sys.monitoring collector, if it did
    tampered: str | None = None  # what switched the measurement off, and while which test ran
    _offset: int = 0

    def poll(self, path: Path) -> None:
        try:
            with path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except FileNotFoundError:
            return
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._offset += len(complete)
        for line in complete.decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            kind = event.get("event")
            if kind == "start":
                self.started = True
            elif kind == "collected":
                self.selected = int(event.get("tests", 0))
            elif kind == "test":
                self.done += 1
            elif kind == "policy_error":
                # Under pytest-xdist every worker reports the same errors: each is kept once.
                self.policy_errors += [
                    e for e in map(str, event.get("errors", [])) if e not in self.policy_errors
                ]
            elif kind == "finish":
                self.finish = event
            elif kind == "collector_refused":
                self.refused = str(event.get("reason", ""))
            elif kind == "collector_tampered" and self.tampered is None:
                self.tampered = str(event.get("reason", "")) or "(no reason given)"


@dataclass(frozen=True)
class Run:
    """A finished run of the test command."""

    exit_status: int
    report: RunReport
    tail: str
    seals: bytes | None = None  # v2 2.5: what the collector sealed (None: the pipe never closed)

    @property
    def finish(self) -> dict[str, Any]:
        return self.report.finish or {}


@dataclass(frozen=True)
class Runner:
    """Runs the test command in a worktree, polling the plugin's report for progress."""

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    scratch: Path
    show_output: bool
    progress: Progress | None
    poll_seconds: float

    def run(self) -> Run:
        """Run the command in the worktree; its output goes to a log unless shown."""
        report_path, log_path = self.scratch / REPORT_FILE, self.scratch / "output.log"
        (self.scratch / DATA_DIR).mkdir(exist_ok=True)
        report = RunReport()
        started = time.monotonic()
        read_end, write_end = os.pipe()  # v2 2.5: the collector's seals (the write end: the child's only)
        with log_path.open("wb") as log:
            try:
                proc = subprocess.Popen(
                    list(self.argv),
                    cwd=self.cwd,
                    env={**self.env, ENV_SEAL: str(write_end)},
                    stdin=subprocess.DEVNULL,
                    stdout=None if self.show_output else log,
                    stderr=None if self.show_output else subprocess.STDOUT,
                    pass_fds=(write_end,),
                )
            except OSError as exc:
                os.close(read_end)
                raise MapError(
                    f"cannot run the test command {self.argv[0]!r}: {exc.strerror or exc}"
                ) from exc
            finally:
                os.close(write_end)
            seals = PipeReader(read_end, "oracle-gate-map-seals")
            exited = _exit_event(proc)
            try:
                while not exited.wait(self.poll_seconds):
                    if self.progress is not None:
                        report.poll(report_path)
                        self.progress(report.done, report.selected, time.monotonic() - started)
            except BaseException:
                proc.kill()
                proc.wait()
                raise
        report.poll(report_path)
        return Run(proc.returncode, report, _tail(log_path), seals.data())


def _exit_event(proc: subprocess.Popen[bytes]) -> threading.Event:
    """Set when ``proc`` has exited. A thread waits for it, blocked: ``Popen.wait(timeout)`` polls
    with sleeps of up to 50 ms (some 25 wake-ups a second for the whole run), this wakes once."""
    exited = threading.Event()

    def wait() -> None:
        proc.wait()
        exited.set()

    threading.Thread(target=wait, name="oracle-gate-map-wait", daemon=True).start()
    return exited


def child_env(data_file: Path, report: Path, shard: tuple[int, int] | None) -> dict[str, str]:
    """The caller's environment, plus what makes the run write a map and talk to the plugin."""
    env = {k: v for k, v in os.environ.items() if k not in (ENV_FREEZE, ENV_SHARD, "COVERAGE_FILE")}
    env.update(
        {"COVERAGE_FILE": str(data_file), "COVERAGE_CORE": "ctrace", ENV_MAP: "1", ENV_REPORT: str(report)}
    )
    if shard is not None:
        env[ENV_SHARD] = f"{shard[0]}/{shard[1]}"
    return env


def measurer_env(env: Mapping[str, str], scratch: Path, collector: str) -> dict[str, str]:
    """``env`` for a run whose data goes to ``scratch``: coverage.py (pytest-cov) writes the map's data
    there when it measures; when the gate's collector measures, the collector writes it
    (``ORACLE_GATE_DATA``) and a coverage.py beside it writes elsewhere, out of the map."""
    raw = scratch / DATA_DIR / RAW_NAME
    out = {**env, ENV_COLLECTOR: collector, ENV_DATA: str(raw), "COVERAGE_FILE": str(raw)}
    if collector in GATE_COLLECTORS:
        beside = scratch / BESIDE_DIR
        beside.mkdir(exist_ok=True)
        out["COVERAGE_FILE"] = str(beside / ".coverage")
    return out


def _tail(log_path: Path) -> str:
    try:
        lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-TAIL_LINES:])
