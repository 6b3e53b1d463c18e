"""GitHub misbehaving: retries through GithubRetry, bounded waits, typed errors, no token anywhere."""

from __future__ import annotations

import logging
import time

import pytest

from oracle_gate.github.client import (
    GitHubUnavailable,
    NotFound,
    NotPermitted,
    PublishError,
    RateLimited,
    RequestRejected,
    RetrySettings,
    make_client,
    make_retry,
    open_repo,
)
from oracle_gate.github.content import check_content, sticky_comment
from oracle_gate.github.defaults import CommentMode
from oracle_gate.github.repository import connect
from oracle_gate.github.values import CommentAction
from tests.github.clients import (
    FAST,
    HEAD_SHA,
    PR,
    REPO,
    at_head,
    checks_for,
    client_for,
    comments_for,
    github_for,
    publish_rendered,
    pulls_for,
)
from tests.github_fake import FakeGitHub, TokenKind
from tests.support import verdicts

CREATE = "/repos/*/check-runs"


@pytest.mark.parametrize("statuses", [[500], [502], [500, 502, 503]])
def test_server_errors_are_retried_until_success(fake: FakeGitHub, statuses: list[int]) -> None:
    for status in statuses:
        fake.fail_next("POST", CREATE, status)
    result = checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert len(fake.check_runs()) == 1
    assert result.check_run_id == fake.check_runs()[0].id
    assert [r.status for r in fake.log("POST")] == [*statuses, 201]


def test_patches_are_retried_too(fake: FakeGitHub) -> None:
    """An annotations batch hit by a 502 is re-sent, once: all 60 annotations, none twice."""
    fake.fail_next("PATCH", "/repos/*/check-runs/*", 502)
    checks_for(fake).publish(check_content(verdicts.unscored(list(range(1, 120, 2)))), at_head())
    assert len(fake.check_runs()[0].annotations) == 60
    assert [r.status for r in fake.log("PATCH")] == [502, 200]


def test_server_errors_that_persist_end_as_github_unavailable(fake: FakeGitHub) -> None:
    """1 + total attempts, then a typed error naming the status; publish() turns it into a result."""
    fake.fail_next("POST", CREATE, 502, times=100)
    with pytest.raises(GitHubUnavailable, match="502") as caught:
        checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert caught.value.status == 502
    assert len(fake.log("POST")) == 1 + FAST.total
    result = publish_rendered(github_for(fake), verdicts.failing(), head_sha=HEAD_SHA)
    assert result.check.check_run_id is None
    assert result.check.not_posted[0].what == "check run"


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_rate_limit_waits_retry_after_then_retries(fake: FakeGitHub, status: int) -> None:
    """GitHub's secondary limit with ``retry-after: 1``: one second is waited, then it works."""
    fake.secondary_rate_limit("POST", CREATE, retry_after=1, status=status)
    started = time.monotonic()
    result = checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    elapsed = time.monotonic() - started
    assert result.check_run_id is not None
    assert [r.status for r in fake.log("POST")] == [status, 201]
    assert 0.9 <= elapsed < 3


@pytest.mark.parametrize("status", [403, 429])
def test_primary_rate_limit_waits_for_the_reset(fake: FakeGitHub, status: int) -> None:
    """``x-ratelimit-remaining: 0``: wait until ``x-ratelimit-reset`` (+1 s), then retry."""
    fake.primary_rate_limit("POST", CREATE, reset_in=0, status=status)
    started = time.monotonic()
    checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    elapsed = time.monotonic() - started
    assert [r.status for r in fake.log("POST")] == [status, 201]
    assert elapsed < 3


@pytest.mark.parametrize("kind", ["retry-after", "reset"])
def test_a_wait_longer_than_allowed_fails_fast_as_rate_limited(fake: FakeGitHub, kind: str) -> None:
    """Asked to wait an hour with ``max_wait`` 3 s: no waiting, a RateLimited error at once."""
    if kind == "retry-after":
        fake.secondary_rate_limit("POST", CREATE, retry_after=3600)
    else:
        fake.primary_rate_limit("POST", CREATE, reset_in=3600)
    started = time.monotonic()
    with pytest.raises(RateLimited, match="wait"):
        checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert time.monotonic() - started < 1
    assert len(fake.log("POST")) == 1


def test_validation_error_is_surfaced_clearly_and_not_retried(fake: FakeGitHub) -> None:
    body = {
        "message": "Validation Failed",
        "errors": [{"resource": "CheckRun", "code": "custom", "message": "head_sha is not a commit"}],
        "documentation_url": "https://docs.github.com/rest",
    }
    fake.fail_next("POST", CREATE, 422, body=body)
    with pytest.raises(RequestRejected) as caught:
        checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert str(caught.value) == (
        "could not create the check run: GitHub rejected the request "
        "(422: Validation Failed; head_sha is not a commit)"
    )
    assert len(fake.log("POST")) == 1


def test_slow_response_times_out_within_the_bound(fake: FakeGitHub) -> None:
    """A listing that answers after 5 s, with a 1 s timeout and no read retry: an error in ~1 s."""
    fake.slow_next("GET", "/repos/*/issues/*/comments", delay=5)
    started = time.monotonic()
    with pytest.raises(GitHubUnavailable, match="timed out"):
        comments_for(fake).sticky(PR, sticky_comment(verdicts.failing(), CommentMode.ALWAYS))
    assert time.monotonic() - started < 2.5
    assert fake.comments(REPO, PR) == []


def test_retry_settings_bound_the_time_of_one_request() -> None:
    settings = RetrySettings(total=2, timeout=10, backoff_max=5, max_wait=20)
    assert settings.worst_case_seconds() == 3 * 10 + 2 * 20
    retry = make_retry(settings)
    assert (retry.total, retry.read, retry.max_rate_limit_wait, retry.retry_after_max) == (2, 1, 20, 20)
    assert retry.status_forcelist is not None
    assert {403, 429, 500, 502, 503} <= set(retry.status_forcelist)
    assert retry.allowed_methods is not None
    assert {"PATCH", "GET"} <= set(retry.allowed_methods)
    # A POST may have landed after a 5xx: never re-sent by the HTTP layer; a rate-limit answer was
    # never applied, so it is retried.
    assert not retry.is_retry("POST", 502)
    assert retry.is_retry("POST", 429)
    assert retry.is_retry("PATCH", 502)


def test_read_only_token_is_handled_without_crashing(fake: FakeGitHub) -> None:
    """A fork PR: nothing can be posted; publish() says what and why for each part."""
    fake.add_token(fake.token, TokenKind.READ_ONLY)
    result = publish_rendered(
        github_for(fake),
        verdicts.unscored(),
        head_sha=HEAD_SHA,
        pr_number=PR,
        comment_mode=CommentMode.ALWAYS,
    )
    assert not result.check.posted
    assert result.comment.action == CommentAction.FAILED
    assert [n.what for n in result.not_posted] == ["check run", "sticky comment"]
    assert all("Resource not accessible by integration" in n.why for n in result.not_posted)
    assert (fake.check_runs(), fake.statuses(), fake.comments(REPO, PR)) == ([], [], [])


def test_bad_credentials_are_not_permitted(fake: FakeGitHub) -> None:
    client = client_for(fake, token="ghs_revoked")  # noqa: S106 - an unknown token, on purpose
    with pytest.raises(NotPermitted, match="401: Bad credentials"):
        connect(open_repo(client, REPO)).checks.publish(check_content(verdicts.failing()), at_head())


def test_missing_pull_request_is_not_found(fake: FakeGitHub) -> None:
    with pytest.raises(NotFound, match="#99"):
        pulls_for(fake).pull_request(99)


def test_the_token_never_appears_in_logs_errors_or_reprs(
    fake: FakeGitHub, caplog: pytest.LogCaptureFixture
) -> None:
    """DEBUG logs of PyGithub/urllib3/ours, every error and result of several failing runs: no token."""
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="github")  # PyGithub pins its logger at INFO on import
    github = github_for(fake)
    fake.fail_next("POST", CREATE, 422)
    fake.secondary_rate_limit("GET", "/repos/*/issues/*/comments", retry_after=0)
    texts: list[str] = [repr(github)]
    for attempt in (
        lambda: github.checks.publish(check_content(verdicts.failing()), at_head()),
        lambda: github.comments.sticky(PR, sticky_comment(verdicts.failing(), CommentMode.ALWAYS)),
        lambda: github.pulls.pull_request(404),
    ):
        try:
            texts.append(repr(attempt()))
        except PublishError as err:
            texts += [str(err), repr(err), str(err.__cause__), repr(err.__cause__)]
    fake.add_token(fake.token, TokenKind.READ_ONLY)
    texts.append(repr(publish_rendered(github, verdicts.unscored(), head_sha=HEAD_SHA, pr_number=PR)))
    assert "'Authorization': 'token (oauth token removed)'" in caplog.text  # headers were logged, masked
    haystack = "\n".join([*texts, caplog.text])
    assert "Resource not accessible" in haystack  # the failures really are in there
    assert fake.token not in haystack
    assert fake.token[4:20] not in haystack
    assert all(r.authorization == f"token {fake.token}" for r in fake.requests)


# -- answers lost after the write was applied (../shared/github/README.md: "Retrying a POST") ----------


def test_a_check_run_whose_answer_was_lost_is_adopted_not_created_twice(fake: FakeGitHub) -> None:
    fake.lose_answer_next("POST", CREATE, 502)
    result = checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    (run,) = fake.check_runs(REPO)
    assert result.check_run_id == run.id
    assert [r.status for r in fake.log("POST")] == [502]
    assert len(fake.log("GET", "/repos/*/commits/*/check-runs")) == 1


def test_a_check_run_that_did_not_land_is_created_after_the_re_listing(fake: FakeGitHub) -> None:
    fake.fail_next("POST", CREATE, 502)
    checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert len(fake.check_runs(REPO)) == 1
    assert [r.status for r in fake.log("POST")] == [502, 201]


def test_an_earlier_runs_check_is_not_mistaken_for_this_one(fake: FakeGitHub) -> None:
    """The re-listing matches this attempt's external_id, not any check of the same name."""
    checks_for(fake).publish(check_content(verdicts.passing()), at_head())
    fake.fail_next("POST", CREATE, 502)
    checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert [r.conclusion for r in fake.check_runs(REPO)] == ["success", "failure"]


def test_a_sticky_comment_whose_answer_was_lost_is_not_posted_twice(fake: FakeGitHub) -> None:
    """Seen on main: a POST retried after a read timeout or 5xx could create a second comment."""
    fake.lose_answer_next("POST", "/repos/*/issues/*/comments", 502)
    result = comments_for(fake).sticky(PR, sticky_comment(verdicts.failing(), CommentMode.ALWAYS))
    (comment,) = fake.comments(REPO, PR)
    assert (result.action, result.comment_id) == (CommentAction.CREATED, comment.id)


def test_a_reply_whose_answer_was_lost_is_not_posted_twice(fake: FakeGitHub) -> None:
    fake.lose_answer_next("POST", "/repos/*/issues/*/comments", 504)
    comment_id = comments_for(fake).reply(PR, "an explain reply")
    (comment,) = fake.comments(REPO, PR)
    assert comment.id == comment_id


def test_a_429_without_retry_after_waits_at_least_a_minute_then_backs_off() -> None:
    """Seen on main: 0/2/4/8 s. GitHub asks for at least a minute, then exponential backoff; past
    max_wait the request fails fast as RateLimited instead of waiting (bounded)."""
    retry = make_retry(RetrySettings())
    assert retry.secondary_backoff(0) == 60
    assert retry.secondary_backoff(1) == 120
    assert retry.secondary_backoff(2) == 240 > RetrySettings().max_wait


def test_a_429_without_retry_after_is_waited_then_retried(
    fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real client against the fake, with urllib3's sleep recorded instead of slept."""
    slept: list[float] = []
    monkeypatch.setattr("urllib3.util.retry.time.sleep", slept.append)
    fake.fail_next("POST", CREATE, 429, body={"message": "You have exceeded a secondary rate limit."})
    settings = RetrySettings(total=3, timeout=5, max_wait=300, read_retries=0)
    client = make_client(
        fake.token, fake.url, retry=settings, seconds_between_requests=0, seconds_between_writes=0
    )
    result = connect(open_repo(client, REPO)).checks.publish(check_content(verdicts.failing()), at_head())
    assert result.check_run_id is not None
    assert [r.status for r in fake.log("POST")] == [429, 201]
    assert slept
    assert min(slept) >= 60


def test_repeated_429s_without_retry_after_end_as_rate_limited_within_the_bound(fake: FakeGitHub) -> None:
    fake.fail_next(
        "POST", CREATE, 429, times=10, body={"message": "You have exceeded a secondary rate limit."}
    )
    settings = RetrySettings(total=3, timeout=5, secondary_rate_wait=0.01, max_wait=0, read_retries=0)
    client = make_client(
        fake.token, fake.url, retry=settings, seconds_between_requests=0, seconds_between_writes=0
    )
    with pytest.raises(RateLimited):
        connect(open_repo(client, REPO)).checks.publish(check_content(verdicts.failing()), at_head())
    assert len(fake.log("POST")) == 1
