"""The two-stage flow end to end, as the shipped stage 2 (examples/oracle-gate-fork-safe-publish.yml)
runs it: stage 1 (the pull request's own run) only names a pull request; stage 2 (default branch)
fetches the test merge as git objects, judges it with the trusted map and posts as the App."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.support.harness import Runner
from tests.support.project import REPO, Project, chown_tree, git

pytestmark = pytest.mark.process  # stage 2 as the shipped workflow runs it: a subprocess

APP_TOKEN = "ghs_OracleGateTwoStage00000000000000000000"  # noqa: S105 - a fake token for the fake server


def cli(fake: FakeGitHub, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"GITHUB_TOKEN": APP_TOKEN, "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", **fake.env()}
    return subprocess.run(
        [sys.executable, "-m", "oracle_gate", *args], env=env, capture_output=True, text=True, check=False
    )


def stage_two(
    runner: Runner, fake: FakeGitHub, named: str, head_sha: str, tmp: Path
) -> subprocess.CompletedProcess[str]:
    """What the shipped stage 2 does with the number stage 1 named and the triggering run's head SHA."""
    number = "".join(c for c in named[:20] if c.isdigit())
    ws = runner.workspace(at="base", depth=None)  # fetch-depth: 0, as the shipped stage 2
    chown_tree(ws, os.getuid())  # a run step is the workspace's owner (the Docker action is not)
    git(ws, "fetch", "-q", "--no-tags", "origin", f"+refs/pull/{number}/merge:refs/oracle-gate/merge")
    if git(ws, "rev-parse", "refs/oracle-gate/merge^2") != head_sha:
        return subprocess.CompletedProcess(
            [], 1, "", f"pull request {number}'s test merge is not of {head_sha}"
        )
    parent = git(ws, "rev-parse", "refs/oracle-gate/merge^1")
    verdict = tmp / "verdict.json"
    checked = cli(
        fake, "check", "--repo", str(ws), "--base", parent, "--head", "refs/oracle-gate/merge",
        "--protect", ".github/workflows/**", "--coverage", str(runner.map_manifest),
        "--format", "json", "--output", str(verdict),
    )  # fmt: skip
    assert checked.returncode in (0, 1, 2), checked.stderr
    return cli(
        fake, "publish", "--verdict", str(verdict), "--repo", REPO, "--pr", number, "--head-sha", head_sha
    )


def test_the_two_stage_flow_judges_in_stage_two_and_posts_as_the_app(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_token(APP_TOKEN, app="oracle-gate")
    clean, frozen_only = project.pulls[4], project.pulls[2]
    fake.add_pull_files(REPO, 4, ["src/calc.py"])
    fake.add_pull_files(REPO, 2, ["src/frozen_area.py"])
    passed = stage_two(runner, fake, "4\n", clean.head, tmp_path)
    assert passed.returncode == 0, passed.stderr
    posted = fake.check_runs(REPO)[-1]
    assert (posted.name, posted.head_sha, posted.conclusion, posted.app_login) == (
        "Oracle Gate", clean.head, "success", "oracle-gate",
    )  # fmt: skip
    unscored = stage_two(runner, fake, "2", frozen_only.head, tmp_path)
    assert unscored.returncode == 2, unscored.stderr
    assert fake.check_runs(REPO)[-1].conclusion != "success"


def test_stage_one_naming_another_pull_request_gets_nothing_posted(
    runner: Runner, project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """A rewritten stage 1 names the clean pull request #4 while the run is #2's: stage 2 refuses."""
    fake.add_token(APP_TOKEN, app="oracle-gate")
    result = stage_two(runner, fake, "4", project.pulls[2].head, tmp_path)
    assert result.returncode != 0
    assert fake.check_runs(REPO) == []
