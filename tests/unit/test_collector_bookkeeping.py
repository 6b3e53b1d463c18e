"""The collector's bookkeeping between tests (:mod:`oracle_gate.maps.inside.collector`), without
``sys.monitoring``.

Grouping a test's hits by file, handing them to the writer and writing batches run on any Python;
the events themselves are tested against coverage.py on 3.12 in ``tests/integration/test_collector.py``.
"""

from __future__ import annotations

import random
import sys
from contextlib import nullcontext
from pathlib import Path
from types import CodeType
from typing import Any

import pytest
from coverage import CoverageData

from oracle_gate.maps.inside import collector, collector_base
from oracle_gate.maps.inside.collector import LineCollector
from oracle_gate.maps.inside.collector_base import Writer

Contexts = dict[str, dict[str, set[int]]]


def code_in(filename: str, name: str) -> CodeType:
    namespace: dict[str, object] = {}
    exec(compile(f"def {name}():\n    return 1\n", filename, "exec"), namespace)  # noqa: S102 -- fixed text
    function = namespace[name]
    assert callable(function)
    return function.__code__  # type: ignore[attr-defined,no-any-return]


def read_contexts(path: Path) -> Contexts:
    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    result: Contexts = {}
    for name in data.measured_files():
        for line, contexts in data.contexts_by_lineno(name).items():
            for context in contexts:
                result.setdefault(context, {}).setdefault(name, set()).add(line)
    data.close()
    return result


class RecordingWriter(Writer):
    def __init__(self) -> None:
        self.added: list[tuple[str, dict[str, set[int]]]] = []

    def add(self, context: str, lines: dict[str, set[int]]) -> None:
        self.added.append((context, lines))


def test_a_phase_hits_are_grouped_by_measured_file_and_unmeasured_files_are_dropped() -> None:
    a1, a2, b, lib = (
        code_in(f, n) for f, n in [("/r/a.py", "f"), ("/r/a.py", "g"), ("/r/b.py", "h"), ("/v/x.py", "i")]
    )
    writer = RecordingWriter()
    names = {"/r/a.py": "a.py", "/r/b.py": "b.py"}
    lc = LineCollector(lambda name, frame: names.get(name), writer)
    lc.files = {"/r/a.py": "a.py", "/r/b.py": "b.py", "/v/x.py": None}
    lc.switch("t::one|run")
    for code, line in [(a1, 1), (a1, 2), (lib, 9), (b, 5), (a2, 7), (a1, 3), (b, 5)]:
        lc._on_line(code, line)
    lines, fired = lc._by_file(list(lc.hits))
    assert lines == {"a.py": {1, 2, 3, 7}, "b.py": {5}}
    assert {id(c) for c in fired} == {id(a1), id(a2), id(b), id(lib)}
    lc.rearm_fired, lc.tool = True, None  # no sys.monitoring here: _rearm falls back, switch still hands over
    with pytest.MonkeyPatch().context() as m:
        m.setattr(sys, "monitoring", FakeMonitoring(), raising=False)
        lc.switch("t::two|run")
    assert writer.added == [("t::one|run", {"a.py": {1, 2, 3, 7}, "b.py": {5}})]
    assert lc.hits == []
    assert lc.context == "t::two|run"


class FakeMonitoring:
    def __init__(self) -> None:
        self.restarts = 0

    def restart_events(self) -> None:
        self.restarts += 1


def test_a_line_recorded_while_the_context_is_handed_over_is_kept_for_the_next_context() -> None:
    """The line callback appends to one list for the whole run: a hit another thread records between
    ``switch`` copying the finished context's hits and clearing them must land in the next context."""
    a = code_in("/r/a.py", "f")

    class RacyHits(list[tuple[CodeType, int]]):
        """Its slice copy lets "another thread" append right after the copy is taken."""

        def __getitem__(self, index: Any) -> Any:
            taken = super().__getitem__(index)
            if isinstance(index, slice) and (a, 42) not in self:
                self.append((a, 42))
            return taken

    writer = RecordingWriter()
    lc = LineCollector(lambda name, frame: "a.py", writer)
    lc.hits = RacyHits()
    lc._on_line = collector._line_recorder(lc.hits)
    lc.files = {"/r/a.py": "a.py"}
    lc.context = "first"
    lc._on_line(a, 1)
    with pytest.MonkeyPatch().context() as m:
        m.setattr(sys, "monitoring", FakeMonitoring(), raising=False)
        lc.switch("second")
        lc.switch("third")
    assert writer.added == [("first", {"a.py": {1}}), ("second", {"a.py": {42}})]


def test_batched_writing_gives_the_file_per_call_writing_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One connection per batch (keep_db_open) writes exactly what one add_lines per context writes,
    across several batches, a context written twice, and files shared between contexts."""
    monkeypatch.setattr(collector_base, "BATCH_LINES", 97)
    rng = random.Random(5)  # noqa: S311 -- reproducible cases, not secrets
    rows = [
        (
            f"tests/test_{i % 40}.py::test_{i}|{rng.choice(['setup', 'run', 'teardown'])}",
            {
                f"src/m{j}.py": set(rng.sample(range(1, 300), rng.randrange(1, 30)))
                for j in rng.sample(range(9), 3)
            },
        )
        for i in range(300)
    ]
    rows.append(rows[3])  # the same context again: its lines are a union
    writer = Writer(tmp_path / "batched.coverage")
    for context, lines in rows:
        writer.add(context, lines)
    writer.close()
    reference = CoverageData(basename=str(tmp_path / "per-call.coverage"))
    reference.add_lines({})
    for context, lines in rows:
        reference.set_context(context)
        reference.add_lines(lines)
    reference.close()
    assert read_contexts(tmp_path / "batched.coverage") == read_contexts(tmp_path / "per-call.coverage")


def test_the_pinned_coverage_py_keeps_one_connection_per_batch(tmp_path: Path) -> None:
    """The fast path is the one tested: this coverage.py has ``keep_db_open``."""
    data = CoverageData(basename=str(tmp_path / "x.coverage"))
    assert callable(getattr(data, "keep_db_open", None))
    assert not isinstance(collector_base.one_connection(data), nullcontext)


def test_an_empty_run_still_writes_a_line_data_file(tmp_path: Path) -> None:
    writer = Writer(tmp_path / "empty.coverage")
    writer.close()
    data = CoverageData(basename=str(tmp_path / "empty.coverage"), read_only=True)
    data.read()
    assert not data.has_arcs()
    assert data.measured_files() == set()
    data.close()
