"""The action failing without a verdict: it says why in one line, never exits 0, and fails closed."""

from __future__ import annotations

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import Runner
from tests.support.project import REPO, Project


def test_a_bad_input_is_one_error_line_and_exit_3(
    each_runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = each_runner.workspace(at="merge", pr=pr)
    result = each_runner.run_pull_request(pr, ws, inputs={"fail-on": "sometimes"})
    assert result.status == 3
    (error,) = result.commands("error")
    assert (
        error
        == "Oracle Gate: input 'fail-on' takes verdicts from pass_clean, fail, unscored (or 'none'); "
        + ("got 'sometimes'")
    )
    assert result.stdout.count("\n") == 1
    assert fake.requests == []


def test_an_unexpected_crash_fails_closed(each_runner: Runner, project: Project, fake: FakeGitHub) -> None:
    """verdict.json cannot be written (a directory is in the way): the crash is one error line, exit 3,
    and since no check was posted yet, a failure check goes on the head."""
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = each_runner.workspace(at="merge", pr=pr)
    (ws / "verdict.json").mkdir()
    result = each_runner.run_pull_request(pr, ws)
    assert result.status == 3
    (error,) = result.commands("error")
    assert error.startswith("Oracle Gate failed: internal error: IsADirectoryError")
    assert "Traceback" not in result.log
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    assert "IsADirectoryError" in (run.summary or "")


def test_a_head_that_cannot_be_learned_is_one_error_and_exit_3(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """/oracle-gate rerun, and pulls/get answers 404: no head, so no check either; one error line."""
    pr = project.pulls[3]
    fake.set_permission(REPO, "maintainer", "maintain")
    said = fake.add_comment(REPO, 3, "/oracle-gate rerun", user="maintainer")
    fake.fail_next("GET", "/repos/*/pulls/3", 404)
    payload = events.comment(pr, "/oracle-gate rerun", login="maintainer", comment_id=said.id)
    result = runner.run("issue_comment", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 3
    (error,) = result.commands("error")
    assert "cannot learn the head commit of pull request #3" in error
    assert "404" in error
    assert fake.check_runs(REPO) == []
    assert [r.content for r in fake.reactions(said.id)] == ["eyes"]
    assert result.outputs["verdict"] == "error"
    assert "head commit is not known" in result.summary
