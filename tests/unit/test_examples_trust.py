"""The shipped workflows judge from the default branch (TRUST.md invariants 1-5), checked on the files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yml"))
FULL_SHA = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
PLACEHOLDER = "oracle-gate/oracle-gate@" + "0" * 40  # the reader pins the release they reviewed


def load(path: Path) -> dict[Any, Any]:
    doc: dict[Any, Any] = yaml.safe_load(path.read_text())
    return doc


def triggers(doc: dict[Any, Any]) -> set[str]:
    on = doc.get(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    if isinstance(on, str):
        return {on}
    assert isinstance(on, (dict, list)), f"unreadable triggers {on!r}"
    return {str(name) for name in on}


def steps(doc: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])]


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_action_is_pinned_by_a_full_sha_and_concurrency_is_set(path: Path) -> None:
    doc = load(path)
    assert "concurrency" in doc, f"{path.name} sets no concurrency"
    for step in steps(doc):
        if "uses" in step:
            assert FULL_SHA.match(step["uses"]), f"{path.name}: {step['uses']} is not pinned by a full SHA"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_pull_request_workflow_is_labelled_or_holds_nothing_trusted(path: Path) -> None:
    """Under pull_request the workflow is the pull request's: it may judge only where it says
    'trusted contributors only', and otherwise holds no secret, no write permission, no gate."""
    doc, text = load(path), path.read_text()
    if "pull_request" not in triggers(doc):
        return
    if "trusted contributors only" in str(doc["name"]).lower():
        assert text.startswith("# TRUSTED CONTRIBUTORS ONLY")
        return
    assert "secrets." not in text
    assert PLACEHOLDER not in text
    assert "write" not in str(doc.get("permissions")) + str(
        [j.get("permissions") for j in doc["jobs"].values()]
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_privileged_trigger_never_checks_out_the_head(path: Path) -> None:
    doc = load(path)
    if not triggers(doc) & {"pull_request_target", "workflow_run", "merge_group"}:
        return
    for step in steps(doc):
        ref = str((step.get("with") or {}).get("ref", ""))
        assert "head" not in ref, f"{path.name}: checks out {ref}"
        assert "refs/pull" not in ref


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_workflow_run_job_checks_the_triggering_runs_conclusion(path: Path) -> None:
    doc = load(path)
    if "workflow_run" not in triggers(doc):
        return
    for name, job in doc["jobs"].items():
        assert "github.event.workflow_run.conclusion == 'success'" in str(job.get("if")), name


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_gate_takes_its_map_from_outside_the_checkout(path: Path) -> None:
    for step in steps(load(path)):
        if str(step.get("uses", "")).startswith("oracle-gate/oracle-gate@"):
            coverage = step["with"].get("coverage-file", "")
            assert coverage.startswith("../"), f"{path.name}: coverage-file {coverage!r} is in the checkout"


def test_the_primary_setup_is_trusted_judges_merge_queues_and_posts_as_an_app() -> None:
    doc = load(EXAMPLES[0].with_name("oracle-gate.yml"))
    assert {"pull_request_target", "merge_group"} <= triggers(doc)
    assert "pull_request" not in triggers(doc)
    judge = doc["jobs"]["oracle-gate"]
    assert judge["environment"] == "oracle-gate"
    minted = [
        s for s in judge["steps"] if str(s.get("uses", "")).startswith("actions/create-github-app-token@")
    ]
    assert minted
    gate = next(s for s in judge["steps"] if str(s.get("uses", "")).startswith("oracle-gate/oracle-gate@"))
    assert gate["with"]["github-token"] == "${{ steps.app.outputs.token }}"
