"""``oracle-gate surface`` on real repositories with maps measured by coverage.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from oracle_gate.cli import main
from oracle_gate.demo import DemoRepo, build_parent, measure
from tests.support.factories import FROZEN_IDS, TEST_FILE, Project, line_of, write_manifest
from tests.support.repo import Repo

TODAY = "2026-12-01"


def surface_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["surface", "--format", "json", "--today", TODAY, *args]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def test_the_tiny_projects_surface(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    doc = surface_json(
        capsys, "--coverage", str(project.coverage), "--repo", str(project.root), "--rev", project.parent
    )
    mod = project.repo.read("src/pkg/mod.py")
    files = doc["files"]
    assert isinstance(files, dict)
    assert line_of(mod, "z = x - 1") in files["src/pkg/mod.py"]  # frozen_only's body
    assert line_of(mod, "y = x + 1") not in files["src/pkg/mod.py"]  # live's body  # frozen_only's body
    assert TEST_FILE not in files  # a test file is the observer, not the observed
    entries = {e["nodeid"]: e for e in doc["entries"]}  # type: ignore[attr-defined]
    assert list(entries) == list(FROZEN_IDS)
    frozen = entries[f"{TEST_FILE}::test_frozen"]
    assert line_of(mod, "z = x - 1") in frozen["lines"]["src/pkg/mod.py"]
    assert frozen["age_days"] is not None
    assert frozen["needs_triage"] == ["no owner"]
    assert doc["measured_lines"] > doc["frozen_only_lines"] > 0  # type: ignore[operator]


def test_owner_and_expiry_come_from_the_freeze_at_rev(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    def owned(repo: Repo) -> None:
        doc = json.loads(repo.read("freeze.json"))
        doc["frozen"][0].update(owner="alice", expires="2026-06-30")
        repo.write("freeze.json", json.dumps(doc))

    rev = project.new_parent(owned)
    doc = surface_json(capsys, "--coverage", str(project.coverage), "--repo", str(project.root), "--rev", rev)
    first = doc["entries"][0]  # type: ignore[index]
    assert (first["owner"], first["expires"], first["needs_triage"]) == (
        "alice",
        "2026-06-30",
        ["expired 2026-06-30"],
    )


def test_a_map_bound_to_another_commit_is_refused(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "parent.coverage"
    shutil.copyfile(project.coverage, data)
    manifest = write_manifest(
        tmp_path / "parent.coverage.manifest.json", data=data, sha=project.measured.root_commit
    )
    code = main(
        ["surface", "--coverage", str(manifest), "--repo", str(project.root), "--rev", project.parent]
    )
    assert code == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "is bound to" in err[0]


@pytest.mark.parametrize("args", [["--today", "soon"], ["--rev", "no-such-rev"]])
def test_bad_arguments_get_one_line_and_exit_3(
    project: Project, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code = main(["surface", "--coverage", str(project.coverage), "--repo", str(project.root), *args])
    assert code == 3
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_demo_repository_and_its_badge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The demo (``oracle-gate demo``): one frozen jitter test alone observes the jitter function."""
    repo = DemoRepo(tmp_path / "repo")
    repo.root.mkdir()
    parent = build_parent(repo)
    measure(repo, tmp_path / "parent.coverage")
    common = ["--coverage", str(tmp_path / "parent.coverage"), "--repo", str(repo.root), "--rev", parent]
    doc = surface_json(capsys, *common)
    assert (doc["frozen_only_lines"], doc["measured_lines"], doc["share"]) == (4, 19, 0.2105)
    assert doc["entries"][0]["age_days"] == 699  # type: ignore[index]  # bound commit: 2025-01-01
    assert main(["surface", "--badge", *common]) == 0
    badge = json.loads(capsys.readouterr().out)
    assert badge == {"schemaVersion": 1, "label": "frozen-only lines", "message": "21.1%", "color": "red"}
    assert main(["surface", "--today", TODAY, *common]) == 0
    markdown = capsys.readouterr().out
    assert "**21.1%** of the measured lines (4 of 19)" in markdown
    assert "| `src/retry.py` | 15-18 | 4 |" in markdown


def test_without_rev_the_manifests_commit_is_read(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The map workflow's case: the manifest binds the map to the parent; no --rev is needed, and
    the checkout's HEAD (another commit here) is not what is read."""
    data = tmp_path / "parent.coverage"
    shutil.copyfile(project.coverage, data)
    write_manifest(tmp_path / "parent.coverage.manifest.json", data=data, sha=project.parent)
    project.head(lambda repo: repo.write("freeze.json", '{"schema": 1, "frozen": []}\n'))
    doc = surface_json(capsys, "--coverage", str(data), "--repo", str(project.root))
    assert doc["rev"] == project.parent
    assert len(doc["entries"]) == len(FROZEN_IDS)  # type: ignore[arg-type]
