"""The publisher tier's repository, pull request and clients: the production factories, unpaced."""

from __future__ import annotations

from github import Github

from oracle_gate.github.content import check_content, sticky_comment
from oracle_gate.github.defaults import CommentMode
from oracle_gate.github.publisher import Publisher, PublishResult, RetrySettings, make_client, open_repo
from oracle_gate.judge.verdict import Verdict
from tests.github_fake import FakeGitHub

REPO = "octo-org/agent-repo"
PR = 7
HEAD_SHA = "1" * 40
BASE_SHA = "2" * 40
# Tiny waits so retries are exercised without sleeping; a 1 s timeout for the slow-response tests.
FAST = RetrySettings(
    total=3,
    backoff_factor=0.01,
    backoff_max=0.05,
    secondary_rate_wait=0.05,
    max_wait=3,
    read_retries=0,
    timeout=1,
)


def client_for(fake: FakeGitHub, *, token: str | None = None, per_page: int = 100) -> Github:
    """The production client factory, pointed at the fake, without PyGithub's pacing."""
    return make_client(
        token or fake.token,
        fake.url,
        retry=FAST,
        per_page=per_page,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )


def publisher_for(
    fake: FakeGitHub, *, details_url: str | None = None, comment_author: str | None = None
) -> Publisher:
    repo = open_repo(client_for(fake), REPO)
    return Publisher(repo, details_url=details_url, comment_author=comment_author)


def publish_rendered(
    publisher: Publisher,
    verdict: Verdict,
    *,
    head_sha: str,
    pr_number: int | None = None,
    comment_mode: CommentMode = CommentMode.ON_CHANGE,
) -> PublishResult:
    """The verdict rendered for GitHub as the Action renders it, then posted."""
    return publisher.publish(
        check_content(verdict),
        head_sha=head_sha,
        pr_number=pr_number,
        comment=sticky_comment(verdict, comment_mode),
    )


def seed_test_merge(fake: FakeGitHub, stored: Verdict) -> Verdict:
    """Make the stored verdict's ``head`` GitHub's test merge of the pull request (parents: the stored
    ``parent``, then HEAD_SHA), as ``oracle-gate publish`` requires."""
    fake.add_commit(REPO, stored.head, [stored.parent, HEAD_SHA])
    return stored


def seed(fake: FakeGitHub) -> FakeGitHub:
    fake.add_repo(REPO)
    fake.add_pull(REPO, PR, head_sha=HEAD_SHA, base_sha=BASE_SHA)
    return fake
