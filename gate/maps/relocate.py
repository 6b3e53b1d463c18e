"""A test run's one coverage.py data file made into the map in place: repo-relative paths by SQL.

pytest-cov has already combined its run into one data file, so merging that file again with
coverage.py's ``CoverageData.update`` only to rewrite its paths reads and writes every row a second
time and imports coverage.py (about 0.15 s) into the ``map`` process: on Python 3.11, where
coverage.py measures, that was a good part of what ``map`` cost beyond pytest-cov itself. Here the
file is copied and its ``file`` table rewritten with ``sqlite3`` (coverage.py's documented data
schema, version 7): every path under the worktree becomes relative to it; the gate's own files (an
editable install of the gate, measured beside the project) lose their rows, as the merge purges them
(their file row stays, as coverage.py's ``purge_files`` leaves it). Lines, arcs, contexts and
tracers are left exactly as the run wrote them.

Whenever the rewrite cannot give the merge's answer (another schema, two paths that become one
relative path, an unreadable file) :func:`relocated_copy` returns None and the caller merges with
coverage.py as before.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path

from oracle_gate.maps.reader.sqlite_map import SCHEMA_VERSION

DATA_TABLES = ("line_bits", "arc")  # what coverage.py's ``purge_files`` deletes (the file row stays)


def relocated_copy(
    raw: Path, built: Path, roots: Sequence[str], own: Callable[[str], bool]
) -> list[str] | None:
    """Copy ``raw`` to ``built`` with every path under one of ``roots`` (each ending in a separator)
    made relative and the files ``own`` names purged; returns the absolute paths left outside the
    roots, sorted. None (and no ``built``) when the rewrite would not equal coverage.py's merge."""
    shutil.copyfile(raw, built)
    try:
        with closing(sqlite3.connect(built)) as con:
            outside = _rewrite(con, roots, own)
            if outside is None:
                con.rollback()
            else:
                con.commit()
    except sqlite3.Error:
        outside = None
    if outside is None:
        built.unlink(missing_ok=True)
    return outside


def _rewrite(con: sqlite3.Connection, roots: Sequence[str], own: Callable[[str], bool]) -> list[str] | None:
    schema = con.execute("SELECT version FROM coverage_schema").fetchone()
    if not schema or schema[0] != SCHEMA_VERSION:
        return None
    rows = con.execute("SELECT id, path FROM file").fetchall()
    paths = {file_id: str(path) for file_id, path in rows}
    outside: list[str] = []
    purge: list[int] = []
    renamed: dict[int, str] = {}
    for file_id, path in rows:
        new = relative_to_roots(str(path), roots)
        if new is None and os.path.isabs(path) and own(path):
            purge.append(file_id)
        elif new is None and os.path.isabs(path):
            outside.append(str(path))
        renamed[file_id] = str(path) if new is None else new
    if len(set(renamed.values())) != len(renamed):
        return None  # two measured paths name one file (a symlinked root): the merge unites them
    for file_id in purge:  # as ``CoverageData.purge_files``: its lines go, the file stays listed
        for table in DATA_TABLES:
            con.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))  # noqa: S608 - fixed names
    moved = {i: p for i, p in renamed.items() if p != paths[i]}
    # Two steps, so that no intermediate state breaks ``unique (path)``: a path may become another's.
    con.executemany("UPDATE file SET path = ? WHERE id = ?", [(f"\0{i}", i) for i in moved])
    con.executemany("UPDATE file SET path = ? WHERE id = ?", [(p, i) for i, p in moved.items()])
    return sorted(outside)


def relative_to_roots(path: str, roots: Sequence[str]) -> str | None:
    """``path`` relative to the first of ``roots`` it lies under (POSIX separators), else None."""
    for root in roots:
        if path.startswith(root):
            return Path(path[len(root) :]).as_posix()
    return None
