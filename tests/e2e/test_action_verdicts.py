"""Each verdict, end to end: the check run, the sticky comment, the summary, the outputs, verdict.json,
the exit status; in a workspace owned by another user, as in a Docker action."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import RUN_ID, Runner
from tests.support.in_process import run_cli
from tests.support.project import FROZEN_TEST, FUNCTIONS, REPO, Project

STICKY = "<!-- oracle-gate:sticky -->"


def expected_json(project: Project, merge: str) -> dict[str, object]:
    """What ``oracle-gate check`` says about the same two commits: the action must agree exactly."""
    proc = run_cli(
        "check", "--repo", str(project.origin), "--base", project.main, "--head", merge,
        "--coverage", str(project.coverage), "--coverage-sha", project.main, "--format", "json",
    )  # fmt: skip
    assert proc.returncode in (0, 1, 2), proc.stderr
    doc: dict[str, object] = json.loads(proc.stdout)
    return doc


CASES = {
    # number: (verdict, conclusion, comment mode, fail-on, exit status)
    1: ("pass_clean", "success", "always", "fail,unscored", 0),
    2: ("unscored", "action_required", "on-change", "fail,unscored", 1),
    3: ("fail", "failure", "on-change", "unscored", 0),  # fail is not in fail-on: the step passes
}


@pytest.mark.parametrize("number", sorted(CASES))
def test_each_verdict_is_posted_and_reported(
    runner: Runner, project: Project, fake: FakeGitHub, number: int
) -> None:
    """pull_request on a shallow checkout of the test merge, on a pull request with 150 comments:
    everything the action promises, per verdict; then a second run edits the comment in place."""
    verdict, conclusion, comment, fail_on, status = CASES[number]
    pr = project.pulls[number]
    assert pr.merge is not None
    for i in range(150):
        fake.add_comment(REPO, number, f"review note {i}", user=f"reviewer{i % 5}")
    inputs = {"comment": comment, "fail-on": fail_on}
    payload = events.pull_request(project, pr)
    result = runner.run(
        "pull_request", payload, runner.workspace(at="merge", pr=pr), sha=pr.merge, inputs=inputs
    )
    assert result.status == status, result.log

    stored = result.verdict_json()
    assert stored == expected_json(project, pr.merge)
    assert (stored["verdict"], stored["parent"], stored["head"]) == (verdict, project.main, pr.merge)

    (run,) = fake.check_runs(REPO)
    assert (run.name, run.head_sha, run.status, run.conclusion) == (
        "Oracle Gate",
        pr.head,
        "completed",
        conclusion,
    )
    assert run.details_url == f"https://github.com/{REPO}/actions/runs/{RUN_ID}"
    assert verdict in (run.title or "")

    (ours,) = [c for c in fake.comments(REPO, number) if c.body.startswith(STICKY)]
    assert f"`{verdict}`" in ours.body

    codes = [r["code"] for r in stored["reasons"]]
    overlap = sum(len(lines) for lines in stored["overlap"].values())
    assert result.outputs == {
        "verdict": verdict,
        "reasons": ",".join(codes),
        "overlap-count": str(overlap),
        "overlap-ratio": str(stored["overlap_ratio"]),
        "check-run-id": str(run.id),
        "comment-id": str(ours.id),
        "verdict-json": "verdict.json",
    }
    assert f"Oracle Gate: `{verdict}`" in result.summary.splitlines()[1]  # the report, after the marker
    assert f"Check run `Oracle Gate` (id {run.id}): `{conclusion}`" in result.summary
    assert f"Sticky comment: created (id {ours.id})" in result.summary
    assert (
        f"verdict {verdict} {'is' if status else 'is not'} in fail-on: exit status {status}" in result.stdout
    )
    assert len(fake.comments(REPO, number)) == 151

    ours.body = f"{STICKY}\nan older report"  # as if an earlier verdict had been posted
    again = runner.run(
        "pull_request", payload, runner.workspace(at="merge", pr=pr), sha=pr.merge, inputs=inputs
    )
    assert again.status == status
    assert again.outputs["comment-id"] == str(ours.id)
    assert f"Sticky comment: updated in place (id {ours.id})" in again.summary
    assert len(fake.comments(REPO, number)) == 151
    assert f"`{verdict}`" in ours.body
    assert [r.path for r in fake.log("PATCH", "/repos/*/issues/comments/*")] == [
        f"/repos/{REPO}/issues/comments/{ours.id}"
    ]
    assert [r.head_sha for r in fake.check_runs(REPO)] == [pr.head, pr.head]


def test_more_than_50_annotations_arrive_in_batches(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """60 overlap ranges: 50 annotations with the create, 10 appended by one PATCH; all arrive."""
    pr = project.pulls[2]
    assert pr.merge is not None
    result = runner.run(
        "pull_request", events.pull_request(project, pr), runner.workspace(at="merge", pr=pr), sha=pr.merge
    )
    assert result.status == 1
    (run,) = fake.check_runs(REPO)
    assert len(run.annotations) == FUNCTIONS
    assert [
        len(r.json["output"].get("annotations", [])) for r in fake.log("POST", "/repos/*/check-runs")
    ] == [50]
    assert [len(r.json["output"]["annotations"]) for r in fake.log("PATCH", "/repos/*/check-runs/*")] == [10]
    lines = sorted(a["start_line"] for a in run.annotations)
    assert lines == [2 + 4 * i for i in range(FUNCTIONS)]  # the middle line of every function, in the parent
    assert all(
        a["annotation_level"] == "warning" and a["path"] == "src/frozen_area.py" for a in run.annotations
    )
    assert all(FROZEN_TEST in a["message"] for a in run.annotations)
    assert "60 of 60 annotation(s)" in result.summary


def test_failure_annotations_point_at_the_files_that_fail(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[3]
    assert pr.merge is not None
    result = runner.run(
        "pull_request", events.pull_request(project, pr), runner.workspace(at="merge", pr=pr), sha=pr.merge
    )
    assert result.status == 1
    (run,) = fake.check_runs(REPO)
    found = {
        (a["path"], a["annotation_level"], a["title"].split("(")[-1].rstrip(")")) for a in run.annotations
    }
    assert ("fixtures/data.json", "failure", "oracle_edit_forbidden") in found
    assert ("tests/test_calc.py", "failure", "skip_marker_added") in found
    assert result.outputs["reasons"] == "oracle_edit_forbidden,skip_marker_added"


def test_the_workspace_belongs_to_another_user_and_no_global_config_is_written(
    each_runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """Plain git refuses the workspace (dubious ownership); the gate still works, trusting it for its
    own commands only: nothing is written to the global git config, and no credential is persisted."""
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = each_runner.workspace(at="merge", pr=pr)
    env = {"HOME": str(each_runner.home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}
    plain = subprocess.run(
        ["git", "-C", str(ws), "status"], env=env, capture_output=True, text=True, check=False
    )
    assert plain.returncode == 128
    assert "dubious ownership" in plain.stderr
    result = each_runner.run("pull_request", events.pull_request(project, pr), ws, sha=pr.merge)
    assert result.status == 0, result.log
    assert result.outputs["verdict"] == "pass_clean"
    assert not (each_runner.home / ".gitconfig").exists()
    assert not (each_runner.home / ".config" / "git").exists()
    config = (ws / ".git" / "config").read_text()
    assert "safe" not in config
    assert "extraheader" not in config.lower()
    again = subprocess.run(
        ["git", "-C", str(ws), "status"], env=env, capture_output=True, text=True, check=False
    )
    assert again.returncode == 128  # still refused: the trust was never written anywhere


def test_the_sticky_comment_is_updated_in_place_among_150_comments(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """First run creates the comment; a re-run leaves it alone; after a push it is edited in place
    (same id, no duplicate), found on the second page of 150 other comments; a person's comment that
    merely contains the marker is never adopted."""
    v1, v2 = project.versions["v1"], project.versions["v2"]
    assert v1.merge is not None
    assert v2.merge is not None
    for i in range(149):
        fake.add_comment(REPO, 5, f"comment {i}", user=f"reviewer{i % 7}")
    pasted = fake.add_comment(REPO, 5, f"{STICKY}\nquoted from the bot", user="a-person")

    first = runner.run(
        "pull_request", events.pull_request(project, v1), runner.workspace(at="merge", pr=v1), sha=v1.merge
    )
    assert first.status == 1
    ours = [c for c in fake.comments(REPO, 5) if c.user == "github-actions[bot]"]
    assert len(ours) == 1
    assert "`unscored`" in ours[0].body
    comment_id = ours[0].id
    assert first.outputs["comment-id"] == str(comment_id)

    again = runner.run(
        "pull_request", events.pull_request(project, v1), runner.workspace(at="merge", pr=v1), sha=v1.merge
    )
    assert again.outputs["comment-id"] == str(comment_id)
    assert "Sticky comment: already up to date" in again.summary
    assert fake.log("PATCH", "/repos/*/issues/comments/*") == []

    project.point_pull(v2)  # the author pushes: a new head and a new test merge
    fake.state.pulls[(REPO, 5)].head_sha = v2.head
    third = runner.run(
        "pull_request", events.pull_request(project, v2), runner.workspace(at="merge", pr=v2), sha=v2.merge
    )
    assert third.status == 0, third.log
    assert third.outputs["comment-id"] == str(comment_id)
    ours = [c for c in fake.comments(REPO, 5) if c.body.startswith(STICKY)]
    assert [c.id for c in ours] == [pasted.id, comment_id]
    assert "`pass_clean`" in ours[1].body
    assert ours[0].body == f"{STICKY}\nquoted from the bot"
    assert len(fake.comments(REPO, 5)) == 151
    assert [r.status for r in fake.log("PATCH", "/repos/*/issues/comments/*")] == [200]
    assert any(r.query.get("page") == "2" for r in fake.log("GET", "/repos/*/issues/5/comments"))
    heads = [r.head_sha for r in fake.check_runs(REPO)]
    assert heads == [v1.head, v1.head, v2.head]
