"""Contract v3.4 on a real repository and a really measured map: the manifest's ``unstable``
observations of live tests do not make a line live; frozen tests' observations count anyway.

The manifests are written by hand here (``map --repeat`` writes them; another part's tests cover
that): what ``check`` does with one is the question.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from oracle_gate.judge.verdict import Verdict
from tests.support.factories import TEST_FILE, Project, write_manifest
from tests.support.in_process import run_cli

MOD = "src/pkg/mod.py"
LIVE = f"{TEST_FILE}::test_live"
FROZEN = f"{TEST_FILE}::test_frozen"
SHARED = "return x * x"  # observed by test_live and by the frozen test_frozen


def manifest_with(project: Project, tmp_path: Path, unstable: object) -> Path:
    data = Path(shutil.copy(project.coverage, tmp_path / "parent.coverage"))
    path = write_manifest(tmp_path / "parent.coverage.manifest.json", data=data, sha=project.parent)
    doc = json.loads(path.read_text())
    doc["unstable"] = unstable
    path.write_text(json.dumps(doc))
    return path


def shared_edit(project: Project) -> tuple[str, int]:
    return project.head(project.replace(MOD, SHARED, "return x ** 2")), project.line(SHARED)


def check(project: Project, head: str, manifest: Path) -> Verdict:
    return project.check(head, coverage=manifest, coverage_sha=None)


def test_stable_map_passes_clean(project: Project, tmp_path: Path) -> None:
    head, _ = shared_edit(project)
    assert check(project, head, manifest_with(project, tmp_path, {})).verdict == "pass_clean"


@pytest.mark.parametrize("recorded", [MOD, f"/ci/build/{MOD}"])
def test_unstable_live_observation_leaves_the_line_frozen_only(
    project: Project, tmp_path: Path, recorded: str
) -> None:
    """test_live's observation of the shared line is unstable: only the frozen test is left."""
    head, line = shared_edit(project)
    v = check(project, head, manifest_with(project, tmp_path, {LIVE: {recorded: [line]}}))
    assert (v.verdict, v.overlap) == ("unscored", {MOD: [line]})


def test_unstable_frozen_observation_still_counts(project: Project, tmp_path: Path) -> None:
    head, line = shared_edit(project)
    only_frozen = manifest_with(project, tmp_path, {FROZEN: {MOD: [line]}})
    assert check(project, head, only_frozen).verdict == "pass_clean"  # the live test still observes it
    both = manifest_with(project, tmp_path, {FROZEN: {MOD: [line]}, LIVE: {MOD: [line]}})
    v = check(project, head, both)
    assert (v.verdict, v.overlap) == ("unscored", {MOD: [line]})


def test_unstable_elsewhere_changes_nothing(project: Project, tmp_path: Path) -> None:
    head, line = shared_edit(project)
    other = manifest_with(project, tmp_path, {LIVE: {MOD: [line + 1]}, f"{TEST_FILE}::nope": {MOD: [line]}})
    assert check(project, head, other).verdict == "pass_clean"


def test_cli_reads_unstable_from_the_manifest(project: Project, tmp_path: Path) -> None:
    head, line = shared_edit(project)
    manifest = manifest_with(project, tmp_path, {LIVE: {MOD: [line]}})
    args = ["--base", project.parent, "--head", head, "--coverage", str(manifest), "--format", "json"]
    done = run_cli("check", "--repo", str(project.root), *args)
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["overlap"] == {MOD: [line]}


@pytest.mark.parametrize(
    "unstable",
    [
        [LIVE],
        {LIVE: [1, 2]},
        {LIVE: {MOD: [0]}},
        {LIVE: {MOD: ["1"]}},
        {LIVE: {MOD: [True]}},
        {"": {MOD: [1]}},
        {LIVE: {"": [1]}},
        "everything",
    ],
)
def test_malformed_unstable_is_incomplete_naming_the_manifest(
    project: Project, tmp_path: Path, unstable: object
) -> None:
    head, _ = shared_edit(project)
    manifest = manifest_with(project, tmp_path, unstable)
    v = check(project, head, manifest)
    assert v.verdict == "unscored"
    assert [str(c) for c in v.codes] == ["oracle_incomplete"]
    (reason,) = v.reasons
    # outside the checkout: named in the text, no repository path (issue 28)
    assert (reason.path, reason.detail.startswith(f"{manifest}: ")) == (None, True)
    assert "'unstable'" in reason.detail
