"""The Action refuses every map the judged pull request could have fed (TRUST.md invariant 3)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.action.map_trust import (
    TrustedSource,
    map_trust_problems,
    same_run_map_trusted,
    trusted_source,
)
from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX, Manifest, read_manifest
from oracle_gate.maps.reader.provenance import Producer
from oracle_gate.review.events import PullRequestChanged, parse_event
from tests.support.producers import default_branch_push_run
from tests.support.webhooks import load

REPO = "octo-org/agent-repo"
TRUSTED = default_branch_push_run(REPO, run_id="100", sha="a" * 40)
FROM_PR = replace(
    TRUSTED,
    workflow_ref=f"{REPO}/.github/workflows/oracle-gate-map.yml@refs/pull/7/merge",
    event="pull_request",
    ref="refs/pull/7/merge",
    run_id="555",
)
SOURCE = TrustedSource(REPO, "main", run_id="900")


def write_map(where: Path, producer: Producer | None, *, data: Path | None = None, **extra: Any) -> Path:
    """A map data file and its manifest in ``where``; returns the manifest's path."""
    where.mkdir(parents=True, exist_ok=True)
    data = data or where / "parent.coverage"
    if not data.exists():
        data.write_bytes(b"data")
    manifest = Manifest(
        path=where / f"parent.coverage{MANIFEST_SUFFIX}",
        data=data,
        sha="a" * 40,
        data_sha256=hashlib.sha256(data.read_bytes()).hexdigest(),
        producer=producer,
        extra=extra,
    )
    manifest.path.write_text(json.dumps(manifest.to_document()))
    return manifest.path


def texts(coverage: Path, repo: Path, source: TrustedSource = SOURCE) -> list[str]:
    return [str(p) for p in map_trust_problems(coverage, repo_dir=repo, source=source)]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    return tmp_path / "repo"


def test_a_default_branch_map_outside_the_checkout_is_used(tmp_path: Path, repo: Path) -> None:
    manifest = write_map(tmp_path / "map", TRUSTED)
    assert texts(manifest, repo) == []
    assert texts(tmp_path / "map" / "parent.coverage", repo) == []  # named by its data file


def test_the_producer_survives_a_write_and_a_read(tmp_path: Path) -> None:
    manifest = write_map(tmp_path / "map", TRUSTED)
    assert read_manifest(manifest).producer == TRUSTED
    assert read_manifest(write_map(tmp_path / "none", None)).producer is None


def test_a_map_inside_the_checkout_is_refused_whatever_its_bytes(repo: Path) -> None:
    """Byte equality with a committed file is defeated by eol=crlf; the real path is not."""
    manifest = write_map(repo / ".oracle-gate", TRUSTED)
    assert any("inside the repository's checkout" in t for t in texts(manifest, repo))


def test_a_symlink_out_of_the_checkout_into_it_is_refused(tmp_path: Path, repo: Path) -> None:
    inside = write_map(repo / "evil", TRUSTED)
    (tmp_path / "map").mkdir()
    link = tmp_path / "map" / "parent.coverage.manifest.json"
    link.symlink_to(inside)
    assert any("inside the repository's checkout" in t for t in texts(link, repo))


def test_a_manifest_whose_data_lies_in_the_checkout_is_refused(tmp_path: Path, repo: Path) -> None:
    (repo / "planted.coverage").write_bytes(b"the change's own map")
    manifest = write_map(tmp_path / "map", TRUSTED, data=repo / "planted.coverage")
    found = texts(manifest, repo)
    assert any("inside the repository's checkout" in t for t in found)
    assert any("outside the manifest's directory" in t for t in found)


def test_a_manifest_whose_data_lies_outside_its_directory_is_refused(tmp_path: Path, repo: Path) -> None:
    (tmp_path / "elsewhere.coverage").write_bytes(b"data")
    manifest = write_map(tmp_path / "map", TRUSTED, data=tmp_path / "elsewhere.coverage")
    assert json.loads(manifest.read_text())["data"] == "../elsewhere.coverage"
    assert any("outside the manifest's directory" in t for t in texts(manifest, repo))


def test_a_map_without_a_manifest_is_refused(tmp_path: Path, repo: Path) -> None:
    (tmp_path / "raw.coverage").write_bytes(b"data")
    (found,) = texts(tmp_path / "raw.coverage", repo)
    assert "has no manifest" in found


@pytest.mark.parametrize(
    ("producer", "why"),
    [
        (FROM_PR, "'pull_request' run"),
        (None, "records no producer run"),
        (replace(TRUSTED, repository="agent/fork"), "not in"),
    ],
)
def test_a_map_no_default_branch_run_built_is_refused(
    tmp_path: Path, repo: Path, producer: Producer | None, why: str
) -> None:
    """A cache a PR's run saved under the parent's key restores a map whose producer is that run."""
    found = texts(write_map(tmp_path / "map", producer), repo)
    assert found
    assert any(why in t for t in found), found


def test_a_map_this_very_run_built_is_used(tmp_path: Path, repo: Path) -> None:
    this_run = replace(FROM_PR, event="pull_request_target", run_id=SOURCE.run_id or "")
    assert texts(write_map(tmp_path / "map", this_run), repo) == []
    assert texts(write_map(tmp_path / "other", this_run), repo, replace(SOURCE, run_id="901")) != []


@pytest.mark.parametrize(
    ("event", "trust_input", "trusted"),
    [
        ("pull_request", False, False),
        ("pull_request", True, True),
        ("pull_request_target", False, True),
        ("workflow_run", False, True),
        ("issue_comment", False, True),
    ],
)
def test_a_same_run_map_is_trusted_under_pull_request_only_when_the_input_says_so(
    tmp_path: Path, repo: Path, event: str, trust_input: bool, trusted: bool
) -> None:
    """Under pull_request the run's workflow is the pull request's: its run id vouches for nothing."""
    assert same_run_map_trusted(event, trust_same_run_map=trust_input) is trusted
    source = trusted_source(REPO, "main", "900", same_run_trusted=trusted)
    this_run = replace(FROM_PR, run_id="900")
    found = texts(write_map(tmp_path / "map", this_run), repo, source)
    if trusted:
        assert found == []
    else:
        assert len(found) == 1
        assert "built earlier in this run" in found[0]
        assert "trust-same-run-map" in found[0]


def test_refusing_same_run_maps_leaves_other_producers_judged_as_before(tmp_path: Path, repo: Path) -> None:
    source = trusted_source(REPO, "main", "900", same_run_trusted=False)
    assert texts(write_map(tmp_path / "trusted", TRUSTED), repo, source) == []
    assert any("'pull_request' run" in t for t in texts(write_map(tmp_path / "pr", FROM_PR), repo, source))


def test_every_part_of_a_combined_map_must_be_trusted(tmp_path: Path, repo: Path) -> None:
    parts = [{"producer": TRUSTED.to_document()}, {"producer": FROM_PR.to_document()}]
    found = texts(write_map(tmp_path / "map", TRUSTED, combined=parts), repo)
    assert found
    assert all("combined map part 2" in t for t in found)
    trusted_parts = [{"producer": TRUSTED.to_document()}] * 2
    assert texts(write_map(tmp_path / "ok", TRUSTED, combined=trusted_parts), repo) == []
    missing = [{"producer": None}]
    assert any(
        "part 1: records no producer" in t
        for t in texts(write_map(tmp_path / "m", TRUSTED, combined=missing), repo)
    )


def test_without_a_default_branch_no_producer_is_trusted(tmp_path: Path, repo: Path) -> None:
    found = texts(write_map(tmp_path / "map", TRUSTED), repo, replace(SOURCE, default_branch=None))
    assert any("names no default branch" in t for t in found)


def test_the_default_branch_comes_from_the_event() -> None:
    """Read once, with the rest of the event (oracle_gate.review.events)."""

    def default_branch(repository: object) -> str | None:
        event = parse_event("pull_request", dict(load("pull_request.opened"), repository=repository), "e")
        assert isinstance(event, PullRequestChanged)
        return event.origin.default_branch

    assert default_branch({"full_name": "o/r", "default_branch": "trunk"}) == "trunk"
    assert default_branch({"full_name": "o/r", "default_branch": 7}) is None
    assert default_branch(None) is None
