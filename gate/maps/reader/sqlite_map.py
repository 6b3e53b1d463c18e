"""A coverage.py data file read with ``sqlite3`` directly, for ``check``.

``check`` reads a map's file list, whether it has test contexts, and the rows of the few files a
change touches. Importing coverage.py alone costs about 0.14 s, more than the reads themselves on a
50,000-test map, so this reader does not import it: coverage.py's data file is a documented SQLite
schema (version 7 since coverage.py 5.x: ``meta``, ``file``, ``context``, ``line_bits`` holding
"numbits", ``arc``), and the reader refuses any other version by name. Writing maps stays with
coverage.py's API (``CoverageData``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path

from oracle_gate.errors import Refused

SCHEMA_VERSION = 7
SQLITE_SECONDS = 60.0  # wall-clock bound of a map's queries (a progress handler aborts them)


def connect_read_only(path: Path, seconds: float = SQLITE_SECONDS) -> sqlite3.Connection:
    """A read-only, immutable connection (no journal, no lock, no write) whose queries give up after
    ``seconds``: a hostile map database must neither change nor hang the gate."""
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    con = sqlite3.connect(uri, uri=True)
    deadline = time.monotonic() + seconds
    con.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    return con


def test_id_of_context(context: str) -> str:
    """Drop the phase (everything after the last ``|``); ``""`` is not a test."""
    return context.rpartition("|")[0] if "|" in context else context


def has_test_context(con: sqlite3.Connection) -> bool:
    """Whether any context is a test (not the empty import-time context): one row, not all of them."""
    row = con.execute(
        "SELECT 1 FROM context WHERE context != '' AND context NOT LIKE '|%' LIMIT 1"
    ).fetchone()
    return row is not None


class UnsupportedCoverageSchema(Refused, sqlite3.DatabaseError):
    """The file is SQLite but not coverage.py's data schema version 7."""


def numbits_to_lines(numbits: bytes) -> list[int]:
    """coverage.py's numbits: bit ``n`` of the little-endian bit string set means line ``n``."""
    lines: list[int] = []
    for index, byte in enumerate(numbits):
        if byte:
            base = index * 8
            lines.extend(base + bit for bit in range(8) if byte & (1 << bit))
    return lines


class SqliteCoverageMap:
    """The same reads as :class:`oracle_gate.maps.reader.data.CoverageDataMap`, without importing
    coverage.py."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._con = connect_read_only(path)
        try:
            schema = self._con.execute("SELECT version FROM coverage_schema").fetchone()
            arcs = self._con.execute("SELECT value FROM meta WHERE key = 'has_arcs'").fetchone()
        except sqlite3.Error:
            self._con.close()
            raise
        if not schema or schema[0] != SCHEMA_VERSION:
            self._con.close()
            found = schema[0] if schema else None
            raise UnsupportedCoverageSchema(f"coverage.py data schema {found!r}, not {SCHEMA_VERSION}")
        self._arcs = bool(arcs and int(arcs[0]))

    def close(self) -> None:
        self._con.close()

    def measured_files(self) -> Iterable[str]:
        return [row[0] for row in self._con.execute("SELECT path FROM file")]

    def measured_contexts(self) -> set[str]:
        """Every context of the file, as coverage.py's ``CoverageData.measured_contexts``."""
        return {row[0] for row in self._con.execute("SELECT context FROM context")}

    def has_test_contexts(self) -> bool:
        return has_test_context(self._con)

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        contexts_by_line: dict[int, set[str]] = {}
        for line, context in self._rows(measured):
            contexts_by_line.setdefault(line, set()).add(context)
        result: dict[int, set[str]] = {}
        for line, contexts in contexts_by_line.items():
            tests = {t for t in map(test_id_of_context, contexts) if t}
            if tests:
                result[line] = tests
        return result

    def _rows(self, measured: str) -> Iterable[tuple[int, str]]:
        """(line, context) pairs of one file, as coverage.py's ``contexts_by_lineno`` reads them."""
        with closing(self._con.cursor()) as cur:
            if self._arcs:
                cur.execute(
                    "SELECT a.fromno, a.tono, c.context FROM arc a JOIN context c ON a.context_id = c.id "
                    "JOIN file f ON a.file_id = f.id WHERE f.path = ?",
                    (measured,),
                )
                for fromno, tono, context in cur:
                    yield from ((n, context) for n in (fromno, tono) if n > 0)
                return
            cur.execute(
                "SELECT l.numbits, c.context FROM line_bits l JOIN context c ON l.context_id = c.id "
                "JOIN file f ON l.file_id = f.id WHERE f.path = ?",
                (measured,),
            )
            for numbits, context in cur:
                yield from ((n, context) for n in numbits_to_lines(numbits))
