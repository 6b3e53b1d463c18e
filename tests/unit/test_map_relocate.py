"""The map's SQL relocation of one data file gives exactly what coverage.py's merge gives."""

from __future__ import annotations

import itertools
import random
import sqlite3
from pathlib import Path

import pytest
from coverage import CoverageData

from oracle_gate.maps.mapfile import merge_parts
from oracle_gate.maps.relocate import relative_to_roots, relocated_copy

ROOT = "/ci/tmp/oracle-gate-map-x/worktree/"
RESOLVED = "/private/ci/tmp/oracle-gate-map-x/worktree/"
OWN = "/home/dev/gate/gate/maps/inside/pytest_plugin.py"
FILES = (
    ROOT + "src/a.py",
    RESOLVED + "src/b.py",  # the same tree reached through a symlink
    "/usr/lib/python3/other.py",  # outside the tree
    OWN,  # the gate's own plugin, from an editable install
    "rel/c.py",  # already relative
)
CONTEXTS = ("", "t.py::test_a|setup", "t.py::test_a|run", "t.py::test_b[1-2]|run", "t.py::T::m|teardown")


def own(path: str) -> bool:
    return path == OWN


def write_raw(path: Path, files: tuple[str, ...], *, arcs: bool) -> None:
    rng = random.Random(3)  # noqa: S311 - test data
    data = CoverageData(basename=str(path))
    for context in CONTEXTS:
        data.set_context(context)
        for name in files:
            lines = sorted(rng.sample(range(1, 200), 20))
            if arcs:
                data.add_arcs({name: [(-1, lines[0]), *itertools.pairwise(lines), (lines[-1], -1)]})
            else:
                data.add_lines({name: lines})
    data.add_file_tracers({OWN: "plugin.Tracer"} if OWN in files else {})
    data.close()


def merged_by_coverage(raw: Path, out: Path) -> tuple[CoverageData, list[str]]:
    """What ``build._merge`` did for every run before: coverage.py's update, then the purge."""
    outside: set[str] = set()

    def relative(path: str) -> str:
        new = relative_to_roots(path, (ROOT, RESOLVED))
        if new is not None:
            return new
        if path.startswith("/"):
            outside.add(path)
        return path

    merged = CoverageData(basename=str(out))
    merge_parts(merged, [raw], relative)
    owned = sorted(p for p in outside if own(p))
    merged.purge_files(owned)
    merged.close()
    return merged, sorted(outside - set(owned))


def contents(path: Path) -> dict[str, dict[int, set[str]]]:
    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    result = {
        name: {line: set(ctx) for line, ctx in data.contexts_by_lineno(name).items()}
        for name in data.measured_files()
    }
    arcs = {name: sorted(data.arcs(name) or []) for name in data.measured_files()}
    data.close()
    return {**result, "__arcs__": arcs}  # type: ignore[dict-item]


@pytest.mark.parametrize("arcs", [False, True], ids=["lines", "arcs"])
def test_relocation_equals_coverage_merge(tmp_path: Path, arcs: bool) -> None:
    raw = tmp_path / "raw.coverage"
    write_raw(raw, FILES, arcs=arcs)
    _, expected_outside = merged_by_coverage(raw, tmp_path / "merged.coverage")

    outside = relocated_copy(raw, tmp_path / "built.coverage", (ROOT, RESOLVED), own)

    assert outside == expected_outside == ["/usr/lib/python3/other.py"]
    assert contents(tmp_path / "built.coverage") == contents(tmp_path / "merged.coverage")
    built = contents(tmp_path / "built.coverage")
    assert set(built) - {"__arcs__"} == {"src/a.py", "src/b.py", "/usr/lib/python3/other.py", "rel/c.py", OWN}
    assert built[OWN] == {}  # purged as coverage.py purges: listed, without a line


def test_purged_file_leaves_no_rows(tmp_path: Path) -> None:
    raw = tmp_path / "raw.coverage"
    write_raw(raw, FILES, arcs=False)
    relocated_copy(raw, tmp_path / "built.coverage", (ROOT, RESOLVED), own)
    con = sqlite3.connect(tmp_path / "built.coverage")
    ids = {row[0] for row in con.execute("SELECT id FROM file")}
    for table in ("line_bits", "tracer"):
        assert {row[0] for row in con.execute(f"SELECT file_id FROM {table}")} <= ids  # noqa: S608
    con.close()


def test_two_paths_of_one_file_are_left_to_the_merge(tmp_path: Path) -> None:
    raw = tmp_path / "raw.coverage"
    write_raw(raw, (ROOT + "src/a.py", RESOLVED + "src/a.py"), arcs=False)
    built = tmp_path / "built.coverage"

    assert relocated_copy(raw, built, (ROOT, RESOLVED), own) is None
    assert not built.exists()


def test_a_relative_path_and_its_absolute_twin_are_left_to_the_merge(tmp_path: Path) -> None:
    raw = tmp_path / "raw.coverage"
    write_raw(raw, ("src/a.py", ROOT + "src/a.py"), arcs=False)

    assert relocated_copy(raw, tmp_path / "built.coverage", (ROOT,), own) is None


@pytest.mark.parametrize("content", [b"not a database at all", None], ids=["garbage", "other-schema"])
def test_what_is_not_coverage_data_is_left_to_the_merge(tmp_path: Path, content: bytes | None) -> None:
    raw = tmp_path / "raw.coverage"
    if content is None:
        con = sqlite3.connect(raw)
        con.execute("CREATE TABLE coverage_schema (version integer)")
        con.execute("INSERT INTO coverage_schema VALUES (6)")
        con.commit()
        con.close()
    else:
        raw.write_bytes(content)

    assert relocated_copy(raw, tmp_path / "built.coverage", (ROOT,), own) is None
    assert not (tmp_path / "built.coverage").exists()
