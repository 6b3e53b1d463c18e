"""The parent coverage map: which tests observed which parent lines.

Two formats are read: a coverage.py data file with pytest test contexts
(``pytest --cov --cov-context=test``), read-only with sqlite3 in coverage.py's
documented schema (:mod:`gate.maps.sqlite_map`: ``check`` never imports coverage.py, whose import
alone costs about 0.14 s), and the JSON map ``{nodeid: {path: [line, ...]}}``.

Only what the diff needs is read: the measured files that map to a touched
path, and their rows. The measured file list and the context list are the only
whole-map reads, so a map of 50,000 tests costs about what one of 5,000 does.

A map is *bound* to the commit it was measured on, by the gate's own map
manifest (``FILE.manifest.json``, written by ``oracle-gate map``) or by an
explicit ``--coverage-sha``. A map bound to anything but the parent is not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate.errors import InputError, UnknownRevision
from gate.git import Git
from gate.judge.observers import MapReader, ParentCoverage, touched_observers
from gate.judge.problems import Problem
from gate.maps.sqlite_map import SqliteCoverageMap

MANIFEST_KIND = "oracle-gate-map"
MANIFEST_SCHEMA = 1
MANIFEST_SUFFIX = ".manifest.json"
SQLITE_MAGIC = b"SQLite format 3\0"


def test_id_of_context(context: str) -> str:
    """Drop the phase (everything after the last ``|``); ``""`` is not a test."""
    return context.rpartition("|")[0] if "|" in context else context


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
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as con:
            row = con.execute(
                "SELECT 1 FROM context WHERE context != '' AND context NOT LIKE '|%' LIMIT 1"
            ).fetchone()
        return row is not None

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        result: dict[int, set[str]] = {}
        for line, contexts in self._data.contexts_by_lineno(measured).items():
            tests = {t for t in map(test_id_of_context, contexts) if t}
            if tests:
                result[line] = tests
        return result


class JsonMap:
    """The JSON map ``{nodeid: {path: [line, ...]}}``, validated as a whole."""

    def __init__(self, path: Path, raw: bytes) -> None:
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(str(path), f"neither a coverage.py data file nor valid JSON ({exc})") from exc
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

    def measured_files(self) -> Iterable[str]:
        return self._by_file.keys()

    def has_test_contexts(self) -> bool:
        return self._has_tests

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        return self._by_file.get(measured, {})


def open_map(path: Path) -> tuple[MapReader, str]:
    """Open a map file; returns the reader and the sha256 of its bytes."""
    try:
        with path.open("rb") as handle:
            is_sqlite = handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
            handle.seek(0)
            if not is_sqlite:
                raw = handle.read()
                json_map = JsonMap(path, raw)
                if not json_map.has_test_contexts():
                    raise InputError(str(path), "JSON map holds no test (an empty map observes nothing)")
                return json_map, hashlib.sha256(raw).hexdigest()
            digest = hashlib.file_digest(handle, "sha256").hexdigest()  # streamed, not held in memory
    except OSError as exc:
        raise InputError(str(path), f"cannot read the coverage map ({exc.strerror or exc})") from exc
    try:
        reader = SqliteCoverageMap(path)
        if not reader.has_test_contexts():
            raise InputError(
                str(path), "coverage data has no test contexts (measure with pytest --cov --cov-context=test)"
            )
        return reader, digest
    except _read_errors() as exc:
        raise InputError(str(path), f"not a usable coverage.py data file ({exc})") from exc


def _read_errors() -> tuple[type[Exception], ...]:
    """What reading a map may raise: sqlite3's errors, and coverage.py's once it is loaded (``check``
    reads maps without importing it, :mod:`gate.maps.sqlite_map`)."""
    coverage_exceptions = sys.modules.get("coverage.exceptions")
    base = getattr(coverage_exceptions, "CoverageException", None)
    return (sqlite3.Error, base) if isinstance(base, type) else (sqlite3.Error,)


def read_manifest(path: Path) -> Manifest:
    """Read a map manifest written by ``oracle-gate map``."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(str(path), f"unreadable map manifest ({exc})") from exc
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
    typed |= {"tests", "exit_status", "shard"}
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
        extra={k: v for k, v in doc.items() if k not in typed},
    )


def _optional_int(path: Path, doc: Mapping[str, Any], key: str) -> int | None:
    value = doc.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(str(path), f"map manifest: {key!r} must be an integer or null, got {value!r}")
    return value


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


def locate(coverage: Path) -> tuple[Path, Manifest | None]:
    """The data file and its manifest, given either of them."""
    beside = coverage.with_name(coverage.name + MANIFEST_SUFFIX)
    if coverage.name.endswith(MANIFEST_SUFFIX) or _looks_like_manifest(coverage):
        manifest = read_manifest(coverage)
        return manifest.data, manifest
    if beside.is_file():
        return coverage, read_manifest(beside)
    return coverage, None


def _looks_like_manifest(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
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
) -> ParentCoverage:
    """The edge: locate, bind and read the map; every problem becomes a reported problem."""
    if coverage is None:
        return ParentCoverage(problems=(Problem(None, "no coverage map of the parent was given"),))
    try:
        data_path, manifest = locate(coverage)
        reader, digest = open_map(data_path)
        claimed = _resolve_claim(git, coverage_sha, str(coverage))
    except InputError as exc:
        return ParentCoverage(problems=(Problem(exc.source, exc.problem),))
    problems = binding_problems(
        parent=parent,
        claimed_sha=claimed,
        manifest=manifest,
        digest=digest,
        allow_failing_parent=allow_failing_parent,
        source=str(data_path),
    )
    if problems:
        return ParentCoverage(digest=digest, problems=tuple(problems))
    try:
        observers = touched_observers(reader, touched, lambda paths: git.existing_files(parent, paths))
    except _read_errors() as exc:
        problem = Problem(str(data_path), f"cannot read coverage rows ({exc})")
        return ParentCoverage(digest=digest, problems=(problem,))
    return ParentCoverage(observers=observers, digest=digest)


def _resolve_claim(git: Git, coverage_sha: str | None, source: str) -> str | None:
    if coverage_sha is None:
        return None
    try:
        return git.commit(coverage_sha)
    except UnknownRevision as exc:
        raise InputError(source, f"--coverage-sha {coverage_sha!r} names no commit here") from exc
