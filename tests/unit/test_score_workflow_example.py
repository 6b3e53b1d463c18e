"""The scoring run's two-stage example (examples/oracle-gate-score*.yml), checked on the files:
stage 1 runs the pull request's code with nothing to steal and nothing to poison; stage 2 runs
none of it, checks the report itself and posts as the App under "<check name> / score"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
STAGE1 = EXAMPLES / "oracle-gate-score.yml"
STAGE2 = EXAMPLES / "oracle-gate-score-publish.yml"


def load(path: Path) -> dict[Any, Any]:
    doc: dict[Any, Any] = yaml.safe_load(path.read_text())
    return doc


def steps(doc: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])]


def uses(doc: dict[Any, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in steps(doc) if str(s.get("uses", "")).startswith(action + "@")]


def test_stage_1_is_an_unprivileged_pull_request_job() -> None:
    doc, text = load(STAGE1), STAGE1.read_text()
    assert set(doc[True]) == {"pull_request"}  # YAML 1.1 reads the key `on` as True
    assert "secrets." not in text
    assert "environment" not in str(doc["jobs"])
    assert doc["permissions"] == {"contents": "read"}
    assert all(job["permissions"] == {"contents": "read"} for job in doc["jobs"].values())
    checkouts = uses(doc, "actions/checkout")
    assert checkouts
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)


def test_stage_1_never_saves_what_a_map_job_reads() -> None:
    doc = load(STAGE1)
    assert not uses(doc, "actions/cache")  # restore only: actions/cache would save on exit
    assert not uses(doc, "actions/cache/save")
    assert uses(doc, "actions/cache/restore")
    (upload,) = uses(doc, "actions/upload-artifact")
    assert upload["with"]["name"] == "oracle-gate-score"
    for map_example in ("oracle-gate-map.yml", "oracle-gate-sharded-map.yml", "oracle-gate.yml"):
        assert "oracle-gate-score" not in (EXAMPLES / map_example).read_text()


def test_stage_1_scores_head_against_the_parent_and_uploads_score_json() -> None:
    run = " ".join(str(s.get("run", "")) for s in steps(load(STAGE1)))
    assert "oracle-gate score --repo repo --base" in run
    assert "--score-json oracle-gate-score/score.json" in run
    assert 'git -C repo show "$PARENT:requirements-test.txt"' in run  # the parent's test dependencies


def test_stage_2_follows_stage_1_from_the_default_branch_and_checks_its_conclusion() -> None:
    doc = load(STAGE2)
    trigger = doc[True]["workflow_run"]
    assert trigger["workflows"] == [load(STAGE1)["name"]]
    (job,) = doc["jobs"].values()
    assert "github.event.workflow_run.conclusion == 'success'" in job["if"]
    for step in uses(doc, "actions/checkout"):
        if step["with"].get("repository") == "oracle-gate/oracle-gate":  # the gate's source, to install
            assert step["with"]["ref"] == "${{ env.ORACLE_GATE_REF }}"
            continue
        assert "ref" not in step["with"]  # the default branch, never the head
        assert step["with"]["persist-credentials"] is False


def test_stage_2_verifies_the_report_itself_and_posts_the_score_as_the_app() -> None:
    doc = load(STAGE2)
    run = "\n".join(str(s.get("run", "")) for s in steps(doc))
    assert "oracle-gate score-verify --report oracle-gate-score/score.json" in run
    assert '--head "$MERGE"' in run
    assert '[ "$(git -C repo rev-parse refs/oracle-gate/merge^2)" = "$HEAD_SHA" ]' in run
    assert 'echo "check-name=$name / score"' in run
    assert "repos/$GITHUB_REPOSITORY/check-runs" in run
    post = next(s for s in steps(doc) if "check-runs" in str(s.get("run", "")))
    assert post["env"]["GH_TOKEN"] == "${{ steps.app.outputs.token }}"  # noqa: S105 - an expression
    assert uses(doc, "actions/create-github-app-token")
    # Only pass_clean is a success; unscored is action_required (neutral would satisfy a required check).
    assert "pass_clean) conclusion=success ;;" in run
    assert "*) conclusion=action_required ;;" in run
    assert not uses(doc, "actions/cache/save")
