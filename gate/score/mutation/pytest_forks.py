"""Mutants run in forks after one collection (SCORING.md 2.4, step 3: "a fork after collection").

Loaded by ``-p oracle_gate.score.mutation.pytest_forks`` in one pytest process over the union of
the mutants' tests, configured by ``ORACLE_GATE_MUTANTS`` (a JSON file: ``{"report": path, "jobs":
[{"number", "file", "line", "ordinal", "tests", "limit"}, ...]}``). It replaces the run loop: for
each job it compiles the mutant, and when the mutant changes only code inside functions (the
module's and classes' own bodies, which ran at import, unchanged), it forks; the child points every
function object of the file whose code differs at the mutant's code (``__code__``, matched by
qualified name and first line), runs the job's tests in order with ``runtestprotocol``, and writes
their outcomes; the parent kills a child past its limit. Any other mutant (a module-level line, a
``def`` line's default, a ``class`` body) is reported ``fresh``: the stage runs it in a fresh
process (:mod:`.pytest_mutant`), where the module is imported from the mutant.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import random
import signal
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.maps.inside.outcomes import OutcomeLog
from oracle_gate.score.mutation.settings import ENV_MUTANTS

CO_NEWLOCALS = 0x2  # a function's code (a module's or a class body's has not)


def _walk(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _walk(const)


def _own(code: types.CodeType) -> tuple[Any, ...]:
    """A code object's own content, nested code objects stood in for by their names."""
    consts = tuple(
        ("<code>", c.co_qualname, c.co_firstlineno) if isinstance(c, types.CodeType) else c
        for c in code.co_consts
    )
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)


def _key(code: types.CodeType) -> tuple[str, int]:
    return code.co_qualname, code.co_firstlineno


def function_swaps(
    original: types.CodeType, mutant: types.CodeType
) -> dict[tuple[str, int], types.CodeType] | None:
    """The functions' code the mutant changes, by (qualified name, first line); None when it changes
    what runs at import (the module's or a class's own body) or the set of functions."""
    before = {_key(c): c for c in _walk(original)}
    after = {_key(c): c for c in _walk(mutant)}
    if before.keys() != after.keys():
        return None
    changed = {k: after[k] for k in after if _own(after[k]) != _own(before[k])}
    for key, code in changed.items():
        runs_at_import = key == _key(original) or not (code.co_flags & CO_NEWLOCALS)  # a class body
        comprehension = code.co_name.endswith(("comp>", "<genexpr>")) and "<locals>" not in code.co_qualname
        if runs_at_import or comprehension or code.co_freevars != before[key].co_freevars:
            return None
    return changed


def _swap(file: str, swaps: dict[tuple[str, int], types.CodeType]) -> int:
    """Point every function of ``file`` whose code is swapped at the mutant's; how many there were."""
    count = 0
    real = os.path.realpath(file)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            code = obj.__code__
            if code.co_filename in (file, real) and _key(code) in swaps:
                obj.__code__ = swaps[_key(code)]
                count += 1
    return count


class ForkRunner:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.jobs: list[dict[str, Any]] = spec["jobs"]
        self.report = Path(spec["report"])

    def _emit(self, event: dict[str, Any]) -> None:
        with self.report.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(event, sort_keys=True) + "\n")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._emit({"event": "collected", "tests": len(session.items)})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {item.nodeid: item for item in session.items}
        for job in self.jobs:
            self._emit({"event": "result", "number": job["number"], **self._run(job, items)})
        return True

    def _run(self, job: dict[str, Any], items: dict[str, pytest.Item]) -> dict[str, Any]:
        from oracle_gate.score.mutation.mutants import mutated_code

        file = str(job["file"])
        try:
            source = Path(file).read_text("utf-8")
            original = compile(source, file, "exec", dont_inherit=True)
            mutant = mutated_code(source, file, int(job["line"]), int(job["ordinal"]))
        except (OSError, SyntaxError, ValueError) as exc:
            return {"status": "fresh", "detail": f"cannot compile here ({exc})"}
        swaps = function_swaps(original, mutant)
        chosen = [items[t] for t in job["tests"] if t in items]
        if not swaps or len(chosen) != len(job["tests"]):
            return {
                "status": "fresh",
                "detail": "runs at import" if not swaps else "a test was not collected",
            }
        out = self.report.with_name(f"{self.report.stem}-{job['number']}.json")
        pid = os.fork()
        if pid == 0:  # the child: the mutant, its tests, its outcomes, and out
            _child(file, swaps, chosen, out)
        return _wait(pid, float(job["limit"]), out)


def _child(
    file: str, swaps: dict[tuple[str, int], types.CodeType], items: list[pytest.Item], out: Path
) -> None:
    from _pytest.runner import runtestprotocol

    code = 0
    try:
        swapped = _swap(file, swaps)
        log = OutcomeLog()
        for index, item in enumerate(items):
            random.seed(int.from_bytes(hashlib.sha256(item.nodeid.encode("utf-8")).digest()[:8], "big"))
            nextitem = items[index + 1] if index + 1 < len(items) else None
            for report in runtestprotocol(item, nextitem=nextitem, log=False):
                log.add(report)
        out.write_text(json.dumps({"swapped": swapped, **log.document()}), "utf-8")
    except BaseException:  # noqa: BLE001 - the child must end here, whatever a test raised
        code = 1
    os._exit(code)


def _wait(pid: int, limit: float, out: Path) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"status": "timed_out"}
        time.sleep(0.005)
    try:
        doc = json.loads(out.read_text("utf-8"))
    except (OSError, ValueError):
        return {"status": "crashed", "detail": f"exit status {os.waitstatus_to_exitcode(status)}"}
    if not doc.get("swapped"):
        return {"status": "fresh", "detail": "no function of the file was found to swap"}
    return {"status": "ran", "outcomes": doc.get("outcomes") or {}}


def pytest_configure(config: pytest.Config) -> None:
    spec_file = os.environ.pop(ENV_MUTANTS, "")
    if spec_file:
        config.pluginmanager.register(
            ForkRunner(json.loads(Path(spec_file).read_text("utf-8"))), "oracle_gate_forks"
        )


def _append_checkout() -> None:
    for path in (Path.cwd(), Path.cwd() / "src"):  # as the scoring runs do (python -P)
        if path.is_dir() and str(path) not in sys.path:
            sys.path.append(str(path))


if os.environ.get(ENV_MUTANTS):
    _append_checkout()
