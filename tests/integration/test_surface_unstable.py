"""``oracle-gate surface`` applies contract v3.4 as ``check`` does: a live test's unstable observation
does not make a line live, so a line whose only other observer is frozen is frozen-only in the
surface exactly when ``check`` reports it in the overlap. Real repository, really measured map; the
manifests' ``unstable`` is written by hand (``map --repeat`` writes it; its own tests cover that)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.cli import main
from tests.support.factories import TEST_FILE, Project, write_manifest

MOD = "src/pkg/mod.py"
LIVE, FROZEN = f"{TEST_FILE}::test_live", f"{TEST_FILE}::test_frozen"
SHARED = "return x * x"  # observed by test_live and the frozen test_frozen
LIVE_ONLY = "y = x + 1"  # observed by test_live alone


def map_with(project: Project, tmp_path: Path, unstable: object) -> Path:
    data = Path(shutil.copy(project.coverage, tmp_path / "parent.coverage"))
    path = write_manifest(tmp_path / "parent.coverage.manifest.json", data=data, sha=project.parent)
    doc = json.loads(path.read_text())
    doc["unstable"] = unstable
    path.write_text(json.dumps(doc))
    return path


def surface(project: Project, manifest: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    args = ["--coverage", str(manifest), "--repo", str(project.root), "--format", "json"]
    assert main(["surface", "--today", "2026-12-01", *args]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


@pytest.mark.parametrize(
    "unstable",
    [
        [],
        [(LIVE, MOD)],  # only the frozen observer is left: frozen-only
        [(FROZEN, MOD)],  # a frozen test's observations count anyway
        [(LIVE, f"/ci/build/{MOD}")],  # the path as the map records it, mapped as check maps it
        [(LIVE, MOD), (FROZEN, MOD)],
    ],
)
def test_surface_and_check_agree_on_the_shared_line(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str], unstable: list[tuple[str, str]]
) -> None:
    line = project.line(SHARED)
    manifest = map_with(project, tmp_path, {test: {path: [line]} for test, path in unstable})
    head = project.head(project.replace(MOD, SHARED, "return x ** 2"))

    frozen_only = line in surface(project, manifest, capsys)["files"].get(MOD, [])
    verdict = project.check(head, coverage=manifest, coverage_sha=None)

    assert frozen_only == (verdict.overlap == {MOD: [line]})
    assert frozen_only == any(test == LIVE for test, _ in unstable)


def test_a_line_only_an_unstable_live_test_observes_is_not_measured(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stable = surface(project, map_with(project, tmp_path, {}), capsys)
    shaky = surface(project, map_with(project, tmp_path, {LIVE: {MOD: [project.line(LIVE_ONLY)]}}), capsys)
    assert shaky["measured_lines"] == stable["measured_lines"] - 1
    assert shaky["files"] == stable["files"]  # unobserved, not frozen-only


def test_a_frozen_entrys_lines_grow_by_the_unstable_live_observations(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = project.line(SHARED)
    doc = surface(project, map_with(project, tmp_path, {LIVE: {MOD: [line]}}), capsys)
    (entry,) = [e for e in doc["entries"] if e["nodeid"] == FROZEN]
    assert line in entry["lines"][MOD]


@pytest.mark.parametrize("unstable", [[LIVE], {LIVE: {MOD: [0]}}, "everything"])
def test_a_malformed_unstable_is_one_line_naming_the_manifest(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str], unstable: object
) -> None:
    manifest = map_with(project, tmp_path, unstable)
    code = main(["surface", "--coverage", str(manifest), "--repo", str(project.root)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3
    assert len(err) == 1, err
    assert str(manifest) in err[0]
    assert "'unstable'" in err[0]
