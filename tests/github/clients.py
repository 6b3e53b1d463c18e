"""The publisher tier's repository, pull request and clients: the production factories, unpaced."""

from __future__ import annotations

from github import Github

from gate.action.publisher import Publisher, RetrySettings, make_client, open_repo
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


def seed(fake: FakeGitHub) -> FakeGitHub:
    fake.add_repo(REPO)
    fake.add_pull(REPO, PR, head_sha=HEAD_SHA, base_sha=BASE_SHA)
    return fake
