"""Limits are verdicts (../shared/spec/TRUST.md invariant 8): a map the workflow points at a device,
a FIFO or a sparse gigabyte ends quickly in a posted check, never in a hang, a MemoryError or a
killed job with nothing posted."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX
from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import MAP_PRODUCER, Runner
from tests.support.project import REPO, Project, add_pull_request, drop_pull_request

MANY = 100_000
WRITES = {"POST", "PATCH", "PUT", "DELETE"}


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
    result = runner.run_pull_request(pr, ws, timeout=60, inputs={"coverage-file": str(manifest)})
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


@pytest.mark.parametrize(
    ("max_annotations", "max_api_writes"),
    [pytest.param(None, None, id="defaults"), pytest.param(120, 4, id="set-by-inputs")],
)
def test_100000_annotation_worthy_lines_through_the_action(
    runner: Runner,
    project: Project,
    fake: FakeGitHub,
    max_annotations: int | None,
    max_api_writes: int | None,
) -> None:
    """TRUST.md invariant 8 end to end: a real pull request adding 100,000 skip markers to a test file
    (the parent's map present) ends within its time budget in one capped check, its annotations and
    its write requests within the inputs' caps, the count left out said in the summary."""
    body = (
        "import pytest\n\n"
        + "".join(f"@pytest.mark.skip  # {i}\n" for i in range(MANY))
        + "def test_x():\n    pass\n"
    )
    pr = add_pull_request(project, 10, "many-skips", {"tests/test_many_skips.py": body})
    try:
        fake.add_pull(REPO, pr.number, head_sha=pr.head, base_sha=project.main, head_ref=pr.branch)
        inputs = {"time-budget": "120", "comment": "always"}
        if max_annotations is not None and max_api_writes is not None:
            inputs |= {"max-annotations": str(max_annotations), "max-api-writes": str(max_api_writes)}
        cap, writes_cap = max_annotations or 500, max_api_writes or 40
        started = time.monotonic()
        result = runner.run(
            "pull_request",
            events.pull_request(project, pr),
            runner.workspace(at="merge", pr=pr),
            sha=pr.merge or "",
            inputs=inputs,
            timeout=120,
        )
        elapsed = time.monotonic() - started
    finally:
        drop_pull_request(project, pr.number)
    assert elapsed < 120, elapsed
    assert result.status == 1, result.log  # fail, in fail-on
    assert "Traceback" not in result.log
    (run,) = fake.check_runs(REPO)
    assert run.conclusion == "failure"
    assert len(run.annotations) == cap
    assert f"{MANY - cap} more annotation(s) were left out" in (run.summary or "")
    assert len((run.summary or "").encode()) <= 65535
    writes = [r for r in fake.requests if r.method in WRITES]
    assert len(writes) <= writes_cap, [(r.method, r.path) for r in writes]
    assert -(-cap // 50) <= len(writes)
    (comment,) = fake.comments(REPO, pr.number)
    assert "`fail`" in comment.body
