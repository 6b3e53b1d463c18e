"""``check``'s coverage.py data reader (sqlite3, no coverage.py import) reads what coverage.py reads."""

from __future__ import annotations

import itertools
import random
import sqlite3
from pathlib import Path

import pytest
from coverage import CoverageData
from coverage.numbits import nums_to_numbits

from oracle_gate.maps.reader.data import CoverageDataMap
from oracle_gate.maps.reader.sqlite_map import SqliteCoverageMap, UnsupportedCoverageSchema, numbits_to_lines

FILES = ("/ci/src/a.py", "/ci/src/b.py", "src/c.py")


def write_map(path: Path, *, arcs: bool) -> None:
    rng = random.Random(7)  # noqa: S311 - test data
    data = CoverageData(basename=str(path))
    for context in (
        "",
        "t.py::test_a|setup",
        "t.py::test_a|run",
        "t.py::test_b[1-2]|run",
        "t.py::T::m|teardown",
    ):
        data.set_context(context)
        for name in FILES:
            lines = sorted(rng.sample(range(1, 300), 25))
            if arcs:
                data.add_arcs({name: [(-1, lines[0]), *itertools.pairwise(lines), (lines[-1], -1)]})
            else:
                data.add_lines({name: lines})
    data.close()


@pytest.mark.parametrize("arcs", [False, True], ids=["lines", "arcs"])
def test_it_reads_the_same_files_and_tests_by_line_as_coverage_py(tmp_path: Path, arcs: bool) -> None:
    path = tmp_path / "map.coverage"
    write_map(path, arcs=arcs)
    ours, theirs = SqliteCoverageMap(path), CoverageDataMap(path)

    assert sorted(ours.measured_files()) == sorted(theirs.measured_files()) == sorted(FILES)
    assert ours.has_test_contexts()
    for name in FILES:
        expected = theirs.tests_by_line(name)
        assert expected  # something to compare
        assert ours.tests_by_line(name) == expected
    assert ours.tests_by_line("not/measured.py") == {}
    ours.close()


def test_numbits_decode_like_coverage_py() -> None:
    rng = random.Random(3)  # noqa: S311 - test data
    for size in (0, 1, 7, 8, 9, 200):
        lines = sorted(rng.sample(range(1, 5000), size))
        assert numbits_to_lines(nums_to_numbits(lines)) == lines


def test_another_schema_version_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "map.coverage"
    write_map(path, arcs=False)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE coverage_schema SET version = 8")
    con.close()

    with pytest.raises(UnsupportedCoverageSchema, match=r"coverage\.py data schema 8, not 7"):
        SqliteCoverageMap(path)
