"""The action's scenarios inside its image, as the runner runs it: the requests the fake GitHub
received, the outputs file, the job summary, the exit status, and a workspace the runner's user
(uid 1001) can still use afterwards."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.container import ContainerRunner
from tests.support.harness import RUN_ID, Result, Runner
from tests.support.project import FUNCTIONS, REPO, Project
from tests.support.runner_user import assert_usable_by_runner_user
from tests.support.token_probe import holders, write_probe

pytestmark = pytest.mark.container

STICKY = "<!-- oracle-gate:sticky -->"


def run_pull_request(
    runner: ContainerRunner, project: Project, number: int, inputs: dict[str, str] | None = None
) -> Result:
    pr = project.pulls[number]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    return runner.run("pull_request", events.pull_request(project, pr), ws, sha=pr.merge, inputs=inputs)


def assert_reported(result: Result, fake: FakeGitHub, verdict: str, conclusion: str) -> None:
    """One check run on the head, its outcome in the outputs and the summary, verdict.json agrees."""
    (run,) = fake.check_runs(REPO)
    assert (run.name, run.status, run.conclusion) == ("Oracle Gate", "completed", conclusion)
    assert run.details_url == f"https://github.com/{REPO}/actions/runs/{RUN_ID}"
    stored = result.verdict_json()
    assert stored["verdict"] == verdict
    assert result.outputs["verdict"] == verdict
    assert result.outputs["check-run-id"] == str(run.id)
    assert result.outputs["verdict-json"] == "verdict.json"
    assert f"Oracle Gate: `{verdict}`" in result.summary
    assert f"Check run `Oracle Gate` (id {run.id}): `{conclusion}`" in result.summary
    assert "Traceback" not in result.log


def test_pass_clean(runner: ContainerRunner, project: Project, fake: FakeGitHub) -> None:
    result = run_pull_request(runner, project, 1, {"comment": "always"})
    assert result.status == 0, result.log
    assert_reported(result, fake, "pass_clean", "success")
    (run,) = fake.check_runs(REPO)
    assert run.head_sha == project.pulls[1].head
    (comment,) = fake.comments(REPO, 1)
    assert comment.body.startswith(STICKY)
    assert "`pass_clean`" in comment.body
    assert result.outputs["comment-id"] == str(comment.id)
    assert [r.status for r in fake.log("POST", "/repos/*/check-runs")] == [201]
    assert_usable_by_runner_user(result.workspace)


def test_unscored_with_60_annotations_updates_the_existing_sticky_comment(
    runner: ContainerRunner, project: Project, fake: FakeGitHub
) -> None:
    earlier = fake.add_comment(REPO, 2, f"{STICKY}\nan older report", user="github-actions[bot]")
    fake.add_comment(REPO, 2, "a reviewer's note", user="reviewer")
    result = run_pull_request(runner, project, 2)
    assert result.status == 1, result.log  # unscored is in fail-on by default
    assert_reported(result, fake, "unscored", "action_required")
    (run,) = fake.check_runs(REPO)
    assert len(run.annotations) == FUNCTIONS
    posted = [len(r.json["output"].get("annotations", [])) for r in fake.log("POST", "/repos/*/check-runs")]
    patched = [len(r.json["output"]["annotations"]) for r in fake.log("PATCH", "/repos/*/check-runs/*")]
    assert (posted, patched) == ([50], [10])
    assert [c.id for c in fake.comments(REPO, 2)] == [earlier.id, earlier.id + 1]
    assert "`unscored`" in earlier.body
    assert fake.log("POST", "/repos/*/issues/*/comments") == []
    assert result.outputs["comment-id"] == str(earlier.id)
    assert f"Sticky comment: updated in place (id {earlier.id})" in result.summary
    assert_usable_by_runner_user(result.workspace)


def test_fail(runner: ContainerRunner, project: Project, fake: FakeGitHub) -> None:
    result = run_pull_request(runner, project, 3, {"fail-on": "fail,unscored"})
    assert result.status == 1, result.log
    assert_reported(result, fake, "fail", "failure")
    (run,) = fake.check_runs(REPO)
    codes = {a["title"].split("(")[-1].rstrip(")") for a in run.annotations}
    assert {"oracle_edit_forbidden", "skip_marker_added"} <= codes
    assert_usable_by_runner_user(result.workspace)


def test_a_gate_error_fails_closed_with_exit_3(
    runner: ContainerRunner, project: Project, fake: FakeGitHub
) -> None:
    """verdict.json cannot be written (a directory is in the way): one error line, a failure check on
    the head (rendered from the package's templates), exit 3."""
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    (ws / "verdict.json").mkdir()
    result = runner.run("pull_request", events.pull_request(project, pr), ws, sha=pr.merge)
    assert result.status == 3, result.log
    (error,) = result.commands("error")
    assert error.startswith("Oracle Gate failed: internal error: IsADirectoryError"), error
    assert "Traceback" not in result.log
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.status, run.conclusion) == (pr.head, "completed", "failure")
    assert "IsADirectoryError" in (run.summary or "")


def test_the_image_agrees_with_entrypoint_py_run_directly(
    runner: ContainerRunner,
    project: Project,
    fake: FakeGitHub,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    """The same pull request judged by ``entrypoint.py`` on the host and by the image: the same
    verdict.json, outputs (ids aside) and check conclusion. The time from start to the check run
    being posted is recorded for both (``-rA -s`` prints it)."""
    pr = project.pulls[3]
    assert pr.merge is not None
    payload = events.pull_request(project, pr)
    (tmp_path / "direct").mkdir()
    direct = Runner(project, fake, tmp_path / "direct")
    on_host = direct.run("pull_request", payload, direct.workspace(at="merge", pr=pr), sha=pr.merge)
    host_seconds = direct.seconds_to_first_check()
    fake.requests.clear()
    in_image = runner.run("pull_request", payload, runner.workspace(at="merge", pr=pr), sha=pr.merge)
    image_seconds = runner.seconds_to_first_check()
    assert in_image.status == on_host.status == 1, in_image.log  # fail is in fail-on by default
    assert in_image.verdict_json() == on_host.verdict_json()
    ids = ("check-run-id", "comment-id")
    assert {k: v for k, v in in_image.outputs.items() if k not in ids} == {
        k: v for k, v in on_host.outputs.items() if k not in ids
    }
    assert [r.conclusion for r in fake.check_runs(REPO)] == ["failure", "failure"]
    assert host_seconds is not None
    assert image_seconds is not None
    record_property("seconds_to_check_run_host", round(host_seconds, 2))
    record_property("seconds_to_check_run_image", round(image_seconds, 2))
    print(f"\nstart -> check run posted: entrypoint.py {host_seconds:.2f} s, image {image_seconds:.2f} s")


def test_a_coverage_command_in_the_image_finds_no_token(
    runner: ContainerRunner, project: Project, fake: FakeGitHub
) -> None:
    """TRUST.md 9 in the real image: the map build's command reads its own environment and every
    ancestor's /proc/<pid>/environ (the action's entrypoint included) and finds no token."""
    pr = project.pulls[2]
    ws = runner.workspace(at="base")
    write_probe(ws)
    result = runner.run(
        "pull_request_target",
        events.pull_request(project, pr),
        ws,
        sha=project.main,
        inputs={
            "coverage-file": "",
            "coverage-command": "python /github/workspace/token_probe.py /github/workspace/probe.json",
        },
    )
    assert holders(json.loads((ws / "probe.json").read_text()), fake.token) == []
    assert result.outputs["verdict"] != "pass_clean"


def test_a_merge_group_in_the_image_is_judged_and_leaves_the_workspace_usable(
    runner: ContainerRunner, project: Project, fake: FakeGitHub
) -> None:
    """merge_group fetches the queue's merge commit into the workspace as root: the runner's user
    can still use everything afterwards."""
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="base")
    # The queue's branch, as GitHub pushes it for a merge group (the event parser refuses any other).
    queue_ref = f"refs/heads/gh-readonly-queue/main/pr-{pr.number}-{pr.head}"
    project.git("update-ref", queue_ref, pr.merge)
    try:
        payload = events.merge_group(project, head_sha=pr.merge, head_ref=queue_ref)
        result = runner.run("merge_group", payload, ws, sha=pr.merge)
    finally:
        project.git("update-ref", "-d", queue_ref)
    assert result.outputs["verdict"] == "pass_clean", result.log
    (run,) = fake.check_runs(REPO)
    assert (run.name, run.head_sha, run.conclusion) == ("Oracle Gate", pr.merge, "success")
    assert_usable_by_runner_user(result.workspace)
