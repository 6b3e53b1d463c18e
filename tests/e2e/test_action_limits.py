"""Limits are verdicts (../shared/spec/TRUST.md invariant 8): a map the workflow points at a device,
a FIFO or a sparse gigabyte ends quickly in a posted check, never in a hang, a MemoryError or a
killed job with nothing posted."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import MAP_PATH, Runner
from tests.support.project import REPO, Project


def plant(ws: Path, kind: str) -> None:
    """Put ``kind`` where the workflow's coverage-file input points."""
    target = ws / MAP_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    if kind == "dev_zero":
        target.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        with target.open("wb") as handle:
            handle.truncate(1024**3)


@pytest.mark.parametrize("kind", ["dev_zero", "fifo", "sparse_1gb"])
def test_an_unbounded_map_ends_in_a_posted_check(
    kind: str, runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr, coverage=False)
    plant(ws, kind)
    started = time.monotonic()
    result = runner.run("pull_request", events.pull_request(project, pr), ws, sha=pr.merge, timeout=60)
    assert time.monotonic() - started < 60
    assert result.status != 0, result.log
    assert "Traceback" not in result.log
    assert "MemoryError" not in result.log
    (run,) = fake.check_runs(REPO)
    assert run.conclusion in {"failure", "action_required"}, run.summary
    assert run.head_sha == pr.head
