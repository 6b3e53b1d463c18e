"""pulls/list-files through the pull requests side, and what `oracle-gate publish` makes of it."""

from __future__ import annotations

import pytest

from oracle_gate.action.publish_stored import publish_stored, workflow_edits
from oracle_gate.errors import GateError
from oracle_gate.github.defaults import DEFAULT_CHECK_NAME, CommentMode
from oracle_gate.github.pulls import PullFile
from tests.github.clients import HEAD_SHA, PR, REPO, github_for, pulls_for, seed_test_merge
from tests.github_fake import FakeGitHub
from tests.support import verdicts


def test_every_page_of_files_is_listed_with_renames(fake: FakeGitHub) -> None:
    fake.add_pull_files(REPO, PR, [f"src/m{i}.py" for i in range(230)])
    fake.add_pull_file(REPO, PR, "gone.py", status="removed")
    fake.add_pull_file(REPO, PR, "b.py", status="renamed", previous_filename="a.py")
    pulls = pulls_for(fake)
    files = pulls.pull_request_files(PR)
    assert len(files) == 232
    assert files[-2:] == [PullFile("gone.py", None, "removed"), PullFile("b.py", "a.py", "renamed")]
    assert files[-1].paths == ("a.py", "b.py")
    assert [r.query.get("page", "1") for r in fake.log("GET", "/repos/*/pulls/*/files")] == ["1", "2", "3"]
    assert pulls.pull_request(PR).changed_files == 232


def test_workflow_edits_count_both_sides_of_a_rename() -> None:
    files = [
        PullFile("src/x.py", None, "modified"),
        PullFile("ci/old.yml", ".github/workflows/old.yml", "renamed"),
        PullFile(".github/workflows/new.yml", None, "added"),
        PullFile(".github/dependabot.yml", None, "modified"),
    ]
    assert workflow_edits(files) == [".github/workflows/new.yml", ".github/workflows/old.yml"]


def test_more_files_than_github_lists_cannot_be_trusted(fake: FakeGitHub) -> None:
    """GitHub lists at most 3000 files: beyond that the workflow check cannot be made, so nothing of
    the stored verdict is posted; a failure check says why."""
    fake.add_pull_files(REPO, PR, [f"f{i}.txt" for i in range(3001)])
    said: list[str] = []
    with pytest.raises(GateError, match="3000 of the 3001 files"):
        publish_stored(
            github_for(fake),
            seed_test_merge(fake, verdicts.passing()),
            pr_number=PR,
            head_sha=HEAD_SHA,
            check_name=DEFAULT_CHECK_NAME,
            comment_mode=CommentMode.ON_CHANGE,
            say=said.append,
        )
    (run,) = fake.check_runs(REPO)
    assert run.conclusion == "failure"
    assert "not trusted" in (run.summary or "")
    assert fake.comments(REPO, PR) == []


def test_a_stored_fail_is_posted_as_it_is(fake: FakeGitHub) -> None:
    fake.add_pull_files(REPO, PR, [".github/workflows/ci.yml"])
    stored = seed_test_merge(fake, verdicts.failing())
    verdict, result = publish_stored(
        github_for(fake),
        stored,
        pr_number=PR,
        head_sha=HEAD_SHA,
        check_name=DEFAULT_CHECK_NAME,
        comment_mode=CommentMode.NEVER,
        say=lambda _: None,
    )
    assert verdict is stored
    assert result.check.conclusion == "failure"
