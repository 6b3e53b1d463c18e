"""A map's manifest: the binding ``oracle-gate map`` writes beside a data file (``FILE.manifest.json``).

It binds the data to the commit it was measured on (the full SHA and the data's sha256) and carries
what the run said: the command, whether the tests passed, the test ids that ran (v2), the shard, the
run that built it (:mod:`oracle_gate.maps.reader.provenance`). :func:`locate` finds the data file and
its manifest given either.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle_gate.errors import InputError
from oracle_gate.files import MAX_MANIFEST_BYTES, MAX_MAP_BYTES, open_regular, read_bounded
from oracle_gate.maps.reader import mapbytes
from oracle_gate.maps.reader.provenance import PRODUCER_KEY, Producer

MANIFEST_KIND = "oracle-gate-map"
MANIFEST_SCHEMA = 1
MANIFEST_SUFFIX = mapbytes.MANIFEST_SUFFIX
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
