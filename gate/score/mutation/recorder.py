"""Which live tests executed each touched line in the scoring run's first run (SCORING.md 2.4, step 2).

Loaded by the score plugin (:mod:`oracle_gate.score.pytest_score`) when ``ORACLE_GATE_SCORE_LINES``
names a JSON file ``{"lines": {absolute path: [line, ...]}, "out": path}``: :func:`start` sets a
``sys.settrace`` (and ``threading.settrace``) function before pytest loads conftests and collects,
which returns a line tracer only for frames of the watched files, so the rest of the run pays one
dictionary look-up per call. :class:`LineRecorder` knows the test running (between
``pytest_runtest_protocol``'s start and end) and writes, at the end of the session,
``{"lines": {path: {line: [test, ...]}}, "files": {path: [test, ...]}, "import": {path: [line, ...]},
"durations": {test: seconds}}``: ``import`` holds the watched lines executed outside any test
(collection, imports).

Head's code runs in this process and could stop the tracer (``sys.settrace(None)``): a line then
looks executed by no test, which the stage reports as unchecked, never as checked.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

PLUGIN_NAME = "oracle_gate_score-lines"


class LineRecorder:
    def __init__(self, watched: dict[str, set[int]], out: Path) -> None:
        self.watched = watched
        self.out = out
        # co_filename as Python may spell it (the path given, its resolved form) -> the path given
        self.alias = {name: path for path in watched for name in (path, os.path.realpath(path))}
        self.current = ""  # the test running; "" outside tests
        self.lines: dict[str, dict[int, set[str]]] = {path: {} for path in watched}
        self.files: dict[str, set[str]] = {path: set() for path in watched}
        self.durations: dict[str, float] = {}

    def trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        path = self.alias.get(frame.f_code.co_filename)
        if path is None:
            return None
        watched = self.watched[path]
        if self.current:
            self.files[path].add(self.current)
        hits = self.lines[path]

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line" and frame.f_lineno in watched:
                hits.setdefault(frame.f_lineno, set()).add(self.current)
            return local

        if event == "call" and frame.f_lineno in watched:  # a def/class body's first line
            hits.setdefault(frame.f_lineno, set()).add(self.current)
        return local

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, Any, Any]:
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            self.current = ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + float(report.duration or 0.0)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        sys.settrace(None)
        threading.settrace(None)
        self.out.write_text(json.dumps(self.document(), sort_keys=True), "utf-8")

    def document(self) -> dict[str, Any]:
        return {
            "lines": {
                path: {str(line): sorted(t for t in tests if t) for line, tests in sorted(hits.items())}
                for path, hits in self.lines.items()
            },
            "files": {path: sorted(tests) for path, tests in self.files.items()},
            "import": {
                path: sorted(line for line, tests in hits.items() if "" in tests)
                for path, hits in self.lines.items()
            },
            "durations": dict(sorted(self.durations.items())),
        }


_RECORDER: list[LineRecorder] = []


def start(spec_file: str) -> None:
    """Start tracing the files the spec names (called when the score plugin is imported)."""
    spec = json.loads(Path(spec_file).read_text("utf-8"))
    watched = {str(path): {int(n) for n in lines} for path, lines in spec["lines"].items()}
    recorder = LineRecorder(watched, Path(spec["out"]))
    _RECORDER.append(recorder)
    sys.settrace(recorder.trace)
    threading.settrace(recorder.trace)


def register(config: pytest.Config) -> None:
    """Register the started recorder's hooks (from the score plugin's ``pytest_configure``)."""
    if _RECORDER:
        config.pluginmanager.register(_RECORDER[0], PLUGIN_NAME)
