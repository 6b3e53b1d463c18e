"""The fake's Actions (workflow runs, artifacts, download) and App hook-delivery endpoints: routed and
validated from the subset like every other operation, answering from state."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import requests

from tests.github.clients import REPO
from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import FakeFactory

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ".github/workflows/oracle-gate-map.yml"
SHA = "a" * 40


def get(fake: FakeGitHub, path: str, **params: str) -> requests.Response:
    return requests.get(
        fake.url + path,
        params=params or None,
        headers={"Authorization": f"token {fake.token}"},
        timeout=10,
        allow_redirects=False,
    )


def test_workflow_runs_are_filtered_like_github(github_fake_factory: FakeFactory) -> None:
    fake = github_fake_factory()
    fake.add_repo(REPO)
    wanted = fake.add_workflow_run(REPO, WORKFLOW, SHA)
    fake.add_workflow_run(REPO, WORKFLOW, SHA, event="pull_request", head_branch="feature")
    fake.add_workflow_run(REPO, ".github/workflows/other.yml", SHA)
    fake.add_workflow_run(REPO, WORKFLOW, SHA, conclusion="failure")
    answer = get(
        fake,
        f"/repos/{REPO}/actions/workflows/oracle-gate-map.yml/runs",
        branch="main",
        event="push",
        head_sha=SHA,
        status="success",
    )
    assert answer.status_code == 200, answer.text
    runs = answer.json()["workflow_runs"]
    assert [(r["id"], r["path"], r["event"], r["head_branch"]) for r in runs] == [
        (wanted.id, WORKFLOW, "push", "main")
    ]
    assert runs[0]["repository"]["full_name"] == REPO
    assert fake.violations == []


def test_an_artifact_is_listed_then_downloaded_through_a_redirect(github_fake_factory: FakeFactory) -> None:
    fake = github_fake_factory()
    fake.add_repo(REPO)
    run = fake.add_workflow_run(REPO, WORKFLOW, SHA, artifacts={"oracle-gate-map": b"PK-zip-bytes"})
    listed = get(fake, f"/repos/{REPO}/actions/runs/{run.id}/artifacts", name="oracle-gate-map")
    assert listed.status_code == 200, listed.text
    (artifact,) = listed.json()["artifacts"]
    assert (artifact["name"], artifact["size_in_bytes"]) == ("oracle-gate-map", 12)
    redirect = get(fake, f"/repos/{REPO}/actions/artifacts/{artifact['id']}/zip")
    assert redirect.status_code == 302
    blob = requests.get(redirect.headers["Location"], timeout=10)
    assert blob.content == b"PK-zip-bytes"
    assert fake.violations == []


def test_a_token_sent_to_the_blob_url_is_a_violation(github_fake_factory: FakeFactory) -> None:
    fake = github_fake_factory()
    fake.add_repo(REPO)
    run = fake.add_workflow_run(REPO, WORKFLOW, SHA, artifacts={"m": b"zip"})
    (item,) = [a for a in fake.state.artifacts if a.run_id == run.id]
    location = get(fake, f"/repos/{REPO}/actions/artifacts/{item.id}/zip").headers["Location"]
    requests.get(location, headers={"Authorization": "token leaked"}, timeout=10)
    assert ["token was sent" in v.problem for v in fake.take_violations()] == [True]


def test_only_zip_is_served_and_an_expired_artifact_is_gone(github_fake_factory: FakeFactory) -> None:
    fake = github_fake_factory()
    fake.add_repo(REPO)
    run = fake.add_workflow_run(REPO, WORKFLOW, SHA, artifacts={"m": b"zip"})
    (item,) = [a for a in fake.state.artifacts if a.run_id == run.id]
    assert get(fake, f"/repos/{REPO}/actions/artifacts/{item.id}/tar").status_code == 404
    assert len(fake.take_violations()) == 1
    item.expired = True
    assert get(fake, f"/repos/{REPO}/actions/artifacts/{item.id}/zip").status_code == 410


def test_hook_deliveries_need_the_app_jwt_and_page_by_cursor(github_fake_factory: FakeFactory) -> None:
    fake = github_fake_factory()
    for n in range(3):
        fake.add_hook_delivery(f"guid-{n}", "pull_request", 502 if n else 200, action="opened")
    # An installation token does not reach apps/* (GitHub: only the App's JWT does).
    assert get(fake, "/app/hook/deliveries").status_code == 401
    assert fake.violations == []


def test_the_subset_is_reproduced_by_the_committed_script(tmp_path: Path) -> None:
    """The extraction is deterministic: re-extracting the committed subset's own operations from the
    committed subset (a valid source for them) reproduces it byte for byte."""
    source = ROOT / "tests" / "data" / "github" / "openapi-subset.json"
    doc = json.loads(source.read_text())
    doc["info"]["description"] = doc["info"]["description"].split(" -- SUBSET")[0]
    full = tmp_path / "api.github.com.json"
    full.write_text(json.dumps(doc))
    out = tmp_path / "subset.json"
    script = ROOT / "tests" / "data" / "github" / "extract_subset.py"
    done = subprocess.run(
        [sys.executable, str(script), str(full), "--output", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert out.read_text() == source.read_text()
