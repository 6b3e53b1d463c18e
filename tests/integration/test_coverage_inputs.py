"""The parent's coverage map from files: coverage.py data and JSON maps, binding, malformed inputs."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from coverage import CoverageData

from oracle_gate.judge.verdict import Verdict
from oracle_gate.maps.reader.data import SQLITE_MAGIC
from tests.support.factories import (
    TEST_FILE,
    Project,
    other_frozen_runs,
    sha256_hex,
    write_json_map,
    write_manifest,
)

MOD = "src/pkg/mod.py"
FROZEN = f"{TEST_FILE}::test_frozen"
LIVE = f"{TEST_FILE}::test_live"


def codes(v: Verdict) -> list[str]:
    return [str(code) for code in v.codes]


def incomplete(v: Verdict) -> list[str]:
    return [r.detail for r in v.reasons if r.code == "oracle_incomplete"]


@pytest.fixture
def edit_line(project: Project) -> tuple[str, int]:
    """A head that replaces the line ``y = x + 1`` (observed by test_live in the real map)."""
    head = project.head(project.replace(MOD, "y = x + 1", "y = x + 2"))
    return head, project.line("y = x + 1")


def coverage_data(path: Path, rows: dict[str, dict[str, list[int]]]) -> Path:
    """A coverage.py data file written by coverage.py itself: context -> measured file -> lines."""
    data = CoverageData(basename=str(path))
    for context, files in rows.items():
        data.set_context(context)
        data.add_lines({f: dict.fromkeys(ns) for f, ns in files.items()})
    data.write()
    return path


# ---------------------------------------------------------------- formats and contexts


def test_json_map_with_absolute_paths_is_remapped(
    project: Project, edit_line: tuple[str, int], tmp_path: Path
) -> None:
    """A JSON map measured elsewhere (absolute paths) maps onto the repo's files."""
    head, line = edit_line
    cov = write_json_map(tmp_path / "map.json", {FROZEN: {f"/ci/build/{MOD}": [line]}})
    v = project.check(head, coverage=cov)
    assert v.overlap == {MOD: [line]}
    assert v.protocol.coverage_sha256 == sha256_hex(cov.read_bytes())


def test_json_map_paths_that_name_no_file_are_dropped(
    project: Project, edit_line: tuple[str, int], tmp_path: Path
) -> None:
    """Measured paths naming no parent file observe nothing."""
    head, line = edit_line
    cov = write_json_map(
        tmp_path / "map.json",
        {FROZEN: {"/ci/elsewhere/other.py": [line], "/ci/mod.py": [line]}, **other_frozen_runs()},
    )
    assert project.check(head, coverage=cov).verdict == "pass_clean"


def test_longest_trailing_run_decides_the_file(project: Project, tmp_path: Path) -> None:
    """With src/pkg/mod.py and pkg/mod.py in the parent, /ci/src/pkg/mod.py is the longer one."""
    project.new_parent(lambda repo: repo.write("pkg/mod.py", repo.read(MOD)))
    head = project.head(project.replace("pkg/mod.py", "y = x + 1", "y = x + 2"))
    line = project.line("y = x + 1", "pkg/mod.py")
    cov = write_json_map(tmp_path / "map.json", {FROZEN: {f"/ci/{MOD}": [line]}})
    assert project.check(head, coverage=cov).overlap == {}
    cov = write_json_map(tmp_path / "map2.json", {FROZEN: {"/ci/lib/pkg/mod.py": [line]}})
    assert project.check(head, coverage=cov).overlap == {"pkg/mod.py": [line]}


def test_empty_context_observes_nothing(project: Project, edit_line: tuple[str, int], tmp_path: Path) -> None:
    """Lines recorded under the empty context ("") are not observed by a live test."""
    head, line = edit_line
    cov = coverage_data(
        tmp_path / "cov.sqlite",
        {"": {f"/m/{MOD}": [line]}, f"{FROZEN}|run": {f"/m/{MOD}": [line]}},
    )
    assert project.check(head, coverage=cov).overlap == {MOD: [line]}


def test_phase_suffix_is_dropped_from_contexts(
    project: Project, edit_line: tuple[str, int], tmp_path: Path
) -> None:
    """Contexts ``nodeid|setup`` and ``nodeid|teardown`` are the test ``nodeid``."""
    head, line = edit_line
    frozen_only = coverage_data(tmp_path / "a.sqlite", {f"{FROZEN}|setup": {f"/m/{MOD}": [line]}})
    assert project.check(head, coverage=frozen_only).overlap == {MOD: [line]}
    with_live = coverage_data(
        tmp_path / "b.sqlite",
        {f"{FROZEN}|setup": {f"/m/{MOD}": [line]}, f"{LIVE}|teardown": {f"/m/{MOD}": [line]}},
    )
    assert project.check(head, coverage=with_live).overlap == {}


def test_real_map_is_read_only(project: Project, edit_line: tuple[str, int]) -> None:
    """Checking against the measured map leaves its bytes unchanged."""
    head, _ = edit_line
    before = project.coverage.read_bytes()
    project.check(head)
    assert project.coverage.read_bytes() == before


# ---------------------------------------------------------------- binding


def test_coverage_sha_may_be_any_name_of_the_parent(project: Project, edit_line: tuple[str, int]) -> None:
    """--coverage-sha is resolved: an abbreviation of the parent binds the map."""
    head, _ = edit_line
    assert project.check(head, coverage_sha=project.parent[:10]).verdict == "pass_clean"


def test_unknown_coverage_sha_is_incomplete(project: Project, edit_line: tuple[str, int]) -> None:
    """A --coverage-sha that names no commit is oracle_incomplete naming the option."""
    head, _ = edit_line
    v = project.check(head, coverage_sha="nosuchrev")
    assert codes(v) == ["oracle_incomplete"]
    assert "--coverage-sha 'nosuchrev' names no commit here" in incomplete(v)[0]


def test_manifest_beside_the_data_binds_it(
    project: Project, edit_line: tuple[str, int], tmp_path: Path
) -> None:
    """A ``FILE.manifest.json`` beside the data file binds the map without --coverage-sha."""
    head, _ = edit_line
    data = Path(shutil.copy(project.coverage, tmp_path / "parent.coverage"))
    write_manifest(tmp_path / "parent.coverage.manifest.json", data=data, sha=project.parent)
    assert project.check(head, coverage=data, coverage_sha=None).verdict == "pass_clean"
    manifest_given = tmp_path / "parent.coverage.manifest.json"
    assert project.check(head, coverage=manifest_given, coverage_sha=None).verdict == "pass_clean"


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("wrong-sha", "the map manifest binds the map to"),
        ("wrong-digest", "does not match the manifest's"),
        ("tests-failed", "the parent's test run failed when the map was made"),
    ],
)
def test_bad_manifest_is_incomplete(
    project: Project, edit_line: tuple[str, int], tmp_path: Path, kind: str, problem: str
) -> None:
    """A manifest bound elsewhere, with another digest or a failed run makes the map unusable."""
    head, _ = edit_line
    data = Path(shutil.copy(project.coverage, tmp_path / "parent.coverage"))
    manifest = write_manifest(
        tmp_path / "parent.coverage.manifest.json",
        data=data,
        sha=project.measured.root_commit if kind == "wrong-sha" else project.parent,
        digest="0" * 64 if kind == "wrong-digest" else None,
        tests_passed=kind != "tests-failed",
    )
    v = project.check(head, coverage=manifest, coverage_sha=None)
    assert codes(v) == ["oracle_incomplete"]
    assert problem in incomplete(v)[0]
    assert str(manifest) in incomplete(v)[0]
    if kind == "tests-failed":
        allowed = project.check(head, coverage=manifest, coverage_sha=None, allow_failing_parent=True)
        assert allowed.verdict == "pass_clean"
        assert allowed.protocol.allow_failing_parent


# ---------------------------------------------------------------- malformed maps


def not_sqlite(tmp: Path) -> Path:
    (tmp / "cov").write_bytes(b"PK\x03\x04 this is a zip, not a map")
    return tmp / "cov"


def corrupt_sqlite(tmp: Path) -> Path:
    (tmp / "cov").write_bytes(SQLITE_MAGIC + b"\x00" * 200)
    return tmp / "cov"


def other_sqlite(tmp: Path) -> Path:
    with sqlite3.connect(tmp / "cov") as con:
        con.execute("CREATE TABLE t (x)")
    return tmp / "cov"


def no_contexts(tmp: Path) -> Path:
    return coverage_data(tmp / "cov", {"": {"/m/src/pkg/mod.py": [5, 6]}})


def wrong_shape(tmp: Path) -> Path:
    (tmp / "cov").write_text('{"tests/t.py::a": ["src/pkg/mod.py", 5]}')
    return tmp / "cov"


def missing(tmp: Path) -> Path:
    return tmp / "nowhere.sqlite"


def directory(tmp: Path) -> Path:
    (tmp / "cov").mkdir()
    return tmp / "cov"


def bad_manifest(tmp: Path) -> Path:
    (tmp / "cov.manifest.json").write_text('{"kind": "oracle-gate-map", "sha": 1}')
    return tmp / "cov.manifest.json"


def manifest_without_data(tmp: Path) -> Path:
    (tmp / "gone").write_text("{}")
    manifest = write_manifest(tmp / "gone.manifest.json", data=tmp / "gone", sha="0" * 40)
    (tmp / "gone").unlink()
    return manifest


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (not_sqlite, "neither a coverage.py data file nor valid JSON"),
        (corrupt_sqlite, "not a usable coverage.py data file"),
        (other_sqlite, "not a usable coverage.py data file"),
        (no_contexts, "coverage data has no test contexts"),
        (wrong_shape, "must be an object {path: [lines]}"),
        (missing, "cannot read the coverage map"),
        (directory, "cannot read the coverage map"),
        (bad_manifest, "map manifest needs string 'sha', 'data' and 'data_sha256'"),
        (manifest_without_data, "cannot read the coverage map"),
    ],
    ids=lambda x: x.__name__ if callable(x) else "",
)
def test_malformed_map_is_incomplete_never_pass(
    project: Project, edit_line: tuple[str, int], tmp_path: Path, make: Callable[[Path], Path], problem: str
) -> None:
    """An unusable map is oracle_incomplete with a one-line problem naming the file; never pass_clean."""
    head, _ = edit_line
    path = make(tmp_path)
    v = project.check(head, coverage=path)
    assert v.verdict == "unscored"
    assert codes(v) == ["oracle_incomplete"]
    (detail,) = incomplete(v)
    assert problem in detail
    assert str(tmp_path) in detail  # names the file
    assert "\n" not in detail


def test_empty_json_map_is_refused_like_a_map_without_test_contexts(
    project: Project, edit_line: tuple[str, int], tmp_path: Path
) -> None:
    """Contract-silent choice: a JSON map with no test id observes nothing, so it cannot back a pass."""
    head, _ = edit_line
    cov = write_json_map(tmp_path / "empty.json", {})
    verdict = project.check(head, coverage=cov)
    assert verdict.verdict == "unscored"
    assert any(r.code == "oracle_incomplete" and "holds no test" in r.detail for r in verdict.reasons)
