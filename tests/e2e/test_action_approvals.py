"""Contract v3.5 approvals through the Action, against the fake GitHub: a maintainer's freeze pull
request on a base whose policy names approvers passes once a listed approver approves its head,
an approval of an older head is stale, and reviews that cannot be read are said, never a pass."""

from __future__ import annotations

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import MAP_PRODUCER, Result, Runner
from tests.support.project import CALC, REPO, Project, PullRequest, _commit_files, _commit_with_file
from tests.support.webhooks import as_base_edit

BASE = "guarded"
POLICY = '[approvals]\noracle = ["alice"]\n'
REVIEWED, RETARGETED = "2026-11-30T12:00:00Z", "2026-11-30T12:05:00Z"


def freeze_pull(project: Project, fake: FakeGitHub, number: int) -> PullRequest:
    """A maintainer's freeze pull request (it edits the code too) against ``guarded``: main with a
    policy that names ``alice``."""
    tip = _commit_with_file(project, project.main, "oracle-gate.toml", POLICY, "name approvers")
    project.git("update-ref", f"refs/heads/{BASE}", tip)
    freeze = project.git("show", f"{project.main}:freeze.json").replace('"flaky"', '"flaky, reviewed"')
    files = {"freeze.json": (freeze + "\n").encode(), "src/calc.py": CALC.replace("a + b", "b + a").encode()}
    head = _commit_files(project, project.main, files, "re-reason the freeze")
    tree = project.git("merge-tree", "--write-tree", tip, head).splitlines()[0]
    merge = project.git("commit-tree", tree, "-p", tip, "-p", head, "-m", "the test merge")
    project.git("update-ref", f"refs/pull/{number}/head", head)
    project.git("update-ref", f"refs/pull/{number}/merge", merge)
    fake.add_pull(REPO, number, head_sha=head, base_sha=tip, head_ref="freeze", base_ref=BASE)
    fake.set_permission(REPO, "alice", "write")
    return PullRequest(number, head, merge, "freeze", base=tip)


def judge(runner: Runner, project: Project, pr: PullRequest) -> Result:
    assert pr.base is not None
    parent_map = runner.write_map(MAP_PRODUCER, name=BASE, parent=pr.base)
    return runner.run(
        "pull_request_target", events.pull_request(project, pr, base_ref=BASE), runner.workspace(at="base"),
        sha=project.main, inputs={"coverage-file": str(parent_map), "allowed-bases": f"main, {BASE}"},
    )  # fmt: skip


def test_an_approved_freeze_change_passes_and_an_older_heads_approval_is_stale(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = freeze_pull(project, fake, 21)
    unapproved = judge(runner, project, pr)
    assert unapproved.outputs["verdict"] == "fail", unapproved.log
    fake.reviews.add_review(REPO, 21, "alice", state="APPROVED", commit_id="1" * 40)
    stale = judge(runner, project, pr)
    assert stale.outputs["verdict"] == "fail", stale.log
    assert "`alice` approved `111111111111`" in (fake.check_runs(REPO)[-1].summary or "")
    fake.reviews.add_review(REPO, 21, "alice", state="APPROVED", commit_id=pr.head)
    approved = judge(runner, project, pr)
    assert approved.outputs["verdict"] == "pass_clean", approved.log
    run = fake.check_runs(REPO)[-1]
    assert run.conclusion == "success"
    assert f"approved by alice at {pr.head}" in (run.summary or "")


def test_reviews_that_cannot_be_read_never_pass_and_say_so(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = freeze_pull(project, fake, 22)
    fake.reviews.add_review(REPO, 22, "alice", state="APPROVED", commit_id=pr.head)
    fake.fail_next("GET", f"/repos/{REPO}/pulls/22/reviews", 403, times=20)
    result = judge(runner, project, pr)
    assert result.outputs["verdict"] == "fail", result.log
    assert "the approvals could not be read" in result.log
    assert "Approvals could not be read" in (fake.check_runs(REPO)[-1].summary or "")


def test_a_retarget_after_the_approval_makes_it_stale(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """v3.9.1 (issue 29): the run's own ``edited`` event says when the base changed (GitHub's issue
    events may not list it yet); an approval submitted before it is stale, and the check says so."""
    pr = freeze_pull(project, fake, 23)
    fake.reviews.add_review(REPO, 23, "alice", state="APPROVED", commit_id=pr.head, submitted_at=REVIEWED)
    assert pr.base is not None
    payload = as_base_edit(events.pull_request(project, pr, base_ref=BASE), "mine", pr.base)
    payload["pull_request"]["updated_at"] = RETARGETED
    parent_map = runner.write_map(MAP_PRODUCER, name=BASE, parent=pr.base)
    result = runner.run(
        "pull_request_target", payload, runner.workspace(at="base"), sha=project.main,
        inputs={"coverage-file": str(parent_map), "allowed-bases": f"main, {BASE}"},
    )  # fmt: skip
    assert result.outputs["verdict"] == "fail", result.log
    summary = fake.check_runs(REPO)[-1].summary or ""
    assert "submitted before the base branch changed at `2026-11-30 12:05:00 UTC`" in summary
    fake.reviews.add_review(REPO, 23, "alice", state="APPROVED", commit_id=pr.head)  # now: after it
    assert judge(runner, project, pr).outputs["verdict"] == "pass_clean"
