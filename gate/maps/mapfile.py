"""A written map: what building or combining one produced, and writing it in place.

Both :func:`oracle_gate.maps.build.build_map` and :func:`oracle_gate.maps.combine.combine_maps` write the data
file and its manifest through a temporary file and a rename (:func:`publish_map`), so a good map is
never replaced by a half-written or failed one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from oracle_gate.errors import GateError
from oracle_gate.files import temporary_beside
from oracle_gate.maps.reader.manifest import Manifest
from oracle_gate.maps.reader.sqlite_map import SqliteCoverageMap, test_id_of_context

if TYPE_CHECKING:  # imported where a merge needs it: ``map`` with the collector never loads coverage.py
    from coverage import CoverageData

MAX_LISTED = 50  # test ids and paths a manifest lists at most


class MapError(GateError):
    """A map could not be built or combined; nothing at the output path was replaced."""

    def __init__(self, message: str, output_tail: str = "") -> None:
        super().__init__(message)
        self.output_tail = output_tail


@dataclass(frozen=True)
class MapResult:
    """What :func:`build_map` or :func:`combine_maps` wrote."""

    data: Path
    manifest: Path
    sha: str
    tests: int
    tests_passed: bool
    exit_status: int | None = None
    failed: tuple[str, ...] = ()
    frozen_failed: tuple[str, ...] = ()
    frozen_run: int = 0
    shard: tuple[int, int] | None = None
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    output_tail: str = ""


def map_test_ids(path: Path) -> set[str]:
    """The test ids of a map's contexts, read with sqlite3 (coverage.py's documented schema)."""
    try:
        with closing(SqliteCoverageMap(path)) as reader:
            return {t for t in map(test_id_of_context, reader.measured_contexts()) if t}
    except sqlite3.Error as exc:
        raise MapError(f"{path}: not a usable coverage.py data file ({exc})") from exc


def merge_parts(
    merged: CoverageData, parts: Sequence[Path], map_path: Callable[[str], str] | None = None
) -> None:
    """Merge coverage.py data files into ``merged``, line data or branch (arc) data alike.

    ``merged`` takes the kind of the first part that measured anything (coverage.py refuses to mix
    them in one file, so parts of different kinds are refused here, naming both); with no data at
    all it is still created, as an empty line-data file.
    """
    from coverage import CoverageData

    first: tuple[str, Path] | None = None
    for path in parts:
        part = CoverageData(basename=str(path), read_only=True)
        part.read()
        kind = measured_kind(part)
        if kind is not None and first is not None and kind != first[0]:
            raise MapError(
                f"{path} holds {kind} data but {first[1]} holds {first[0]} data (branch = True in one "
                "coverage configuration and not the other); not merged"
            )
        if kind is not None and first is None:
            first = (kind, path)
        merged.update(part, map_path=map_path)
        part.close()
    if first is None:
        merged.add_lines({})


def measured_kind(data: CoverageData) -> str | None:
    """``"arcs"`` (branch coverage), ``"lines"``, or None for a file that measured nothing."""
    if data.has_arcs():
        return "arcs"
    return "lines" if data.measured_files() else None


def publish_map(built: Path, manifest: Manifest) -> None:
    """Copy the data to its place and write the manifest, each through a temporary file and a rename."""
    out = manifest.data
    out.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(built.read_bytes()).hexdigest()
    with temporary_beside(out) as tmp:
        shutil.copyfile(built, tmp)
        os.replace(tmp, out)
    document = replace(manifest, data_sha256=digest).to_document()
    with temporary_beside(manifest.path) as tmp:
        tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, manifest.path)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
