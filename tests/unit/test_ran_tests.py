"""The freeze-visibility question asked for all entries at once (:mod:`gate.maps.ran_tests`) answers as
the per-entry one, whether the map's rows are in context order (binary search) or not (one pass)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from coverage import CoverageData

from gate.maps.ran_tests import ran_tests_matching
from gate.maps.read import ran_test_matching

ENTRIES = [
    "tests/test_a.py::test_one",  # a test with lines
    "tests/test_a.py",  # a module: any of its tests
    "tests/test_a.py::test_on",  # a prefix of a test id, not a test: matches nothing
    "tests/test_b.py::test_empty",  # a context without rows (a hostile map)
    "tests/test_b.py::TestK",  # a class, one of whose tests has arcs/lines
    "tests/test_c.py::test_missing",  # no context at all
    "tests/test_d.py::test_p",  # parametrized: test_p[1]
]


def write_map(path: Path, arcs: bool, reverse: bool = False) -> None:
    data = CoverageData(basename=str(path))
    contexts = {
        "tests/test_a.py::test_one|run": 3,
        "tests/test_a.py::test_two|setup": 4,
        "tests/test_b.py::TestK::test_k|teardown": 5,
        "tests/test_d.py::test_p[1]|run": 6,
    }
    for context, line in contexts.items():
        data.set_context(context)
        if arcs:
            data.add_arcs({"/r/m.py": {(line, line + 1)}})
        else:
            data.add_lines({"/r/m.py": {line}})
    data.close()
    with closing(sqlite3.connect(path)) as con:
        con.execute("INSERT INTO context (context) VALUES ('tests/test_b.py::test_empty|run')")
        if reverse:  # rows no longer in context order (a rewritten map): the one-pass fallback answers
            table = "arc" if arcs else "line_bits"
            con.execute(f"CREATE TABLE copied AS SELECT * FROM {table} ORDER BY rowid DESC")  # noqa: S608
            con.execute(f"DELETE FROM {table}")  # noqa: S608
            con.execute(f"INSERT INTO {table} SELECT * FROM copied")  # noqa: S608
            con.execute("DROP TABLE copied")
        con.commit()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("arcs", [False, True])
def test_it_answers_as_the_entry_by_entry_question(tmp_path: Path, arcs: bool, reverse: bool) -> None:
    path = tmp_path / "map.coverage"
    write_map(path, arcs, reverse)

    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
        batch = ran_tests_matching(con, ENTRIES)
        one_by_one = {e for e in ENTRIES if ran_test_matching(path, e, con)}

    assert (
        batch
        == one_by_one
        == {
            "tests/test_a.py::test_one",
            "tests/test_a.py",
            "tests/test_b.py::TestK",
            "tests/test_d.py::test_p",
        }
    )


def test_no_entries_and_no_candidates_ask_nothing(tmp_path: Path) -> None:
    path = tmp_path / "map.coverage"
    write_map(path, arcs=False)

    with closing(sqlite3.connect(path)) as con:
        assert ran_tests_matching(con, []) == set()
        assert ran_tests_matching(con, ["tests/test_z.py"]) == set()
