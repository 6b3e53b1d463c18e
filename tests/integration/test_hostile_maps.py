"""v2 hostile coverage databases: each is oracle_incomplete with a one-line reason, no crash, no hang."""

from __future__ import annotations

import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from oracle_gate.maps.reader.data import preflight_sqlite
from oracle_gate.maps.reader.sqlite_map import connect_read_only
from tests.support.factories import Project

LIVE_EDIT = ("    y = x + 1\n", "    y = 1 + x\n")


def tampered(project: Project, tmp_path: Path, sql: str) -> Path:
    """A copy of the really measured map with ``sql`` applied to it."""
    path = tmp_path / "hostile.coverage"
    shutil.copyfile(project.coverage, path)
    with closing(sqlite3.connect(path)) as con:
        con.executescript(sql)
        con.commit()
    return path


CASES = {
    "null numbits": ("UPDATE line_bits SET numbits = NULL;", "line_bits row(s) of the wrong type"),
    "text numbits": ("UPDATE line_bits SET numbits = 'abc';", "line_bits row(s) of the wrong type"),
    "recursive view": (
        "CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
        " SELECT x FROM c;",
        "has views (forever): refused",
    ),
    "trigger": (
        "CREATE TRIGGER t AFTER INSERT ON meta BEGIN DELETE FROM meta; END;",
        "has triggers (t): refused",
    ),
    "200 MB numbits": (
        "UPDATE line_bits SET numbits = zeroblob(200 * 1024 * 1024)"
        " WHERE rowid = (SELECT min(rowid) FROM line_bits WHERE file_id ="
        " (SELECT id FROM file WHERE path LIKE '%/src/pkg/mod.py'));",
        "numbits value of 209715200 bytes",
    ),
    "text context": (
        "UPDATE context SET context = CAST(context AS BLOB) WHERE context != '';",
        "line_bits row(s) of the wrong type for",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_coverage_database_is_oracle_incomplete(project: Project, tmp_path: Path, case: str) -> None:
    """The map is refused with a one-line reason naming the file; the verdict is unscored, not exit 3."""
    sql, reason = CASES[case]
    hostile = tampered(project, tmp_path, sql)
    started = time.monotonic()
    v = project.check(project.head(project.replace("src/pkg/mod.py", *LIVE_EDIT)), coverage=str(hostile))
    assert time.monotonic() - started < 30
    assert v.verdict == "unscored"
    (problem,) = [r for r in v.reasons if r.code == "oracle_incomplete"]
    assert reason in problem.detail
    assert problem.detail.startswith(str(hostile))
    assert "\n" not in problem.detail


def test_untampered_map_passes_the_preflight(project: Project) -> None:
    """The checks refuse nothing a real pytest-cov map holds."""
    preflight_sqlite(project.coverage)


def test_read_only_connection_gives_up_after_its_time_bound(project: Project) -> None:
    """The progress handler aborts an endless query: an sqlite3 error (InputError upstream), not a hang."""
    endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    with (
        closing(connect_read_only(project.coverage, seconds=0.2)) as con,
        pytest.raises(sqlite3.OperationalError),
    ):
        con.execute(endless).fetchone()


def test_read_only_connection_cannot_write(project: Project) -> None:
    """The map is opened read-only and immutable: nothing the gate runs can change it."""
    with closing(connect_read_only(project.coverage)) as con, pytest.raises(sqlite3.OperationalError):
        con.execute("DELETE FROM meta")
