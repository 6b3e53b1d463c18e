"""The run's wall-time budget (TRUST.md invariant 8): a pull request whose tests never end makes the
run stop within its budget and post a ``failure`` check saying why, never a killed job with nothing
posted."""

from __future__ import annotations

import time

from tests.github_fake import FakeGitHub
from tests.support.harness import Runner
from tests.support.project import REPO, Project


def test_a_map_build_that_never_ends_is_a_posted_failure_within_the_budget(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[2]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    started = time.monotonic()
    result = runner.run_pull_request(
        pr,
        ws,
        inputs={
            "coverage-file": "",
            "coverage-sha": "",
            "coverage-command": "python -c 'import time; time.sleep(600)'",
            "time-budget": "4",
        },
    )
    elapsed = time.monotonic() - started
    assert elapsed < 4 + 10, elapsed  # the budget, and the set-up of the workspace's worktree
    assert result.status == 3, result.log
    (error,) = result.commands("error")
    assert "time budget was spent" in error
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    assert "time budget was spent" in (run.summary or "")
    assert "Traceback" not in result.log


def test_a_bad_time_budget_is_one_error_line(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    result = runner.run_pull_request(pr, ws, inputs={"time-budget": "forever"})
    assert result.status == 3
    (error,) = result.commands("error")
    assert "input 'time-budget' takes whole seconds" in error
    assert fake.requests == []
