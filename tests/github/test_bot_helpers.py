"""What the future bot commands need: permissions, reactions, replies, pull request facts, the client."""

from __future__ import annotations

import pytest

from oracle_gate import __version__
from oracle_gate.github.client import open_repo
from oracle_gate.github.pulls import PullInfo
from tests.github.clients import BASE_SHA, HEAD_SHA, PR, REPO, client_for, comments_for, pulls_for
from tests.github_fake import FakeGitHub


@pytest.mark.parametrize(
    ("login", "expected"), [("maintainer", "admin"), ("helper", "write"), ("stranger", "none")]
)
def test_permission_of_a_commenter(fake: FakeGitHub, login: str, expected: str) -> None:
    fake.set_permission(REPO, "maintainer", "admin")
    fake.set_permission(REPO, "helper", "write")
    assert pulls_for(fake).permission_of(login) == expected
    assert [r.operation_id for r in fake.requests] == ["repos/get-collaborator-permission-level"]


def test_react_to_a_command_comment(fake: FakeGitHub) -> None:
    command = fake.add_comment(REPO, PR, "/oracle-gate recheck", user="maintainer")
    comments = comments_for(fake)
    comments.react(PR, command.id, "eyes")
    comments.react(PR, command.id, "eyes")  # GitHub answers 200 with the existing reaction
    comments.react(PR, command.id, "confused")
    assert [r.content for r in fake.reactions(command.id)] == ["eyes", "confused"]
    assert [r.status for r in fake.requests] == [201, 200, 201]


def test_unknown_reaction_is_refused_before_any_request(fake: FakeGitHub) -> None:
    with pytest.raises(ValueError, match="reaction must be one of"):
        comments_for(fake).react(PR, 1, "thumbsup")
    assert fake.requests == []


def test_reply_posts_a_plain_comment(fake: FakeGitHub) -> None:
    comment_id = comments_for(fake).reply(PR, "Only maintainers may ask for a re-check.")
    (comment,) = fake.comments(REPO, PR)
    assert (comment.id, comment.body, comment.user) == (
        comment_id,
        "Only maintainers may ask for a re-check.",
        "github-actions[bot]",
    )


def test_pull_request_facts_come_from_pulls_get(fake: FakeGitHub) -> None:
    """One ``pulls/get`` (never ``issues/get``): head and base SHAs, and whether the head is a fork."""
    fake.add_pull(REPO, 8, head_sha="3" * 40, base_sha="4" * 40, fork=True, author="contributor")
    pulls = pulls_for(fake)
    assert pulls.pull_request(PR) == PullInfo(PR, HEAD_SHA, BASE_SHA, "feature", "main", False, "agent-bot")
    assert pulls.pull_request(8).from_fork
    assert [r.operation_id for r in fake.requests] == ["pulls/get", "pulls/get"]


def test_client_is_lazy_and_identifies_itself(fake: FakeGitHub) -> None:
    """Building the client and the repository sends nothing; requests carry the token and user agent."""
    repo = open_repo(client_for(fake), REPO)
    assert fake.requests == []
    assert repo.get_pull(PR).head.sha == HEAD_SHA
    (request,) = fake.requests
    assert request.authorization == f"token {fake.token}"
    assert request.headers["User-Agent"] == f"oracle-gate/{__version__}"
