"""The trusted map store against the fake GitHub: a map is used only when the API's record of its run,
the artifact and the manifest all say it is the map workflow's default-branch push run for the parent.

Every test but the first is a way a pull request could try to get its own map used."""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.bot.jobs import artifacts, mapstore
from oracle_gate.bot.jobs.mapstore import ArtifactMapStore, MapLookup, StoreSettings, run_problems
from tests.bot.maps import (
    ARTIFACT,
    DATA_NAME,
    MANIFEST_NAME,
    MAP,
    WORKFLOW,
    map_artifact,
    producer,
    zipped,
)
from tests.github_fake.server import FakeGitHub
from tests.github_fake.state import WorkflowRunState

REPO = "octo/repo"
PARENT = "b" * 40


@pytest.fixture
def store(tmp_path: Path) -> ArtifactMapStore:
    return ArtifactMapStore(StoreSettings(WORKFLOW, ARTIFACT, tmp_path / "maps"), "", pacing=None)


def find(store: ArtifactMapStore, github: FakeGitHub, parent: str = PARENT) -> MapLookup:
    pointed = ArtifactMapStore(store.settings, github.url, pacing=None)
    return pointed.find(REPO, parent, github.token)


def map_run(github: FakeGitHub, *, sha: str = PARENT, **fields: Any) -> WorkflowRunState:
    return github.add_workflow_run(REPO, WORKFLOW, sha, **fields)


def trusted(github: FakeGitHub, **artifact: Any) -> WorkflowRunState:
    run = map_run(github)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, PARENT, run.id, **artifact))
    return run


def test_the_map_of_a_default_branch_push_run_is_used_and_kept(
    store: ArtifactMapStore, github: FakeGitHub
) -> None:
    trusted(github)
    found = find(store, github)
    assert found.manifest is not None, found.why
    assert json.loads(found.manifest.with_name(DATA_NAME).read_text()) == MAP
    downloads = len(github.log("GET", "/repos/*/actions/artifacts/*/zip"))
    assert find(store, github).manifest == found.manifest  # from the store's cache: no new download
    assert len(github.log("GET", "/repos/*/actions/artifacts/*/zip")) == downloads == 1
    # The token went to the API only, never to the artifact's blob URL (the fake records that as a violation).
    assert github.violations == []


def test_no_run_yet_waits_for_the_map_workflow(store: ArtifactMapStore, github: FakeGitHub) -> None:
    found = find(store, github)
    assert (found.manifest, found.waiting) == (None, True)
    assert "no map yet" in found.why
    assert WORKFLOW in found.why


def test_a_forks_run_is_refused_though_github_lists_it(store: ArtifactMapStore, github: FakeGitHub) -> None:
    """The list's filters are GitHub's; the bot checks each field of the run again."""
    run = map_run(github, head_repo="agent/repo")
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, PARENT, run.id))
    found = find(store, github)
    assert found.manifest is None
    assert not found.waiting
    assert "head_repository is 'agent/repo'" in found.why, found.why


def test_a_pull_request_run_is_never_listed_and_never_used(
    store: ArtifactMapStore, github: FakeGitHub
) -> None:
    run = map_run(github, event="pull_request", head_branch="agent-branch")
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, PARENT, run.id))
    assert find(store, github).waiting
    (listed,) = github.log("GET", f"/repos/{REPO}/actions/workflows/*/runs")
    assert listed.query == {
        "branch": "main",
        "event": "push",
        "head_sha": PARENT,
        "status": "success",
        "per_page": str(mapstore.MAX_RUNS),
    }


def test_run_problems_names_every_field_that_is_wrong() -> None:
    run = {
        "id": 5,
        "path": ".github/workflows/ci.yml",
        "event": "workflow_run",
        "head_branch": "feature",
        "head_sha": "c" * 40,
        "conclusion": "failure",
        "repository": {"full_name": REPO},
        "head_repository": {"full_name": "agent/repo"},
    }
    problems = run_problems(run, repo=REPO, parent=PARENT, default="main", path=WORKFLOW)
    assert len(problems) == 6
    good = dict(run, path=WORKFLOW + "@refs/heads/main", event="push", head_branch="main", head_sha=PARENT)
    good.update(conclusion="success", head_repository={"full_name": REPO})
    assert run_problems(good, repo=REPO, parent=PARENT, default="main", path=WORKFLOW) == []


@pytest.mark.parametrize(
    ("producer_override", "why"),
    [
        ({"event": "pull_request", "ref": "refs/pull/1/merge"}, "only a default-branch"),
        ({"workflow_ref": f"{REPO}/{WORKFLOW}@refs/heads/agent"}, "workflow file of"),
        ({"repository": "agent/repo"}, "built in 'agent/repo'"),
        ({"run_id": "1"}, "not run"),
        ({"sha": "c" * 40}, "not on the parent"),
        (
            {"workflow_ref": f"{REPO}/.github/workflows/ci.yml@refs/heads/main"},
            "the workflow '.github/workflows/ci.yml'",
        ),
    ],
)
def test_a_manifest_whose_producer_is_not_that_run_is_refused(
    store: ArtifactMapStore, github: FakeGitHub, producer_override: dict[str, str], why: str
) -> None:
    run = map_run(github)
    prod = producer(REPO, PARENT, run.id, **producer_override)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, PARENT, run.id, prod=prod))
    found = find(store, github)
    assert found.manifest is None
    assert why in found.why, found.why


def test_a_manifest_without_producer_is_refused(store: ArtifactMapStore, github: FakeGitHub) -> None:
    trusted(github, no_producer=True)
    assert "records no producer" in find(store, github).why


@pytest.mark.parametrize(
    ("override", "why"),
    [
        ({"sha": "c" * 40}, "not to the parent"),
        ({"data_sha256": "0" * 64}, "sha256 does not match"),
        ({"shard": {"index": 1, "total": 2}}, "one shard"),
        ({"data": "../../elsewhere.json"}, "does not hold"),
    ],
)
def test_a_manifest_not_binding_its_data_to_the_parent_is_refused(
    store: ArtifactMapStore, github: FakeGitHub, override: dict[str, Any], why: str
) -> None:
    trusted(github, manifest=override)
    found = find(store, github)
    assert found.manifest is None
    assert why in found.why, found.why


def _zip_run(github: FakeGitHub, data: bytes) -> None:
    github.add_artifact(map_run(github), ARTIFACT, data)


@pytest.mark.parametrize(
    ("files", "links", "why"),
    [
        ({"../" + DATA_NAME: b"{}", MANIFEST_NAME: b"{}"}, frozenset(), "only plain file names"),
        ({"dir/" + DATA_NAME: b"{}", MANIFEST_NAME: b"{}"}, frozenset(), "only plain file names"),
        ({DATA_NAME: b"/etc/passwd", MANIFEST_NAME: b"{}"}, frozenset({DATA_NAME}), "not a regular file"),
        ({DATA_NAME: b"{}", MANIFEST_NAME: b"{}", "extra.txt": b""}, frozenset(), "holds 3 file(s)"),
        ({DATA_NAME: b"{}", "other.json": b"{}"}, frozenset(), "0 map manifest(s)"),
    ],
)
def test_an_artifact_that_is_not_exactly_a_map_is_refused(
    store: ArtifactMapStore,
    github: FakeGitHub,
    files: dict[str, bytes],
    links: frozenset[str],
    why: str,
) -> None:
    _zip_run(github, zipped(files, links=links))
    found = find(store, github)
    assert found.manifest is None
    assert why in found.why, found.why
    assert not (store.settings.cache / "octo").exists()  # nothing refused is kept


def test_sizes_are_bounded_whatever_the_zip_declares(
    store: ArtifactMapStore, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(artifacts, "MAX_FILE_BYTES", 1000)
    trusted(github, data=json.dumps({"t": {"src/app.py": list(range(1, 400))}}).encode())
    assert "larger than 1000 bytes" in find(store, github).why
    monkeypatch.setattr(artifacts, "MAX_ZIP_BYTES", 100)
    assert "larger than 100 bytes" in find(store, github, parent=PARENT).why


def test_garbage_expired_and_missing_artifacts_are_refused(
    store: ArtifactMapStore, github: FakeGitHub
) -> None:
    _zip_run(github, b"not a zip")
    assert "not a zip" in find(store, github).why
    github.state.artifacts[-1].expired = True
    assert "expired" in find(store, github).why
    github.state.artifacts.clear()
    assert f"no artifact named {ARTIFACT!r}" in find(store, github).why


def test_a_zip_that_cannot_be_unpacked_is_refused_not_a_crash(
    store: ArtifactMapStore, github: FakeGitHub
) -> None:
    # The same name twice (a later member would silently replace the checked one).
    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w") as archive:
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate it is told to write
        archive.writestr(MANIFEST_NAME, b"{}")
        archive.writestr(MANIFEST_NAME, b"{}")
    _zip_run(github, out.getvalue())
    assert "the same file name twice" in find(store, github).why
    # A member whose bytes do not match its CRC (flipped inside the stored data).
    corrupt = bytearray(zipped({DATA_NAME: b"A" * 64, MANIFEST_NAME: b"{}"}))
    corrupt[corrupt.index(b"A" * 64) + 3] ^= 0xFF
    github.state.artifacts[-1].zip_bytes = bytes(corrupt)
    assert "cannot be unpacked" in find(store, github).why
