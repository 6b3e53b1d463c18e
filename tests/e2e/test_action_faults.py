"""GitHub misbehaving, and tokens that may not write: the verdict always stands, the exit status follows
the verdict, the log and the summary say what was not posted and why."""

from __future__ import annotations

import base64
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.git_http import GitHttpServer
from tests.github_fake import FakeGitHub, TokenKind
from tests.support import events
from tests.support.harness import Result, Runner
from tests.support.project import REPO, Project, PullRequest, git

CREATE_CHECK = "/repos/*/check-runs"
CREATE_COMMENT = "/repos/*/issues/*/comments"


def judge(
    runner: Runner,
    project: Project,
    pr: PullRequest,
    *,
    token: str | None = None,
    inputs: dict[str, str] | None = None,
) -> Result:
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    payload = events.pull_request(project, pr)
    return runner.run("pull_request", payload, ws, sha=pr.merge, token=token, inputs=inputs)


def test_server_errors_are_retried_until_success(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    fake.fail_next("POST", CREATE_CHECK, 500)
    fake.fail_next("POST", CREATE_CHECK, 502)
    result = judge(runner, project, project.pulls[3])
    assert result.status == 1
    assert [r.status for r in fake.log("POST", CREATE_CHECK)] == [500, 502, 201]
    assert len(fake.check_runs(REPO)) == 1
    assert result.outputs["check-run-id"] == str(fake.check_runs(REPO)[0].id)
    assert result.commands("warning") == []


def test_a_secondary_rate_limit_is_waited_out(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    fake.secondary_rate_limit("POST", CREATE_COMMENT, retry_after=1)
    started = time.monotonic()
    result = judge(runner, project, project.pulls[3])
    assert result.status == 1
    assert [r.status for r in fake.log("POST", CREATE_COMMENT)] == [403, 201]
    assert time.monotonic() - started >= 1
    assert result.stderr.splitlines() == [  # the entrypoint's logging: one line per retry
        f"oracle-gate: Request POST /repos/{REPO}/issues/3/comments failed with 403: FORBIDDEN",
        "oracle-gate: Retrying after 1 seconds",
    ]
    (comment,) = fake.comments(REPO, 3)
    assert result.outputs["comment-id"] == str(comment.id)


def test_a_rejected_comment_leaves_the_verdict_and_says_so(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """422 on the comment: the check run still goes out, the exit status is the verdict's."""
    fake.fail_next("POST", CREATE_COMMENT, 422, times=10)
    result = judge(runner, project, project.pulls[2])
    assert result.status == 1
    assert result.outputs["verdict"] == "unscored"
    assert result.outputs["comment-id"] == ""
    assert result.outputs["check-run-id"] == str(fake.check_runs(REPO)[0].id)
    assert fake.comments(REPO, 2) == []
    (warning,) = result.commands("warning")
    assert "sticky comment not posted" in warning
    assert "422" in warning
    assert "Sticky comment: **not posted**" in result.summary
    assert "422" in result.summary
    assert result.verdict_json()["verdict"] == "unscored"


def test_a_slow_answer_within_the_timeout_is_waited_for(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    fake.slow_next("POST", CREATE_CHECK, 2.0)
    result = judge(runner, project, project.pulls[1])
    assert result.status == 0
    assert [r.status for r in fake.log("POST", CREATE_CHECK)] == [201]
    assert fake.check_runs(REPO)[0].conclusion == "success"


def test_a_read_only_token_on_a_fork_still_computes_and_reports(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """A fork's GITHUB_TOKEN can read only: the verdict, outputs, summary and verdict.json are all
    there; the log and the summary say clearly why nothing was posted and what to use instead."""
    pr = project.pulls[2]
    fake.add_pull(REPO, 2, head_sha=pr.head, base_sha=project.main, fork=True, author="agent-fork")
    read_only = "ghs_ReadOnlyForkToken0000000000000000"
    fake.add_token(read_only, TokenKind.READ_ONLY)
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    payload = events.pull_request(project, pr, fork=True)
    result = runner.run("pull_request", payload, ws, sha=pr.merge, token=read_only)
    assert result.status == 1, result.log
    assert fake.check_runs(REPO) == []
    assert fake.statuses(REPO) == []
    assert fake.comments(REPO, 2) == []
    assert result.outputs["verdict"] == "unscored"
    assert result.outputs["check-run-id"] == ""
    assert result.outputs["comment-id"] == ""
    assert result.verdict_json()["verdict"] == "unscored"
    warnings = result.commands("warning")
    assert any("nothing was posted" in w and "oracle-gate-fork-safe.yml" in w for w in warnings)
    assert "nothing was posted" in result.summary
    assert "oracle-gate-fork-safe-publish.yml" in result.summary
    assert "Resource not accessible by integration" in result.summary
    assert "Traceback" not in result.log


def test_a_personal_access_token_posts_a_commit_status(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """A PAT may not write check runs: a commit status of the same name goes out instead, and the
    sticky comment (posted as the PAT's user, named by comment-author) is updated in place later."""
    pat = "ghp_PersonalAccessToken000000000000000000"
    fake.add_token(pat, TokenKind.PAT, login="a-maintainer")
    pr = project.pulls[2]
    inputs = {"comment-author": "a-maintainer"}
    first = judge(runner, project, pr, token=pat, inputs=inputs)
    assert first.status == 1
    (status,) = fake.statuses(REPO)
    assert (status.sha, status.context, status.state) == (pr.head, "Oracle Gate", "failure")
    assert "unscored" in (status.description or "")
    assert first.outputs["check-run-id"] == ""
    assert "Commit status `Oracle Gate`: `failure`" in first.summary
    (comment,) = fake.comments(REPO, 2)
    assert comment.user == "a-maintainer"
    assert first.outputs["comment-id"] == str(comment.id)
    second = judge(runner, project, pr, token=pat, inputs=inputs)
    assert second.outputs["comment-id"] == str(comment.id)
    assert len(fake.comments(REPO, 2)) == 1


@pytest.mark.parametrize("setup", ["persist-credentials-false", "persisted", "no-origin-remote"])
def test_a_private_repository_is_fetched_with_the_token_in_the_environment_only(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path, setup: str
) -> None:
    """pull_request_target on a private repository: the merge ref is fetched over HTTP with the
    token, which never appears on a command line. Checked out with persist-credentials: false, the
    gate hands git the token through GIT_CONFIG_* for that fetch; when actions/checkout persisted its
    own header, the gate adds none (a second Authorization header is refused, as GitHub does).
    Without an ``origin`` remote it fetches from GITHUB_SERVER_URL/OWNER/NAME.git."""
    persisted = setup == "persisted"
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    argv_log = tmp_path / "git-argv.log"
    shim = shim_dir / "git"
    shim.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$*" >> {argv_log}\n'
        f'printf "env-header=%s\\n" "${{GIT_CONFIG_KEY_0:-none}}" >> {argv_log}\n'
        'exec /usr/bin/git "$@"\n'
    )
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    pr = project.pulls[3]
    served = tmp_path / "served"
    (served / REPO).parent.mkdir(parents=True)
    (served / f"{REPO}.git").symlink_to(project.origin)
    with GitHttpServer(served, fake.token) as server:
        url = f"{server.url}/{REPO}.git"
        ws = runner.workspace(at="base", url=url, auth_header=server.expected_header())
        config_key = f"http.{server.url}/.extraheader"
        if persisted:
            git(ws, "config", "--local", config_key, f"AUTHORIZATION: {server.expected_header()}")
        if setup == "no-origin-remote":
            git(ws, "remote", "remove", "origin")
        before = len(server.requests)
        path = f"{shim_dir}:{os.path.dirname(sys.executable)}:/usr/bin:/bin"
        payload = events.pull_request(project, pr)
        result = runner.run(
            "pull_request_target", payload, ws, sha=project.main, server_url=server.url, path=path
        )
        fetches = server.requests[before:]
    assert result.status == 1, result.log
    assert result.outputs["verdict"] == "fail"
    assert fetches, "the gate did not fetch over HTTP"
    assert all(r.authorized for r in fetches if r.method == "POST")
    log = argv_log.read_text()
    encoded = base64.b64encode(f"x-access-token:{fake.token}".encode()).decode()
    assert fake.token not in log
    assert encoded not in log
    fetch_envs = [
        env
        for call, env in zip(log.splitlines()[::2], log.splitlines()[1::2], strict=True)
        if " fetch " in call
    ]
    assert fetch_envs == ["env-header=none" if persisted else f"env-header={config_key}"]
    written = (ws / ".git" / "config").read_text().lower()
    assert ("extraheader" in written) == persisted  # the gate itself never writes a credential
