"""The github tier's repository, pull request and clients: the production factories, unpaced."""

from __future__ import annotations

from github import Github

from oracle_gate.github.checks import Checks
from oracle_gate.github.client import RetrySettings, make_client, open_repo
from oracle_gate.github.comments import Comments
from oracle_gate.github.content import check_content, sticky_comment
from oracle_gate.github.defaults import DEFAULT_CHECK_NAME, CommentMode
from oracle_gate.github.pulls import Pulls
from oracle_gate.github.repository import GitHubRepo, connect
from oracle_gate.github.values import CheckTarget, CommentAction, CommentResult, PublishResult
from oracle_gate.github.writes import MAX_WRITES_PER_RUN
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judgement.github_ports import PostedChecks, PostedComments
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


def github_for(
    fake: FakeGitHub,
    *,
    token: str | None = None,
    per_page: int = 100,
    check_app: str | None = None,
    comment_author: str | None = None,
    max_writes: int = MAX_WRITES_PER_RUN,
) -> GitHubRepo:
    """The repository as production connects to it (:func:`oracle_gate.github.repository.connect`)."""
    repo = open_repo(client_for(fake, token=token, per_page=per_page), REPO)
    return connect(repo, check_app=check_app, comment_author=comment_author, max_writes=max_writes)


def checks_for(fake: FakeGitHub, *, token: str | None = None, check_app: str | None = None) -> Checks:
    return github_for(fake, token=token, check_app=check_app).checks


def comments_for(
    fake: FakeGitHub, *, token: str | None = None, per_page: int = 100, comment_author: str | None = None
) -> Comments:
    return github_for(fake, token=token, per_page=per_page, comment_author=comment_author).comments


def pulls_for(fake: FakeGitHub) -> Pulls:
    return github_for(fake).pulls


def at_head(
    *, head_sha: str = HEAD_SHA, external_id: str | None = None, details_url: str | None = None
) -> CheckTarget:
    """The check ``Oracle Gate`` on ``head_sha``."""
    return CheckTarget(head_sha, DEFAULT_CHECK_NAME, external_id, details_url)


def publish_rendered(
    github: GitHubRepo,
    verdict: Verdict,
    *,
    head_sha: str,
    pr_number: int | None = None,
    comment_mode: CommentMode = CommentMode.ON_CHANGE,
) -> PublishResult:
    """The verdict rendered for GitHub as the Action renders it, then posted as both doors post it: the
    check, then the sticky comment (a pull request's), each failure in the result, never raised."""
    check = PostedChecks(github.checks).publish(check_content(verdict), at_head(head_sha=head_sha))
    if pr_number is None:
        return PublishResult(check, CommentResult(CommentAction.SKIPPED))
    comment = PostedComments(github.comments).sticky(pr_number, sticky_comment(verdict, comment_mode))
    return PublishResult(check, comment)


def seed_test_merge(fake: FakeGitHub, stored: Verdict) -> Verdict:
    """Make the stored verdict's ``head`` GitHub's test merge of the pull request (parents: the stored
    ``parent``, then HEAD_SHA), as ``oracle-gate publish`` requires."""
    fake.add_commit(REPO, stored.head, [stored.parent, HEAD_SHA])
    return stored


def seed(fake: FakeGitHub) -> FakeGitHub:
    fake.add_repo(REPO)
    fake.add_pull(REPO, PR, head_sha=HEAD_SHA, base_sha=BASE_SHA)
    return fake
