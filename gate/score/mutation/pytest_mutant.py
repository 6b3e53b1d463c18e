"""The pytest plugin of one mutant's run, loaded by ``-p oracle_gate.score.mutation.pytest_mutant``.

``ORACLE_GATE_MUTANT`` holds ``{"file": absolute path, "path": repository path, "line": n,
"ordinal": k, "report": path}``. At import (before conftests and collection) a finder goes first
on ``sys.meta_path``: the one module whose file is ``file`` is loaded from the mutant's code
(:func:`oracle_gate.score.mutation.mutants.mutated_code`, compiled, no bytecode written); every
other module as usual. ``random`` is seeded per test as in the scoring runs. The report is JSON
lines: ``collected`` when collection ends (the runner's time limit starts then), ``finish`` with
the outcomes, whether the mutated module was loaded, and pytest's exit status.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

import pytest

from oracle_gate.maps.inside.outcomes import OutcomeLog
from oracle_gate.score.mutation.settings import ENV_MUTANT


class MutantLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, code: CodeType, finder: MutantFinder) -> None:
        super().__init__(fullname, path)
        self._code, self._finder = code, finder

    def get_code(self, fullname: str) -> CodeType:
        self._finder.loaded = True
        return self._code


class MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, file: str, line: int, ordinal: int) -> None:
        self.file, self.line, self.ordinal = os.path.realpath(file), line, ordinal
        self.loaded = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.origin is None or os.path.realpath(spec.origin) != self.file:
            return None
        from oracle_gate.score.mutation.mutants import mutated_code

        source = Path(self.file).read_text("utf-8")
        code = mutated_code(source, spec.origin, self.line, self.ordinal)
        spec.loader = MutantLoader(fullname, spec.origin, code, self)
        return spec


class MutantPlugin:
    def __init__(self, finder: MutantFinder, report: Path) -> None:
        self.finder, self.report = finder, report
        self.log = OutcomeLog()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._emit({"event": "collected", "tests": len(session.items)})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        random.seed(int.from_bytes(hashlib.sha256(item.nodeid.encode("utf-8")).digest()[:8], "big"))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.log.add(report)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        event = {"event": "finish", "exit_status": int(exitstatus), "loaded": self.finder.loaded}
        self._emit({**event, **self.log.document()})

    def _emit(self, event: dict[str, Any]) -> None:
        with self.report.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(event, sort_keys=True) + "\n")


_STATE: list[tuple[MutantFinder, Path]] = []


def _install() -> None:
    spec = json.loads(os.environ.pop(ENV_MUTANT))
    finder = MutantFinder(str(spec["file"]), int(spec["line"]), int(spec["ordinal"]))
    sys.meta_path.insert(0, finder)
    _STATE.append((finder, Path(spec["report"])))
    for path in (Path.cwd(), Path.cwd() / "src"):  # as the scoring runs do (python -P)
        if path.is_dir() and str(path) not in sys.path:
            sys.path.append(str(path))


def pytest_configure(config: pytest.Config) -> None:
    if _STATE:
        finder, report = _STATE[0]
        config.pluginmanager.register(MutantPlugin(finder, report), "oracle_gate_mutant-session")


if os.environ.get(ENV_MUTANT):
    _install()
