"""A parent map's data: which tests observed which parent lines.

Two formats are read: a coverage.py data file with pytest test contexts
(``pytest --cov --cov-context=test``), read-only with sqlite3 in coverage.py's documented schema
(:mod:`oracle_gate.maps.reader.sqlite_map`: ``check`` never imports coverage.py, whose import alone
costs about 0.14 s), and the JSON map ``{nodeid: {path: [line, ...]}}``.

Only what the diff needs is read: the measured files that map to a touched path, and their rows. The
measured file list and the context list are the only whole-map reads, so a map of 50,000 tests costs
about what one of 5,000 does.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from oracle_gate.errors import InputError
from oracle_gate.judge.freeze import nodeid_matches
from oracle_gate.maps.reader import mapbytes, sqlite_map
from oracle_gate.maps.reader.manifest import Manifest, locate
from oracle_gate.maps.reader.mapbytes import EarlyHash, MapBytes, read_map_bytes
from oracle_gate.maps.reader.sqlite_map import (
    SQLITE_SECONDS,
    SqliteCoverageMap,
    connect_read_only,
    has_test_context,
)

if TYPE_CHECKING:  # for typing only: judge.observers is imported where coverage is read
    from oracle_gate.judge.observers import MapReader

SQLITE_MAGIC = mapbytes.SQLITE_MAGIC
test_id_of_context = sqlite_map.test_id_of_context  # the phase dropped from a context


class CoverageDataMap:
    """A coverage.py data file, opened read-only through coverage.py's API."""

    def __init__(self, path: Path) -> None:
        self.path = path
        from coverage import CoverageData

        self._data = CoverageData(basename=str(path), read_only=True)
        self._data.read()

    def measured_files(self) -> Iterable[str]:
        return self._data.measured_files()

    def has_test_contexts(self) -> bool:
        """Whether any context is a test (not the empty import-time context).

        coverage.py's ``measured_contexts()`` would load every context name (50,000
        for a 50,000-test map) to answer a yes/no question; this asks SQLite for
        one row instead, on a read-only connection, after coverage.py has opened
        the file and checked its schema.
        """
        with closing(connect_read_only(self.path)) as con:
            return has_test_context(con)

    def ran_test_matching(self, nodeid: str) -> bool:
        return ran_test_matching(self.path, nodeid)

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        check_file_rows(self.path, measured)
        result: dict[int, set[str]] = {}
        for line, contexts in self._data.contexts_by_lineno(measured).items():
            tests = {t for t in map(test_id_of_context, contexts) if t}
            if tests:
                result[line] = tests
        return result


def ran_test_matching(path: Path, nodeid: str, con: sqlite3.Connection | None = None) -> bool:
    """Whether a context with measured lines (or arcs) is a test id ``nodeid`` matches."""
    return nodeid in ran_tests_matching(path, [nodeid], con)


SQL_VARIABLES = 900  # ids per IN (...) list: under every SQLite build's limit on bound variables


def _has_row_bisected(con: sqlite3.Connection, table: str, context_id: int) -> bool:
    """Whether a bisection over ``table``'s rowids finds a row of ``context_id``.

    coverage.py writes a context's rows when the run switches away from it, so rowid order follows
    context order in the maps pytest-cov and ``map`` write, and the bisection finds a context's first
    row in O(log rows) index seeks instead of a scan. Where the order does not hold (a context
    revisited, rows replaced, maps combined), it can miss a row that exists, never find one that
    does not: a miss falls back to the full pass, a hit is a row of that very context.
    """
    # Two queries: min() and max() together make SQLite scan; each alone is one seek.
    lo = con.execute(f"SELECT min(rowid) FROM {table}").fetchone()[0]  # noqa: S608
    hi = con.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]  # noqa: S608
    if not isinstance(lo, int) or not isinstance(hi, int):
        return False
    hi += 1
    first = f"SELECT rowid, context_id FROM {table} WHERE rowid >= ? ORDER BY rowid LIMIT 1"  # noqa: S608
    while lo < hi:
        mid = (lo + hi) // 2
        row = con.execute(first, (mid,)).fetchone()
        if row is None or not isinstance(row[1], int) or row[1] >= context_id:
            hi = mid
        else:
            lo = row[0] + 1
    row = con.execute(first, (lo,)).fetchone()
    return row is not None and row[1] == context_id


def ran_tests_matching(path: Path, nodeids: Iterable[str], con: sqlite3.Connection | None = None) -> set[str]:
    """Those of ``nodeids`` that match a context with measured lines (or arcs).

    Each nodeid's candidate contexts come from its prefix range of the context index (cheap). Then
    ONE pass over ``line_bits`` (and ``arc``) asks which candidates have a row: coverage.py indexes
    those tables by ``(file_id, context_id)``, so a per-context question scans the whole table each
    time, and 20 freeze entries on a 50,000-test map cost 20 scans (issue 19: x3.9 growth). The pass
    stops as soon as every nodeid is seen. ``con``: an open connection to ``path``.
    """
    if con is None:
        with closing(connect_read_only(path)) as own:
            return ran_tests_matching(path, nodeids, own)
    owners: dict[int, set[str]] = {}
    for nodeid in dict.fromkeys(nodeids):
        candidates = con.execute(
            "SELECT id, context FROM context WHERE context >= ? AND context < ?",
            (nodeid, nodeid + "\U0010ffff"),
        ).fetchall()
        for context_id, context in candidates:
            if isinstance(context, str) and nodeid_matches(nodeid, test_id_of_context(context)):
                owners.setdefault(context_id, set()).add(nodeid)
    wanted = {n for names in owners.values() for n in names}
    has_arcs = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'arc'").fetchone() is not None
    tables = ("line_bits", "arc") if has_arcs else ("line_bits",)
    seen: set[str] = set()
    for context_id in sorted(owners):  # the fast path: O(log rows) per context, see _has_row_bisected
        if owners[context_id] - seen and any(_has_row_bisected(con, t, context_id) for t in tables):
            seen |= owners[context_id]
    if seen >= wanted:
        return seen
    ids = sorted(c for c, names in owners.items() if names - seen)
    for table in tables:
        for start in range(0, len(ids), SQL_VARIABLES):
            chunk = ids[start : start + SQL_VARIABLES]
            marks = ",".join("?" * len(chunk))
            rows = con.execute(f"SELECT context_id FROM {table} WHERE context_id IN ({marks})", chunk)  # noqa: S608
            for (context_id,) in rows:
                seen |= owners.get(context_id, set())
                if seen >= wanted:
                    return seen
    return seen


class SafeSqliteMap(SqliteCoverageMap):
    """The sqlite3 reader (no coverage.py import) with contract v2's hostile-input checks: each
    touched file's rows are checked before they are decoded, and the freeze-visibility question."""

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        check_file_rows(self.path, measured)
        return super().tests_by_line(measured)

    def ran_test_matching(self, nodeid: str) -> bool:
        return ran_test_matching(self.path, nodeid, self._con)

    def ran_tests_matching(self, nodeids: Iterable[str]) -> set[str]:
        return ran_tests_matching(self.path, nodeids, self._con)


class JsonMap:
    """The JSON map ``{nodeid: {path: [line, ...]}}``, validated as a whole."""

    def __init__(self, path: Path, raw: bytes) -> None:
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(str(path), f"neither a coverage.py data file nor valid JSON ({exc})") from exc
        except RecursionError as exc:  # v2 hostile input
            raise InputError(str(path), "JSON map nested too deeply to parse") from exc
        self._by_file: dict[str, dict[int, set[str]]] = {}
        if not isinstance(doc, dict):
            raise InputError(str(path), "JSON map must be an object {nodeid: {path: [lines]}}")
        for nodeid, files in doc.items():
            if not isinstance(files, dict):
                raise InputError(str(path), f"entry {nodeid!r} must be an object {{path: [lines]}}")
            for measured, lines in files.items():
                if not isinstance(lines, list) or not all(
                    isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in lines
                ):
                    raise InputError(
                        str(path), f"{nodeid!r} -> {measured!r} must be a list of positive line numbers"
                    )
                if nodeid:
                    per_line = self._by_file.setdefault(measured, {})
                    for n in lines:
                        per_line.setdefault(n, set()).add(nodeid)
        self._has_tests = any(nodeid for nodeid in doc)
        self._measuring = frozenset(nodeid for nodeid, files in doc.items() if nodeid and any(files.values()))

    def ran_test_matching(self, nodeid: str) -> bool:
        """Whether a test id with at least one measured line is one ``nodeid`` matches."""
        return any(nodeid_matches(nodeid, test) for test in self._measuring)

    def measured_files(self) -> Iterable[str]:
        return self._by_file.keys()

    def has_test_contexts(self) -> bool:
        return self._has_tests

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        return self._by_file.get(measured, {})


MAX_NUMBITS = 4 * 1024 * 1024  # bytes of one line_bits row: 32M line numbers, twice the blob cap's lines


def preflight_sqlite(path: Path, seconds: float = SQLITE_SECONDS) -> None:
    """v2 hostile inputs: refuse a coverage database the gate cannot read within its limits.

    Checked before coverage.py opens it: no views or triggers (a recursive view hangs a query).
    The rows are checked file by file as they are read (:func:`check_file_rows`). Raises
    InputError naming the file and the problem.
    """
    try:
        with closing(connect_read_only(path, seconds)) as con:
            _check_database(path, con)
    except sqlite3.Error as exc:
        raise InputError(str(path), f"not a usable coverage.py data file ({exc})") from exc


def _check_database(path: Path, con: sqlite3.Connection) -> None:
    """The whole-database checks, all on the schema (their cost does not grow with the map)."""
    schema = dict(con.execute("SELECT name, type FROM sqlite_master WHERE type IN ('view', 'trigger')"))
    if schema:
        kinds = " and ".join(sorted({f"{kind}s" for kind in schema.values()}))
        raise InputError(str(path), f"coverage database has {kinds} ({', '.join(sorted(schema))}): refused")


#: One measured file's rows of the wrong type or over the cap (only those the gate will read).
_BAD_ROWS = """
SELECT count(*), max(length(lb.numbits)) FROM line_bits lb JOIN file f ON f.id = lb.file_id
LEFT JOIN context c ON c.id = lb.context_id
WHERE f.path = ? AND (typeof(lb.numbits) != 'blob' OR length(lb.numbits) > ?
                      OR typeof(c.context) != 'text')
"""
_BAD_ARCS = """
SELECT count(*) FROM arc a JOIN file f ON f.id = a.file_id
WHERE f.path = ? AND (typeof(a.fromno) != 'integer' OR typeof(a.tono) != 'integer')
"""


def check_file_rows(path: Path, measured: str, seconds: float = SQLITE_SECONDS) -> None:
    """v2 hostile inputs: refuse the rows of ``measured`` before coverage.py decodes them.

    A NULL or TEXT numbits, a context that is not text or a numbits value over MAX_NUMBITS is an
    InputError naming the database; only the touched file's rows are looked at (the file index
    makes it cheap), so the cost still grows with the change and not with the map.
    """
    try:
        with closing(connect_read_only(path, seconds)) as con:
            tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "line_bits" in tables:
                bad, widest = con.execute(_BAD_ROWS, (measured, MAX_NUMBITS)).fetchone()
                if bad:
                    raise InputError(str(path), _bad_rows_text(bad, widest, measured))
            if "arc" in tables:
                (bad,) = con.execute(_BAD_ARCS, (measured,)).fetchone()
                if bad:
                    raise InputError(str(path), f"coverage database has {bad} arc row(s) of the wrong type")
    except sqlite3.Error as exc:
        raise InputError(str(path), f"cannot read coverage rows ({exc})") from exc


def _bad_rows_text(bad: int, widest: int | None, measured: str) -> str:
    if widest is not None and widest > MAX_NUMBITS:
        return f"coverage database has a numbits value of {widest} bytes for {measured} (limit {MAX_NUMBITS})"
    return f"coverage database has {bad} line_bits row(s) of the wrong type for {measured}"


def open_map(path: Path, read: MapBytes | None = None) -> tuple[MapReader, str]:
    """Open a map file; returns the reader and the sha256 of its bytes (``read``: already hashed)."""
    read = read if read is not None and read.describes(path) else read_map_bytes(path)
    if read.raw is not None:
        json_map = JsonMap(path, read.raw)
        if not json_map.has_test_contexts():
            raise InputError(str(path), "JSON map holds no test (an empty map observes nothing)")
        return json_map, read.digest
    preflight_sqlite(path)
    try:
        reader = SafeSqliteMap(path)
        if not reader.has_test_contexts():
            raise InputError(
                str(path), "coverage data has no test contexts (measure with pytest --cov --cov-context=test)"
            )
        return reader, read.digest
    except read_errors() as exc:
        raise InputError(str(path), f"not a usable coverage.py data file ({exc})") from exc


class EarlyMapRead:
    """:func:`locate` and :func:`read_map_bytes` of a check's map, run in a thread from its start.

    Parsing the manifest (2 MB of test ids at 50,000 tests) and hashing the data file grow with the
    map; the check spends that long waiting on git, so they run beside it. The hash is usually
    already under way (:class:`oracle_gate.maps.reader.mapbytes.EarlyHash`, started by the command line
    before it imports the gate). The SQLite reads stay on the caller's thread (a connection belongs to the
    thread that opened it). :meth:`result` re-raises the InputError the reads met, so the problem
    reported is the same as without the thread.
    """

    def __init__(self, coverage: Path, early_hash: EarlyHash | None = None) -> None:
        self.coverage = coverage
        self.early_hash = early_hash
        self._outcome: tuple[Path, Manifest | None, MapBytes] | InputError | None = None
        self._thread = threading.Thread(target=self._run, name="oracle-gate-map-read", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            data_path, manifest = locate(self.coverage)
            hashed = self.early_hash.read_of(data_path) if self.early_hash is not None else None
            self._outcome = (data_path, manifest, hashed or read_map_bytes(data_path))
        except InputError as exc:
            self._outcome = exc
        except Exception as exc:  # noqa: BLE001 -- any other failure: the caller reads again itself
            self._outcome = InputError(str(self.coverage), f"cannot read the coverage map ({exc})")

    def result(self) -> tuple[Path, Manifest | None, MapBytes]:
        self._thread.join()
        if self._outcome is None:  # the thread died without a word
            raise InputError(str(self.coverage), "cannot read the coverage map")
        if isinstance(self._outcome, InputError):
            raise self._outcome
        return self._outcome


def read_errors() -> tuple[type[Exception], ...]:
    """What reading a map may raise: sqlite3's errors, and coverage.py's once it is loaded (``check``
    reads maps without importing it, :mod:`oracle_gate.maps.reader.sqlite_map`)."""
    coverage_exceptions = sys.modules.get("coverage.exceptions")
    base = getattr(coverage_exceptions, "CoverageException", None)
    return (sqlite3.Error, base) if isinstance(base, type) else (sqlite3.Error,)
