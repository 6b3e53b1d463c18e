"""A workflow that holds a write permission or a secret runs only as the default branch's file
(TRUST.md invariant 2), by the table of :mod:`tests.support.workflow_events`.

Exceptions: ``merge_group`` (the queue's merge commit's file) when the gate step protects
``.github/workflows/**``, so a pull request that edits workflows is never queued with a pass; and the
one example labelled trusted contributors only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from tests.support.workflow_events import WorkflowFile, workflow_file_of

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yml"))
DEFAULT_BRANCH = "main"
WORKFLOWS_GLOB = ".github/workflows/**"


def triggers(doc: dict[Any, Any]) -> dict[str, Any]:
    on = doc.get(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return dict.fromkeys(on)
    assert isinstance(on, dict), f"unreadable triggers {on!r}"
    return {str(name): spec for name, spec in on.items()}


def privileges(doc: dict[Any, Any]) -> list[str]:
    """What in the workflow a pull request must not get: write permissions (a job without any
    ``permissions`` gets the repository's default, which may be write), secrets, environments."""
    found = []
    if "secrets." in yaml.safe_dump(doc):
        found.append("secrets")
    for name, job in doc["jobs"].items():
        permissions = job.get("permissions", doc.get("permissions"))
        if permissions is None:
            found.append(f"job {name}: the default token permissions")
        elif "write" in str(permissions):
            found.append(f"job {name}: {permissions}")
        if "environment" in job:
            found.append(f"job {name}: environment {job['environment']}")
    return found


def untrusted_triggers(doc: dict[Any, Any]) -> list[str]:
    """The triggers whose run does not execute the default branch's workflow file (merge_group is
    allowed when every gate step protects the workflows)."""
    found = []
    for event, spec in triggers(doc).items():
        branches = spec.get("branches") if isinstance(spec, dict) else None
        source = workflow_file_of(event, push_branches=branches, default_branch=DEFAULT_BRANCH)
        if source is WorkflowFile.DEFAULT_BRANCH:
            continue
        if source is WorkflowFile.MERGE_GROUP_COMMIT and gate_steps_protect_workflows(doc):
            continue
        found.append(f"{event} runs {source.value} workflow file")
    return found


def gate_steps_protect_workflows(doc: dict[Any, Any]) -> bool:
    gates = [
        step
        for job in doc["jobs"].values()
        for step in job.get("steps", [])
        if str(step.get("uses", "")).startswith("oracle-gate/oracle-gate@")
    ]
    return bool(gates) and all(
        WORKFLOWS_GLOB in str((step.get("with") or {}).get("protected", "")).split() for step in gates
    )


def trusted_contributors_only(path: Path, doc: dict[Any, Any]) -> bool:
    return path.read_text().startswith("# TRUSTED CONTRIBUTORS ONLY") and (
        "trusted contributors only" in str(doc.get("name", "")).lower()
    )


def load(path: Path) -> dict[Any, Any]:
    doc: dict[Any, Any] = yaml.safe_load(path.read_text())
    return doc


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_privileged_example_runs_only_as_the_default_branchs_workflow(path: Path) -> None:
    doc = load(path)
    if not privileges(doc) or trusted_contributors_only(path, doc):
        return
    assert untrusted_triggers(doc) == [], f"{path.name} holds {privileges(doc)}"


def test_the_rule_is_not_vacuous_over_the_examples() -> None:
    """Most examples hold a privilege, and exactly one privileged example is the labelled exception."""
    privileged = [p for p in EXAMPLES if privileges(load(p))]
    assert len(privileged) >= 3, privileged
    labelled = [p.name for p in privileged if trusted_contributors_only(p, load(p))]
    assert labelled == ["oracle-gate-trusted-contributors.yml"]
    assert untrusted_triggers(load(EXAMPLES[0].with_name(labelled[0]))) == [
        "pull_request runs the pull request's merge commit's workflow file"
    ]


WORKFLOW = {
    "name": "judge",
    "permissions": {"contents": "read"},
    "jobs": {
        "j": {
            "permissions": {"checks": "write"},
            "steps": [{"uses": "oracle-gate/oracle-gate@" + "0" * 40, "with": {"protected": WORKFLOWS_GLOB}}],
        }
    },
}


@pytest.mark.parametrize(
    ("on", "untrusted"),
    [
        ({"pull_request": None}, ["pull_request"]),
        ({"push": None}, ["push"]),
        ({"push": {"branches": ["main", "agent-base"]}}, ["push"]),
        ({"workflow_dispatch": None}, ["workflow_dispatch"]),
        ({"pull_request_review": None}, ["pull_request_review"]),
        ({"push": {"branches": ["main"]}}, []),
        ({"pull_request_target": None, "workflow_run": None, "issue_comment": None, "schedule": None}, []),
        ({"merge_group": None}, []),
    ],
)
def test_the_rule_flags_every_trigger_whose_file_a_pull_request_can_choose(
    on: dict[str, Any], untrusted: list[str]
) -> None:
    flagged = untrusted_triggers({**WORKFLOW, "on": on})
    assert [line.split()[0] for line in flagged] == untrusted


def test_merge_group_is_an_exception_only_where_the_gate_protects_the_workflows() -> None:
    unprotected = {
        **WORKFLOW,
        "on": {"merge_group": None},
        "jobs": {"j": {"steps": [{"uses": "oracle-gate/oracle-gate@x"}]}},
    }
    assert untrusted_triggers(unprotected) == [
        "merge_group runs the merge queue's merge commit's workflow file"
    ]


def test_privileges_count_write_permissions_secrets_environments_and_defaults() -> None:
    assert privileges(WORKFLOW) == ["job j: {'checks': 'write'}"]
    assert privileges({"jobs": {"j": {"steps": []}}}) == ["job j: the default token permissions"]
    assert privileges({"permissions": {}, "jobs": {"j": {"environment": "oracle-gate"}}}) == [
        "job j: environment oracle-gate"
    ]
    assert privileges({"permissions": {}, "jobs": {"j": {"env": {"K": "${{ secrets.K }}"}}}}) == ["secrets"]
    assert privileges({"permissions": {}, "jobs": {"j": {"steps": []}}}) == []
