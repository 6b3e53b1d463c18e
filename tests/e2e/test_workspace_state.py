"""The workspace after the action (../shared/spec/TRUST.md invariant 10): the runner's user, who owns
it, can read verdict.json and keep using the repository the action fetched into as root."""

from __future__ import annotations

from tests.support import events
from tests.support.harness import Runner
from tests.support.project import Project
from tests.support.runner_user import assert_usable_by_runner_user


def test_after_a_fetch_of_the_merge_ref_the_runner_user_can_use_the_workspace(
    runner: Runner, project: Project
) -> None:
    """pull_request_target on a shallow checkout of the base: the gate fetches refs/pull/1/merge and
    the history as root; afterwards the runner's user copies verdict.json, commits, deletes the
    private ref and runs git gc."""
    pr = project.pulls[1]
    ws = runner.workspace(at="base")
    result = runner.run("pull_request_target", events.pull_request(project, pr), ws, sha=project.main)
    assert result.status == 0, result.log
    assert_usable_by_runner_user(ws, private_ref="refs/oracle-gate/pull/1/merge")


def test_after_a_pull_request_run_the_runner_user_can_read_the_verdict(
    runner: Runner, project: Project
) -> None:
    pr = project.pulls[3]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    result = runner.run(
        "pull_request", events.pull_request(project, pr), ws, sha=pr.merge, inputs={"fail-on": "none"}
    )
    assert result.status == 0, result.log
    assert_usable_by_runner_user(ws)
