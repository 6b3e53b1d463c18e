"""``oracle-gate publish``: stage 2 of the fork-safe workflow, as a subprocess with GITHUB_TOKEN in its
environment, posting a verdict.json that stage 1 (the action, with a read-only token) wrote."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub, TokenKind
from tests.support import events
from tests.support.harness import Runner
from tests.support.project import REPO, Project, PullRequest

pytestmark = pytest.mark.process  # `oracle-gate publish` as a subprocess: its token from its own env

READ_ONLY = "ghs_StageOneReadOnly00000000000000000000"
BLANK = " "  # a GITHUB_TOKEN of whitespace counts as unset


def stage_one(runner: Runner, project: Project, fake: FakeGitHub, pr: PullRequest, tmp: Path) -> Path:
    """The compute stage on a fork: the action with a read-only token writes verdict.json."""
    fake.add_token(READ_ONLY, TokenKind.READ_ONLY)
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr, fork=True),
        ws,
        sha=pr.merge,
        token=READ_ONLY,
        inputs={"comment": "never", "fail-on": "none"},
    )
    assert result.status == 0, result.log
    stored = tmp / "artifact" / "verdict.json"
    stored.parent.mkdir()
    shutil.copyfile(ws / "verdict.json", stored)
    return stored


def publish(fake: FakeGitHub, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"GITHUB_TOKEN": token or fake.token, "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", **fake.env()}
    proc = subprocess.run(
        [sys.executable, "-m", "oracle_gate", "publish", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert fake.token not in proc.stdout + proc.stderr
    return proc


def test_publish_posts_the_stored_verdict(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    pr = project.pulls[2]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    assert fake.check_runs(REPO) == []
    fake.add_pull_files(REPO, 2, ["src/frozen_area.py"])
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "2", "--head-sha", pr.head)
    assert proc.returncode == 2, proc.stderr  # unscored
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion, len(run.annotations)) == (pr.head, "action_required", 60)
    (comment,) = fake.comments(REPO, 2)
    assert "`unscored`" in comment.body
    assert "oracle-gate: unscored (freeze_overlap)" in proc.stdout


def test_publish_refuses_a_head_that_moved(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    pr = project.pulls[2]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "2", "--head-sha", "f" * 40)
    assert proc.returncode == 3
    assert "refusing to publish" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert fake.check_runs(REPO) == []
    assert fake.comments(REPO, 2) == []


def test_a_pull_request_editing_workflows_gets_fail_not_its_stored_verdict(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """Stage 1 of such a pull request ran its own workflow: the stored pass_clean is not trusted. The
    workflow file is on the second page of the pull request's files."""
    pr = project.pulls[1]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    assert json.loads(stored.read_text())["verdict"] == "pass_clean"
    fake.add_pull_files(REPO, 1, [f"docs/page{i}.md" for i in range(120)])
    fake.add_pull_file(
        REPO, 1, ".github/workflows/oracle.yml", status="renamed", previous_filename="ci/oracle.yml"
    )
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", pr.head)
    assert proc.returncode == 1, proc.stderr
    (run,) = fake.check_runs(REPO)
    assert run.conclusion == "failure"
    assert ".github/workflows/oracle.yml" in (run.summary or "")
    assert "not trusted" in (run.summary or "")
    assert [r.query.get("page", "1") for r in fake.log("GET", "/repos/*/pulls/1/files")] == ["1", "2"]
    assert "publishing fail instead of the stored pass_clean" in proc.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "is not a verdict.json"), ('{"verdict": "maybe"}', "is not a verdict.json")],
)
def test_a_malformed_verdict_file_is_one_line_and_exit_3(
    fake: FakeGitHub, project: Project, tmp_path: Path, content: str, message: str
) -> None:
    stored = tmp_path / "verdict.json"
    stored.write_text(content)
    pr = project.pulls[1]
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", pr.head)
    assert proc.returncode == 3
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert fake.requests == []


def test_the_token_comes_from_the_environment_only(
    fake: FakeGitHub, project: Project, tmp_path: Path
) -> None:
    stored = tmp_path / "verdict.json"
    stored.write_text("{}")
    proc = publish(
        fake, "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", "a" * 40, token=BLANK
    )
    assert proc.returncode == 3
    assert "GITHUB_TOKEN is not set" in proc.stderr
    flag = publish(
        fake, "--token", "x", "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", "a" * 40
    )
    assert flag.returncode == 3
    assert "unrecognized arguments: --token" in flag.stderr


def test_a_forged_stored_verdict_is_rejected_not_rendered(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """Seen on main: a forged verdict became ``fail`` but kept its forged parent/head strings and
    rendered its version raw. Now a field out of shape rejects the file: nothing is posted."""
    pr = project.pulls[1]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    doc = json.loads(stored.read_text())
    doc["parent"] = "x\r\n### ✅ Oracle Gate: `pass_clean`"
    doc["protocol"]["gate_version"] = "<img src=https://evil.example/b>"
    stored.write_text(json.dumps(doc))
    fake.add_pull_file(REPO, 1, ".github/workflows/oracle.yml")
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", pr.head)
    assert proc.returncode == 3
    assert "'parent' is not a full hex commit SHA" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert fake.check_runs(REPO) == []


def test_the_workflow_file_name_cannot_write_workflow_commands(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """Seen on main: the PR's workflow file name was printed raw on stderr, so the PR chose
    ``::error``/``::add-mask`` lines in the log."""
    pr = project.pulls[1]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    evil = ".github/workflows/x\n::add-mask::oracle\n::error::pwned ##[warning]legacy.yml"
    fake.add_pull_file(REPO, 1, evil)
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", pr.head)
    assert proc.returncode == 1, proc.stderr
    assert "publishing fail instead of the stored pass_clean" in proc.stderr
    lines = proc.stderr.splitlines()
    assert not [line for line in lines if line.strip().startswith("::")]
    assert "##[" not in proc.stderr


def test_a_verdict_of_another_pull_requests_merge_is_rejected(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """A pass_clean stored for pull request #1 brought to #2's publish run (the head-sha is #2's, the
    file untouched): GitHub's parents of the stored head are (main, #1's head), not #2's head."""
    stored = stage_one(runner, project, fake, project.pulls[1], tmp_path)
    pr = project.pulls[2]
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "2", "--head-sha", pr.head)
    assert proc.returncode == 3, proc.stderr
    assert "not the test merge of this pull request" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    assert "not trusted" in (run.summary or "")
    assert fake.comments(REPO, 2) == []
    (get,) = fake.log("GET", "/repos/*/commits/*")
    assert get.path.endswith(project.pulls[1].merge or "")


def test_a_verdict_whose_parent_is_not_the_merges_first_parent_is_rejected(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """The change judged against a parent of its choosing (here its own head, so nothing it changed
    counts): the SHAs are well-formed, the head is the real test merge, the parent is not main."""
    pr = project.pulls[2]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    doc = json.loads(stored.read_text())
    assert (doc["head"], doc["parent"]) == (pr.merge, project.main)
    doc["parent"] = pr.head
    stored.write_text(json.dumps(doc))
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "2", "--head-sha", pr.head)
    assert proc.returncode == 3, proc.stderr
    assert "not the test merge of this pull request" in proc.stderr
    (run,) = fake.check_runs(REPO)
    assert run.conclusion == "failure"
    assert fake.comments(REPO, 2) == []


def test_a_verdict_of_a_commit_github_does_not_know_is_rejected(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """A stored head GitHub answers 422 for (a merge built only on the runner): fail closed."""
    pr = project.pulls[1]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    doc = json.loads(stored.read_text())
    doc["head"] = "e" * 40
    stored.write_text(json.dumps(doc))
    proc = publish(fake, "--verdict", str(stored), "--repo", REPO, "--pr", "1", "--head-sha", pr.head)
    assert proc.returncode == 3, proc.stderr
    assert "cannot be verified to be the test merge" in proc.stderr
    (run,) = fake.check_runs(REPO)
    assert run.conclusion == "failure"
    assert fake.take_violations() == []


def test_with_an_app_token_only_the_apps_own_marker_comment_is_adopted(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """Seen on main: ``publish`` had no --comment-author, so with an App installation token (GET /user
    names no one) it took github-actions[bot] as its own identity: a marker comment any pull
    request's own workflow can post with GITHUB_TOKEN."""
    from oracle_gate.render.markdown import STICKY_MARKER

    pr = project.pulls[2]
    stored = stage_one(runner, project, fake, pr, tmp_path)
    fake.add_pull_files(REPO, 2, ["src/frozen_area.py"])
    app_token = "ghs_AcmeGateInstallation000000000000000"  # noqa: S105  # the fake's, not a secret
    fake.add_token(app_token, app="acme-gate")
    forged = fake.add_comment(REPO, 2, f"{STICKY_MARKER}\nall clear", user="github-actions[bot]")
    args = ["--verdict", str(stored), "--repo", REPO, "--pr", "2", "--head-sha", pr.head]
    proc = publish(fake, *args, "--comment-author", "acme-gate[bot]", token=app_token)
    assert proc.returncode == 2, proc.stderr
    comments = fake.comments(REPO, 2)
    assert [c.user for c in comments] == ["github-actions[bot]", "acme-gate[bot]"]
    assert comments[0].body == forged.body  # untouched
    assert "`unscored`" in comments[1].body
