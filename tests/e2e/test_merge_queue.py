"""``merge_group``: the queue's merge commit judged against the queue's base, the check on its SHA."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import Runner
from tests.support.project import REPO, Project, PullRequest


@pytest.fixture
def queue_ref(project: Project) -> Iterator[Callable[[PullRequest], str]]:
    """The queue's branch for a pull request (what GitHub pushes for a merge group), at its test
    merge, in the shared origin; removed after the test."""
    made: list[str] = []

    def make(pr: PullRequest, base: str = "main") -> str:
        assert pr.merge is not None
        ref = f"refs/heads/gh-readonly-queue/{base}/pr-{pr.number}-{pr.head}"
        project.git("update-ref", ref, pr.merge)
        made.append(ref)
        return ref

    yield make
    for ref in made:
        project.git("update-ref", "-d", ref)


def test_a_merge_group_is_judged_against_its_base_and_reported_on_its_merge_commit(
    runner: Runner, project: Project, fake: FakeGitHub, queue_ref: Callable[[PullRequest], str]
) -> None:
    """The queue's merge commit here is #2's test merge (built on main): it touches frozen-only lines."""
    pr = project.pulls[2]
    assert pr.merge is not None
    payload = events.merge_group(project, head_sha=pr.merge, head_ref=queue_ref(pr))
    result = runner.run("merge_group", payload, runner.workspace(at="base"), sha=pr.merge)
    assert result.outputs["verdict"] == "unscored", result.log
    assert result.verdict_json()["parent"] == project.main
    assert result.verdict_json()["head"] == pr.merge
    posted = fake.check_runs(REPO)[-1]
    assert (posted.name, posted.head_sha) == ("Oracle Gate", pr.merge)
    assert posted.conclusion != "success"
    assert "judging the merge queue's commit" in result.log


def test_a_clean_merge_group_gets_a_passing_check(
    runner: Runner, project: Project, fake: FakeGitHub, queue_ref: Callable[[PullRequest], str]
) -> None:
    pr = project.pulls[4]
    assert pr.merge is not None
    payload = events.merge_group(project, head_sha=pr.merge, head_ref=queue_ref(pr))
    result = runner.run("merge_group", payload, runner.workspace(at="base"), sha=pr.merge)
    assert result.outputs["verdict"] == "pass_clean", result.log
    posted = fake.check_runs(REPO)[-1]
    assert (posted.name, posted.head_sha, posted.conclusion) == ("Oracle Gate", pr.merge, "success")
    assert fake.comments(REPO, pr.number) == []  # a merge group has no pull request to comment on


def test_a_merge_group_for_another_base_does_not_post_the_required_check(
    runner: Runner, project: Project, fake: FakeGitHub, queue_ref: Callable[[PullRequest], str]
) -> None:
    pr = project.pulls[4]
    assert pr.merge is not None
    payload = events.merge_group(project, head_sha=pr.merge, head_ref=queue_ref(pr), base="agent-base")
    runner.run("merge_group", payload, runner.workspace(at="base"), sha=pr.merge)
    assert fake.check_runs(REPO)[-1].name == "Oracle Gate (base: agent-base)"


def test_other_merge_group_actions_are_ignored(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[4]
    payload = events.merge_group(project, head_sha=pr.merge or "", head_ref="refs/heads/x")
    payload["action"] = "destroyed"
    result = runner.run("merge_group", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 0
    assert result.outputs["verdict"] == ""
    assert fake.check_runs(REPO) == []
