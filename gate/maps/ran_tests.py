"""v2's freeze-visibility question for a map without the gate's manifest, without a scan per entry.

"Does a context with measured lines match this freeze entry?" was asked entry by entry, each a scan of
``line_bits`` for the candidate contexts (coverage.py indexes that table by ``(file_id, context_id)``,
so a context alone has no index): twenty entries, up to twenty scans, and ``check`` on a 50,000-test
pytest-cov map grew 3.9 times from 5,000 tests. Now:

1. each entry's candidate contexts come from the context index (a prefix range);
2. coverage.py (and the gate's collector) append a context's rows when it ends, so rows lie in the
   order of their context ids: a binary search on ``rowid`` finds where a candidate's rows would be,
   about twenty lookups. A row found there *is* a row of that context, so a yes is always right;
3. whatever that did not find (a context without rows, or a map whose rows are not in context
   order: combined, rewritten) is asked in **one** pass over the covering index, for all at once.

A map whose rows are in order answers in milliseconds at any size; any other map still answers
correctly, at the cost of one pass.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from gate.judge.freeze import nodeid_matches
from gate.maps.sqlite_map import test_id_of_context

LAST_CHARACTER = "\U0010ffff"


def ran_tests_matching(con: sqlite3.Connection, nodeids: Iterable[str]) -> set[str]:
    """Those of ``nodeids`` that match a test context with at least one row of lines (or arcs)."""
    candidates = {nodeid: _candidates(con, nodeid) for nodeid in dict.fromkeys(nodeids)}
    candidates = {nodeid: ids for nodeid, ids in candidates.items() if ids}
    if not candidates:
        return set()
    has_arcs = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'arc'").fetchone() is not None
    tables = ("line_bits", "arc") if has_arcs else ("line_bits",)
    bounds = {table: _rowid_bounds(con, table) for table in tables}
    found = {
        nodeid
        for nodeid, ids in candidates.items()
        if any(_row_in_order(con, table, bounds[table], i) for table in tables for i in ids)
    }
    rest = {n: ids for n, ids in candidates.items() if n not in found}
    if rest:
        with_rows = _with_rows(con, tables, {i for ids in rest.values() for i in ids})
        found.update(n for n, ids in rest.items() if with_rows.intersection(ids))
    return found


def _candidates(con: sqlite3.Connection, nodeid: str) -> list[int]:
    rows = con.execute(
        "SELECT id, context FROM context WHERE context >= ? AND context < ?",
        (nodeid, nodeid + LAST_CHARACTER),
    )
    return [
        int(context_id)
        for context_id, context in rows
        if isinstance(context, str) and nodeid_matches(nodeid, test_id_of_context(context))
    ]


def _rowid_bounds(con: sqlite3.Connection, table: str) -> tuple[int, int] | None:
    """The table's first and last rowid: two queries, since SQLite answers a lone min() or max() from
    the b-tree's ends but scans the table for both in one."""
    first = con.execute(f"SELECT min(rowid) FROM {table}").fetchone()  # noqa: S608
    last = con.execute(f"SELECT max(rowid) FROM {table}").fetchone()  # noqa: S608
    if not first or first[0] is None or not last or last[0] is None:
        return None
    return int(first[0]), int(last[0])


def _row_in_order(
    con: sqlite3.Connection, table: str, bounds: tuple[int, int] | None, context_id: int
) -> bool:
    """Where ``context_id``'s rows would be if rows are in context order, is there one of its rows?"""
    if bounds is None:
        return False
    query = f"SELECT rowid, context_id FROM {table} WHERE rowid >= ? ORDER BY rowid LIMIT 1"  # noqa: S608
    low, high = bounds[0], bounds[1] + 1
    while low < high:
        middle = (low + high) // 2
        row = con.execute(query, (middle,)).fetchone()
        if row is not None and isinstance(row[1], int) and row[1] < context_id:
            low = int(row[0]) + 1
        else:
            high = middle
    row = con.execute(query, (low,)).fetchone()
    return row is not None and row[1] == context_id


def _with_rows(con: sqlite3.Connection, tables: Iterable[str], context_ids: set[int]) -> set[int]:
    """Which of ``context_ids`` have a row: one pass over each table's covering index."""
    with_rows: set[int] = set()
    for table in tables:
        wanted = json.dumps(sorted(context_ids - with_rows))
        query = (
            f"SELECT DISTINCT context_id FROM {table} WHERE context_id IN (SELECT value FROM json_each(?))"  # noqa: S608
        )
        with_rows.update(int(row[0]) for row in con.execute(query, (wanted,)))
    return with_rows
