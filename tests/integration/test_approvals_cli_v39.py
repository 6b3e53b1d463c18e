"""Contract v3.9 through ``oracle-gate check`` (issue 29): ``--base-changed-at`` with each entry's
``submitted_at``, and ``--author-permission`` for a policy's ``[approvals] authors``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_approvals_cli import (
    approval,
    approvals_file,
    check,
    codes,
    freeze_change,
    with_policy,
)
from tests.support.factories import Project

REVIEWED = "2026-11-30T12:00:00Z"
AUTHORS = '[approvals]\noracle = ["alice"]\nauthors = ["maint"]\n'


def test_a_retarget_after_the_review_makes_the_approval_stale(project: Project, tmp_path: Path) -> None:
    with_policy(project)
    head = freeze_change(project)
    file = approvals_file(tmp_path, [{**approval("alice", head), "submitted_at": REVIEWED}])
    before = check(project, head, "--approvals", str(file), "--author", "agent")
    assert before.returncode == 0, before.stdout + before.stderr  # no base change known: it counts
    after = check(
        project,
        head,
        "--approvals",
        str(file),
        "--author",
        "agent",
        "--base-changed-at",
        "2026-11-30T12:05:00Z",
    )
    assert (after.returncode, codes(after)) == (1, {"oracle_edit_forbidden"})
    earlier = check(
        project,
        head,
        "--approvals",
        str(file),
        "--author",
        "agent",
        "--base-changed-at",
        "2026-11-30T11:00:00Z",
    )
    assert earlier.returncode == 0, earlier.stdout + earlier.stderr


def test_an_entry_without_submitted_at_is_stale_once_the_base_changed(
    project: Project, tmp_path: Path
) -> None:
    with_policy(project)
    head = freeze_change(project)
    file = approvals_file(tmp_path, [approval("alice", head)])
    done = check(project, head, "--approvals", str(file), "--author", "agent", "--base-changed-at", REVIEWED)
    assert (done.returncode, codes(done)) == (1, {"oracle_edit_forbidden"})


@pytest.mark.parametrize(
    ("extra", "entry", "message"),
    [
        (("--base-changed-at", "yesterday"), {}, "--base-changed-at is not an ISO time"),
        (("--base-changed-at", "2026-11-30T12:00:00"), {}, "has no UTC offset"),
        ((), {"submitted_at": 5}, "'submitted_at' must be an ISO time string"),
        ((), {"submitted_at": "noon"}, "'submitted_at' is not an ISO time"),
    ],
)
def test_bad_times_are_usage_errors(
    project: Project, tmp_path: Path, extra: tuple[str, ...], entry: dict[str, object], message: str
) -> None:
    with_policy(project)
    head = freeze_change(project)
    file = approvals_file(tmp_path, [{**approval("alice", head), **entry}])
    done = check(project, head, "--approvals", str(file), "--author", "agent", *extra)
    assert done.returncode == 3
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_base_changed_at_needs_approvals(project: Project) -> None:
    with_policy(project)
    done = check(project, freeze_change(project), "--base-changed-at", REVIEWED)
    assert done.returncode == 3
    assert "--base-changed-at needs --approvals" in done.stderr


def test_the_maintainers_own_pull_request(project: Project) -> None:
    with_policy(project, AUTHORS)
    head = freeze_change(project)
    unasked = check(project, head, "--author", "maint")
    assert unasked.returncode == 1
    writer = check(project, head, "--author", "maint", "--author-permission", "write")
    assert (writer.returncode, codes(writer)) == (1, {"oracle_edit_forbidden"})
    done = check(project, head, "--author", "maint", "--author-permission", "admin")
    assert done.returncode == 0, done.stdout + done.stderr
    reasons = json.loads(done.stdout)["reasons"]
    assert {
        "code": "oracle_change_approved",
        "detail": f"approved by maint at {head} (by the author)",
    } in reasons
    other = check(project, head, "--author", "agent", "--author-permission", "admin")
    assert other.returncode == 1


def test_author_permission_needs_author(project: Project) -> None:
    with_policy(project, AUTHORS)
    done = check(project, freeze_change(project), "--author-permission", "admin")
    assert done.returncode == 3
    assert "--author-permission needs --author" in done.stderr
