"""The Action never judges a stale test merge (TRUST.md 6, oracle_gate.review.freshness): once the base has
moved and GitHub has not recomputed refs/pull/N/merge, the merge's first parent is not the base's
tip; the Action looks again and, still stale, posts a failure check saying so - never the old
parent's verdict."""

from __future__ import annotations

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import Runner
from tests.support.project import REPO, Project, git


def move_main(project: Project) -> str:
    """A new commit on origin's main (same tree); refs/pull/N/merge are left on the old one."""
    moved = git(
        project.origin,
        "-c",
        "user.name=someone",
        "-c",
        "user.email=someone@example.com",
        "commit-tree",
        f"{project.main}^{{tree}}",
        "-p",
        project.main,
        "-m",
        "main moves",
    )
    project.git("update-ref", "refs/heads/main", moved)
    return moved


def test_a_test_merge_on_the_old_base_is_not_judged(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[1]
    moved = move_main(project)
    try:
        payload = events.check_run_rerequested(project, pr, name="Oracle Gate")
        result = runner.run("check_run", payload, runner.workspace(at="base"), sha=project.main)
    finally:
        project.git("update-ref", "refs/heads/main", project.main)
    assert result.status == 3, result.log
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    (error,) = result.commands("error")
    assert f"not onto the current tip {moved[:12]} of main after 6 look(s)" in error  # review.freshness


def test_a_fresh_test_merge_is_judged(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[1]
    payload = events.check_run_rerequested(project, pr, name="Oracle Gate")
    result = runner.run("check_run", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 0, result.log
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "success")
