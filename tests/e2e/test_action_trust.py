"""The attacks of issue #10 on the map, each one now held: the judged pull request cannot feed its map."""

from __future__ import annotations

import json
from dataclasses import replace

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import MAP_PRODUCER, Runner
from tests.support.project import REPO, Project

#: A map that observes nothing frozen: accepted, it would make every change look unobserved.
FORGED = json.dumps({"tests/test_calc.py::test_add": {"src/calc.py": [1, 2]}}).encode()
#: The run of the pull request's own workflow (refs/pull/N/merge scope) that saved the cache.
PR_RUN = replace(
    MAP_PRODUCER,
    workflow_ref=f"{REPO}/.github/workflows/oracle-gate-map.yml@refs/pull/2/merge",
    event="pull_request",
    ref="refs/pull/2/merge",
    run_id="777",
)


def test_a_forged_map_from_a_pull_requests_cache_scope_gets_no_passing_check(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """GitHub restores a PR's own cache scope first: a PR run can save 'oracle-gate-map-<parent>'.
    The map it saved records that run as its producer, and the gate refuses it."""
    pr = project.pulls[2]
    payload = events.pull_request(project, pr)
    forged_by_pr = runner.write_map(PR_RUN, name="from-pr-cache", content=FORGED)
    refused = runner.run(
        "pull_request_target",
        payload,
        runner.workspace(at="base"),
        sha=project.main,
        inputs={"coverage-file": str(forged_by_pr)},
    )
    assert refused.outputs["verdict"] == "unscored", refused.log
    assert refused.outputs["reasons"] == "oracle_incomplete"
    assert "built by a 'pull_request' run" in refused.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"

    # The same bytes from a default-branch run would be used: the refusal is the producer's doing.
    trusted_bytes = runner.write_map(MAP_PRODUCER, name="from-main", content=FORGED)
    control = runner.run(
        "pull_request_target",
        payload,
        runner.workspace(at="base"),
        sha=project.main,
        inputs={"coverage-file": str(trusted_bytes)},
    )
    assert control.outputs["verdict"] == "pass_clean", control.log  # what the attack would have won


def test_a_map_without_a_recorded_producer_gets_no_passing_check(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[4]
    unproven = runner.write_map(None, name="no-producer")
    result = runner.run(
        "pull_request_target",
        events.pull_request(project, pr),
        runner.workspace(at="base"),
        sha=project.main,
        inputs={"coverage-file": str(unproven)},
    )
    assert result.outputs["verdict"] == "unscored", result.log
    assert "records no producer run" in result.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"
