"""The run's wall-time budget (TRUST.md invariant 8): a pull request whose tests never end makes the
run stop within its budget and post a ``failure`` check saying why, never a killed job with nothing
posted."""

from __future__ import annotations

import time

from tests.github_fake import FakeGitHub
from tests.support import events
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
    assert "input 'time-budget' takes a whole number from 1 to " in error
    assert fake.requests == []


def test_a_change_over_max_changed_bytes_is_unscored_and_not_read(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """The bot's changed-bytes budget (TRUST.md 8) is the Action's too, from the same setting: past it
    the verdict is unscored (oracle_incomplete) and no map is built or read."""
    pr = project.pulls[2]  # both sides of its 60-function file: about 4 KiB
    assert pr.merge is not None
    payload = events.pull_request(project, pr)
    result = runner.run(
        "pull_request",
        payload,
        runner.workspace(at="merge", pr=pr),
        sha=pr.merge,
        inputs={"max-changed-bytes": "1024"},
    )
    stored = result.verdict_json()
    assert stored["verdict"] == "unscored", result.log
    assert [r["code"] for r in stored["reasons"]] == ["oracle_incomplete"]
    assert "over the 1024-byte budget" in stored["reasons"][0]["detail"]
    assert fake.check_runs(REPO)[-1].conclusion != "success"


def test_max_changed_bytes_is_checked(runner: Runner, project: Project) -> None:
    pr = project.pulls[1]
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        runner.workspace(at="merge", pr=pr),
        sha=pr.merge or "",
        inputs={"max-changed-bytes": "1e9"},
    )
    assert result.status != 0
    assert "input 'max-changed-bytes' takes a whole number from 1024" in result.log
