"""v2's freeze-visibility question for a map without the gate's manifest, in one pass.

"Does a context with measured lines match this freeze entry?" was asked entry by entry, each a scan of
``line_bits`` for the candidate contexts (coverage.py indexes that table by ``(file_id, context_id)``,
so a context alone has no index): twenty entries, up to twenty scans, and ``check`` on a 50,000-test
pytest-cov map grew 3.9 times from 5,000 tests. Here the candidates of every entry come from the context
index (a prefix range each), and which of them have rows is asked in **one** pass over the covering
index, for all entries at once.
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
    satisfies: dict[int, set[str]] = {}  # candidate context id -> the entries it would satisfy
    for nodeid in dict.fromkeys(nodeids):
        rows = con.execute(
            "SELECT id, context FROM context WHERE context >= ? AND context < ?",
            (nodeid, nodeid + LAST_CHARACTER),
        )
        for context_id, context in rows:
            if isinstance(context, str) and nodeid_matches(nodeid, test_id_of_context(context)):
                satisfies.setdefault(int(context_id), set()).add(nodeid)
    if not satisfies:
        return set()
    has_arcs = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'arc'").fetchone() is not None
    with_rows: set[int] = set()
    for table in ("line_bits", "arc") if has_arcs else ("line_bits",):
        wanted = json.dumps(sorted(set(satisfies) - with_rows))
        query = (
            f"SELECT DISTINCT context_id FROM {table} WHERE context_id IN (SELECT value FROM json_each(?))"  # noqa: S608
        )
        with_rows.update(int(row[0]) for row in con.execute(query, (wanted,)))
    return {nodeid for context_id in with_rows for nodeid in satisfies.get(context_id, ())}
