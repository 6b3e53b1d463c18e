"""Limits are verdicts (../shared/spec/TRUST.md invariant 8): a map the workflow points at a device,
a FIFO or a sparse gigabyte ends quickly in a posted check, never in a hang, a MemoryError or a
killed job with nothing posted."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gate.maps.read import MANIFEST_SUFFIX
from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import MAP_PRODUCER, Runner
from tests.support.project import REPO, Project


def plant(runner: Runner, kind: str) -> Path:
    """A trusted job's manifest whose data file is ``kind``; returns the manifest for coverage-file.

    The map lies outside the checkout and names a default-branch producer, so it passes the trust
    checks and the gate really has to read the data file (within its limits) to judge it."""
    manifest = runner.write_map(MAP_PRODUCER, name=f"hostile-{kind}", content=b"placeholder")
    target = manifest.with_name(manifest.name.removesuffix(MANIFEST_SUFFIX))
    target.unlink()
    if kind == "dev_zero":
        target.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        with target.open("wb") as handle:
            handle.truncate(1024**3)
    return manifest


@pytest.mark.parametrize("kind", ["dev_zero", "fifo", "sparse_1gb"])
def test_an_unbounded_map_ends_in_a_posted_check(
    kind: str, runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    manifest = plant(runner, kind)
    started = time.monotonic()
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        ws,
        sha=pr.merge,
        timeout=60,
        inputs={"coverage-file": str(manifest)},
    )
    assert time.monotonic() - started < 60
    assert result.status != 0, result.log
    assert "Traceback" not in result.log
    assert "MemoryError" not in result.log
    (run,) = fake.check_runs(REPO)
    assert run.conclusion in {"failure", "action_required"}, run.summary
    # A FIFO or a sparse gigabyte is refused by the bounded reader; a link to /dev/zero already by
    # the trust checks (its data resolves outside the manifest's directory). Either way, unread.
    refusals = ("not a regular file", "-byte limit", "resolves outside the manifest's directory")
    assert any(why in (run.summary or "") for why in refusals), run.summary
    assert run.head_sha == pr.head
