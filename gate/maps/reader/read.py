"""The parent coverage map: which tests observed which parent lines.

Two formats are read: a coverage.py data file with pytest test contexts
(``pytest --cov --cov-context=test``), read-only with sqlite3 in coverage.py's
documented schema (:mod:`oracle_gate.maps.reader.sqlite_map`: ``check`` never imports coverage.py, whose
import alone costs about 0.14 s), and the JSON map ``{nodeid: {path: [line, ...]}}``.

Only what the diff needs is read: the measured files that map to a touched
path, and their rows. The measured file list and the context list are the only
whole-map reads, so a map of 50,000 tests costs about what one of 5,000 does.

A map is *bound* to the commit it was measured on, by the gate's own map
manifest (``FILE.manifest.json``, written by ``oracle-gate map``) or by an
explicit ``--coverage-sha``. A map bound to anything but the parent is not used.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import os
import sqlite3
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracle_gate.errors import GitError, InputError, UnknownRevision
from oracle_gate.files import MAX_MANIFEST_BYTES, MAX_MAP_BYTES, open_regular, read_bounded
from oracle_gate.git import Git
from oracle_gate.judge.freeze import nodeid_matches
from oracle_gate.judge.problems import Problem
from oracle_gate.maps.reader import mapbytes, sqlite_map
from oracle_gate.maps.reader.mapbytes import EarlyHash, MapBytes, read_map_bytes
from oracle_gate.maps.reader.provenance import PRODUCER_KEY, Producer
from oracle_gate.maps.reader.sqlite_map import (
    SQLITE_SECONDS,
    SqliteCoverageMap,
    connect_read_only,
    has_test_context,
)

if TYPE_CHECKING:  # ``map`` writes a manifest with this module and reads no observers: imported where read
    from oracle_gate.judge.observers import MapReader, ParentCoverage

MANIFEST_KIND = "oracle-gate-map"
MANIFEST_SCHEMA = 1
MANIFEST_SUFFIX = mapbytes.MANIFEST_SUFFIX
SQLITE_MAGIC = mapbytes.SQLITE_MAGIC
test_id_of_context = sqlite_map.test_id_of_context  # the phase dropped from a context
TESTS_RAN_KEY = "tests_ran"  # v2: the test ids the run executed, for the freeze visibility rule


@dataclass(frozen=True)
class Manifest:
    """The binding ``oracle-gate map`` writes beside a data file (schema 1).

    The typed fields are the ones a decision rests on; ``extra`` carries the
    informational ones (creation time, gate version, failed test ids, shard
    list of a combined map, ...) through a read and a write unchanged.
    """

    path: Path
    data: Path
    sha: str
    data_sha256: str
    coverage_version: str | None = None
    command: tuple[str, ...] = ()
    tests_passed: bool = True
    tests: int | None = None
    exit_status: int | None = None
    shard: tuple[int, int] | None = None  # (index, total), 1-based: one part of a sharded run
    #: v2: every test id that ran (also those that measured no line); None when the map did not say.
    tests_ran: tuple[str, ...] | None = None
    producer: Producer | None = None  # the GitHub Actions run that built it (None: built elsewhere)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_document(self) -> dict[str, Any]:
        """The JSON document :func:`read_manifest` reads back."""
        doc: dict[str, Any] = {
            "kind": MANIFEST_KIND,
            "schema": MANIFEST_SCHEMA,
            "sha": self.sha,
            "data": Path(os.path.relpath(self.data, self.path.parent)).as_posix(),
            "data_sha256": self.data_sha256,
            "coverage_version": self.coverage_version,
            "command": list(self.command),
            "tests_passed": self.tests_passed,
            "tests": self.tests,
            "exit_status": self.exit_status,
            "shard": {"index": self.shard[0], "total": self.shard[1]} if self.shard else None,
        }
        if self.tests_ran is not None:
            doc[TESTS_RAN_KEY] = list(self.tests_ran)
        if self.producer is not None:
            doc[PRODUCER_KEY] = self.producer.to_document()
        doc.update({k: v for k, v in self.extra.items() if k not in doc})
        return doc


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
    except _read_errors() as exc:
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


def _read_errors() -> tuple[type[Exception], ...]:
    """What reading a map may raise: sqlite3's errors, and coverage.py's once it is loaded (``check``
    reads maps without importing it, :mod:`oracle_gate.maps.reader.sqlite_map`)."""
    coverage_exceptions = sys.modules.get("coverage.exceptions")
    base = getattr(coverage_exceptions, "CoverageException", None)
    return (sqlite3.Error, base) if isinstance(base, type) else (sqlite3.Error,)


def read_manifest(path: Path) -> Manifest:
    """Read a map manifest written by ``oracle-gate map``."""
    try:
        doc = json.loads(read_bounded(path, MAX_MANIFEST_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(str(path), f"unreadable map manifest ({exc})") from exc
    except RecursionError as exc:  # v2 hostile input
        raise InputError(str(path), "map manifest nested too deeply to parse") from exc
    if not isinstance(doc, dict) or doc.get("kind") != MANIFEST_KIND:
        raise InputError(str(path), f"not an oracle-gate map manifest (kind must be {MANIFEST_KIND!r})")
    sha, data, digest = doc.get("sha"), doc.get("data"), doc.get("data_sha256")
    if not (
        isinstance(sha, str) and isinstance(data, str) and isinstance(digest, str) and sha and data and digest
    ):
        raise InputError(str(path), "map manifest needs string 'sha', 'data' and 'data_sha256'")
    if doc.get("schema", MANIFEST_SCHEMA) != MANIFEST_SCHEMA:
        raise InputError(
            str(path), f"unsupported map manifest schema {doc.get('schema')!r} (this gate reads schema 1)"
        )
    command = doc.get("command") or []
    version = doc.get("coverage_version")
    typed = {"kind", "schema", "sha", "data", "data_sha256", "coverage_version", "command", "tests_passed"}
    typed |= {"tests", "exit_status", "shard", PRODUCER_KEY}
    return Manifest(
        path=path,
        data=(path.parent / data),
        sha=sha,
        data_sha256=digest.lower(),
        coverage_version=version if isinstance(version, str) else None,
        command=tuple(str(c) for c in command) if isinstance(command, list) else (),
        tests_passed=doc.get("tests_passed") is not False,
        tests=_optional_int(path, doc, "tests"),
        exit_status=_optional_int(path, doc, "exit_status"),
        shard=_shard(path, doc.get("shard")),
        tests_ran=_tests_ran(path, doc.get(TESTS_RAN_KEY)),
        producer=Producer.from_document(doc.get(PRODUCER_KEY)),
        extra={k: v for k, v in doc.items() if k not in typed and k != TESTS_RAN_KEY},
    )


def _optional_int(path: Path, doc: Mapping[str, Any], key: str) -> int | None:
    value = doc.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(str(path), f"map manifest: {key!r} must be an integer or null, got {value!r}")
    return value


def _tests_ran(path: Path, value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(str(path), f"map manifest: {TESTS_RAN_KEY!r} must be a list of test ids or null")


def unseen_frozen(frozen: Iterable[str], reader: MapReader, manifest: Manifest | None) -> frozenset[str]:
    """v2: the freeze entries that match no test id the map knows ran (a context with measured
    lines, or a test id the manifest lists as run)."""
    nodeids = list(dict.fromkeys(frozen))
    if not nodeids:
        return frozenset()
    listed = sorted(manifest.tests_ran if manifest is not None and manifest.tests_ran is not None else ())
    unlisted = [nodeid for nodeid in nodeids if not listed_test_matching(listed, nodeid)]
    if not unlisted:
        return frozenset()
    if isinstance(reader, SafeSqliteMap):  # all entries at once: bisections, then at most one pass
        return frozenset(unlisted) - reader.ran_tests_matching(unlisted)
    ran = getattr(reader, "ran_test_matching", None)
    return frozenset(n for n in unlisted if ran is None or not ran(n))


def listed_test_matching(listed: Sequence[str], nodeid: str) -> bool:
    """Whether a test id of the sorted ``listed`` is one ``nodeid`` matches: only the ids that start
    with ``nodeid`` are looked at (a bisection), not all 50,000 of a large map's."""
    index = bisect.bisect_left(listed, nodeid)
    while index < len(listed) and listed[index].startswith(nodeid):
        if nodeid_matches(nodeid, listed[index]):
            return True
        index += 1
    return False


def _shard(path: Path, value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        index, total = value.get("index"), value.get("total")
        if (
            isinstance(index, int)
            and isinstance(total, int)
            and not isinstance(index, bool)
            and not isinstance(total, bool)
            and 1 <= index <= total
        ):
            return index, total
    raise InputError(str(path), f"map manifest: 'shard' must be null or {{index, total}}, got {value!r}")


def manifest_beside(data: Path) -> Path:
    """Where a data file's manifest is: ``FILE.manifest.json`` in the same directory."""
    return data.with_name(data.name + MANIFEST_SUFFIX)


def locate(coverage: Path) -> tuple[Path, Manifest | None]:
    """The data file and its manifest, given either of them."""
    beside = manifest_beside(coverage)
    if coverage.name.endswith(MANIFEST_SUFFIX) or _looks_like_manifest(coverage):
        manifest = read_manifest(coverage)
        return manifest.data, manifest
    if beside.is_file():
        return coverage, read_manifest(beside)
    return coverage, None


def _looks_like_manifest(path: Path) -> bool:
    try:
        with open_regular(path, MAX_MAP_BYTES) as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and MANIFEST_KIND.encode() in head


def binding_problems(
    *,
    parent: str,
    claimed_sha: str | None,
    manifest: Manifest | None,
    digest: str,
    allow_failing_parent: bool,
    source: str,
) -> list[Problem]:
    """Why the map is not bound to the parent (empty when it is). Pure."""
    problems = []
    if manifest is None and claimed_sha is None:
        problems.append(
            Problem(
                source,
                "the coverage map is not bound to a commit "
                "(give --coverage-sha or a map manifest from 'oracle-gate map')",
            )
        )
    if claimed_sha is not None and claimed_sha != parent:
        problems.append(
            Problem(source, f"the coverage map is bound to {claimed_sha}, not to the parent {parent}")
        )
    if manifest is not None:
        where = str(manifest.path)
        if manifest.sha != parent:
            problems.append(
                Problem(
                    where, f"the map manifest binds the map to {manifest.sha}, not to the parent {parent}"
                )
            )
        if manifest.data_sha256 != digest:
            problems.append(
                Problem(
                    where,
                    f"the data file's sha256 {digest[:12]}... does not match "
                    f"the manifest's {manifest.data_sha256[:12]}...",
                )
            )
        if manifest.shard is not None:
            problems.append(
                Problem(
                    where,
                    f"the map is shard {manifest.shard[0]}/{manifest.shard[1]} of a sharded "
                    "run, not a whole map (merge all shards with 'oracle-gate map --combine')",
                )
            )
        if not manifest.tests_passed and not allow_failing_parent:
            problems.append(
                Problem(
                    where,
                    "the parent's test run failed when the map was made "
                    "(pass --allow-failing-parent to use it anyway)",
                )
            )
    return problems


def load_parent_coverage(
    git: Git,
    *,
    parent: str,
    coverage: Path | None,
    coverage_sha: str | None,
    touched: Mapping[str, Iterable[int]],
    allow_failing_parent: bool = False,
    frozen: Iterable[str] = (),
    early: EarlyMapRead | None = None,
) -> ParentCoverage:
    """The edge: locate, bind and read the map; every problem becomes a reported problem.
    ``early``: the locating and hashing, started on another thread (:class:`EarlyMapRead`)."""
    from oracle_gate.judge.observers import ParentCoverage, touched_observers
    from oracle_gate.maps.reader.unstable import unstable_observers

    if coverage is None:
        return ParentCoverage(problems=(Problem(None, "no coverage map of the parent was given"),))
    try:
        if early is not None and early.coverage == coverage:
            data_path, manifest, read = early.result()
        else:
            data_path, manifest = locate(coverage)
            read = None
        reader, digest = open_map(data_path, read)
        claimed = _resolve_claim(git, coverage_sha, str(coverage))
    except InputError as exc:
        return ParentCoverage(problems=in_repository(git, [Problem(exc.source, exc.problem)]))
    problems = binding_problems(
        parent=parent,
        claimed_sha=claimed,
        manifest=manifest,
        digest=digest,
        allow_failing_parent=allow_failing_parent,
        source=str(data_path),
    )
    if problems:
        return ParentCoverage(digest=digest, problems=in_repository(git, problems))
    unreadable: tuple[type[Exception], ...] = (*_read_errors(), TypeError, ValueError)  # wrong-typed rows
    try:
        parent_files = lambda paths: git.existing_files(parent, paths)  # noqa: E731
        observers = touched_observers(reader, touched, parent_files)
        unseen = unseen_frozen(frozen, reader, manifest)
        unstable = (
            unstable_observers(manifest.extra, manifest.path, touched, parent_files) if manifest else {}
        )
    except InputError as exc:
        return ParentCoverage(digest=digest, problems=in_repository(git, [Problem(exc.source, exc.problem)]))
    except unreadable as exc:
        problem = Problem(str(data_path), f"cannot read coverage rows ({exc})")
        return ParentCoverage(digest=digest, problems=in_repository(git, [problem]))
    return ParentCoverage(observers=observers, digest=digest, unseen_frozen=unseen, unstable=unstable)


def in_repository(git: Git, problems: Sequence[Problem]) -> tuple[Problem, ...]:
    """The map's problems, a file inside the checkout named by its repository path, as every other
    path of a verdict is (issue 28: the map's reason carried its absolute path). A file outside the
    checkout keeps the path it was given: the core reports it in the text, as no repository path."""
    try:
        top = Path(os.fsdecode(git.run(["rev-parse", "--show-toplevel"]).stdout.strip())).resolve()
    except GitError:
        return tuple(problems)
    return tuple(dataclasses.replace(p, source=_relative_to(p.source, top)) for p in problems)


def _relative_to(source: str | None, top: Path) -> str | None:
    if source is None:
        return None
    try:
        return Path(source).resolve().relative_to(top).as_posix()
    except (ValueError, OSError):
        return source


def _resolve_claim(git: Git, coverage_sha: str | None, source: str) -> str | None:
    if coverage_sha is None:
        return None
    try:
        return git.commit(coverage_sha)
    except UnknownRevision as exc:
        raise InputError(source, f"--coverage-sha {coverage_sha!r} names no commit here") from exc
