"""The default branch moves under an open pull request judged on the old parent, and the new parent
has no map yet: the old check (a success would still satisfy a required check) is replaced by an
``action_required`` check saying it is stale; GitHub alone may conclude ``stale``."""

from __future__ import annotations

import time

import pytest

from oracle_gate.github.values import CheckContent
from oracle_gate.judgement.stale import Earlier, is_stale, stale_check
from tests.bot.harness import Bot, BotFactory, Origin, pull_request_event, push_event
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub


def move_main(origin: Origin) -> str:
    old = origin.main
    origin.repo.write("README.md", "main moves\n")
    origin.repo.git("add", "-A")
    origin.repo.git("commit", "-q", "-m", "main moves")
    origin.main = origin.repo.git("rev-parse", "HEAD")
    return old


def remerge(origin: Origin, number: int, head: str) -> None:
    """GitHub's test merge of the unchanged ``head`` on the moved default branch."""
    r = origin.repo
    r.git("checkout", "-q", "--detach", origin.main)
    r.git("merge", "-q", "--no-ff", "-m", f"merge {number}", head)
    r.git("update-ref", f"refs/pull/{number}/merge", r.git("rev-parse", "HEAD"))
    r.git("checkout", "-q", "main")


def test_a_moved_parent_without_a_map_replaces_the_check_with_a_stale_one(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    run = github.add_workflow_run(REPO, WORKFLOW, origin.main)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, origin.main, run.id))
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (passed,) = github.check_runs(REPO)
    assert passed.conclusion == "success"
    old = move_main(origin)
    remerge(origin, 1, head)  # the same head; GitHub's test merge is now made on the new parent
    assert bot.deliver("push", push_event(origin.main)).status_code == 202
    bot.wait_idle()
    runs = github.check_runs(REPO)
    assert len(runs) == 3  # marked stale at once, then judged on the new parent (no map: unscored)
    assert runs[1].conclusion == "action_required"
    latest = runs[-1]
    assert (latest.head_sha, latest.name, latest.app_login) == (head, passed.name, "oracle-gate")
    assert latest.conclusion == "action_required"
    summary = latest.summary or ""
    assert "**Stale.**" in summary
    assert f"`{old}`" in summary
    assert f"`{origin.main}`" in summary
    assert "`pass_clean`" in summary


@pytest.mark.server  # the check looked at while the job still waits for the test merge: jobs side by side
def test_a_moved_base_marks_the_old_verdict_stale_until_the_test_merge_is_recomputed(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    """TRUST 6: between the push to the default branch and GitHub recomputing the test merge, the
    old parent's success must not stand as current; once the merge is fresh the pull request is
    judged again on the new parent (whose map exists)."""
    bot = bot_factory(env={"ORACLE_GATE_MERGE_WAIT_MS": "1000"})
    run = github.add_workflow_run(REPO, WORKFLOW, origin.main)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, origin.main, run.id))
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (passed,) = github.check_runs(REPO)
    assert passed.conclusion == "success"
    old = move_main(origin)  # refs/pull/1/merge still merges onto the old tip: not fresh
    run = github.add_workflow_run(REPO, WORKFLOW, origin.main)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, origin.main, run.id))
    assert bot.deliver("push", push_event(origin.main)).status_code == 202
    deadline = time.monotonic() + 4.0  # well before the looks (6 x 1 s) run out
    while len(github.check_runs(REPO)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    runs = github.check_runs(REPO)
    assert len(runs) == 2, "the old parent's success still stands while the merge is recomputed"
    marked = runs[-1]
    assert (marked.head_sha, marked.name, marked.conclusion) == (head, passed.name, "action_required")
    assert "**Stale.**" in (marked.summary or "")
    assert f"`{old}`" in (marked.summary or "")
    assert f"`{origin.main}`" in (marked.summary or "")
    remerge(origin, 1, head)  # GitHub has recomputed the test merge on the new tip
    bot.wait_idle()
    runs = github.check_runs(REPO)
    assert len(runs) == 3
    assert (runs[-1].head_sha, runs[-1].conclusion) == (head, "success")
    assert "Stale" not in (runs[-1].summary or "")


def test_a_first_judgement_without_a_map_is_not_called_stale(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.conclusion == "action_required"
    assert "Stale" not in (run.summary or "")


def content(conclusion: str, summary: str = "s") -> CheckContent:
    return CheckContent(conclusion, "t", summary, False, "pending", "t", minimal_summary=None)


def test_only_an_unscored_check_on_another_parent_is_stale() -> None:
    earlier = Earlier("a" * 40, "pass_clean")
    assert is_stale(earlier, "b" * 40, content("action_required"))
    assert not is_stale(earlier, "a" * 40, content("action_required"))  # same parent: not stale
    assert not is_stale(earlier, "b" * 40, content("failure"))  # a real verdict on the new parent
    assert not is_stale(None, "b" * 40, content("action_required"))


def test_the_stale_summary_still_fits_githubs_limit() -> None:
    big = content("action_required", "x" * 65535)
    marked = stale_check(big, Earlier("a" * 40, "fail"), "b" * 40)
    assert len(marked.summary.encode()) <= 65535
    assert marked.summary_truncated
    assert marked.conclusion == "action_required"
