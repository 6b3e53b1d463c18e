"""Publishing a verdict on GitHub, all through PyGithub: check run, status fallback, sticky comment.

The write side of the flow. Nothing here changes a verdict: a publishing
failure is a typed :class:`PublishError` (named for the outcome, message free
of the token) or, through :meth:`Publisher.publish`, a :class:`NotPosted` line
in the result saying what was not posted and why.

Choices, with the GitHub behaviour they rest on (D = https://docs.github.com/en):

* **Conclusions.** ``pass_clean`` -> ``success``, ``fail`` -> ``failure``,
  ``unscored`` -> ``action_required``. ``neutral`` and ``skipped`` would
  satisfy a required check (D/pull-requests/.../troubleshooting-required-status-checks);
  ``action_required`` blocks it without claiming the code failed. The check
  is created already completed, so it never hangs pending; when the gate
  itself failed there is no verdict and :meth:`Publisher.publish_error` posts
  ``failure`` with the reason.
* **Annotations.** At most 50 per request (D/rest/checks/runs): the first 50
  go with the create, the rest are appended by PATCHes of 50.
* **Status fallback.** Only GitHub Apps (GITHUB_TOKEN is one) may write check
  runs; a personal access token, or a GITHUB_TOKEN granted ``statuses`` but
  not ``checks``, gets 403. Then a commit status with the same context name
  is posted: ``success`` for ``pass_clean`` only, ``failure`` for ``fail`` and
  for ``unscored`` (a status has no "action required"; ``pending`` would
  leave the PR waiting forever, ``error`` means the checker broke), ``error``
  when the gate itself failed. The description (max 140 characters) names
  the verdict, so ``unscored`` is not mistaken for a code failure.
* **Sticky comment.** Found by :data:`gate.report.STICKY_MARKER` at the start
  of a comment body, walking every page of the issue's comments; only
  comments by ``comment_author`` (or, when that is not known, by a bot
  account) are candidates, so a marker pasted by a person is never adopted.
  Updated in place, never deleted and reposted, not touched when unchanged.
* **Retries.** :func:`make_client` gives PyGithub a :class:`github.GithubRetry`
  (urllib3 ``Retry``): 5xx, 403/429 rate limits honouring ``retry-after`` and
  ``x-ratelimit-reset``, exponential backoff, every wait capped, a timeout
  per attempt. See :class:`RetrySettings` for what is configured and why.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from types import TracebackType
from typing import Any, TypeVar

import github
import requests
from github import Auth, GithubRetry
from github.CheckRun import CheckRun
from github.GithubException import (
    GithubException,
    RateLimitExceededExceedsMaxWait,
    RateLimitExceededException,
)
from github.IssueComment import IssueComment
from github.Repository import Repository
from urllib3 import Retry
from urllib3.connectionpool import ConnectionPool
from urllib3.response import BaseHTTPResponse, HTTPResponse

from gate import __version__, report
from gate.judge.verdict import Outcome, Verdict

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_CHECK_NAME = "Oracle Gate"
MAX_ANNOTATIONS_PER_REQUEST = 50  # D/rest/checks/runs
MAX_CHECK_TEXT = 65535  # output.summary and output.text, D/rest/checks/runs
MAX_STATUS_DESCRIPTION = 140

CONCLUSIONS = {Outcome.PASS_CLEAN: "success", Outcome.FAIL: "failure", Outcome.UNSCORED: "action_required"}
ERROR_CONCLUSION = "failure"
STATUS_STATES = {Outcome.PASS_CLEAN: "success", Outcome.FAIL: "failure", Outcome.UNSCORED: "failure"}
ERROR_STATUS_STATE = "error"
REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})

_log = logging.getLogger(__name__)
T = TypeVar("T")


# -- errors ------------------------------------------------------------------------------------------


class PublishError(Exception):
    """Something could not be posted on GitHub; says what and why, never the token."""

    def __init__(self, what: str, why: str, status: int | None = None) -> None:
        super().__init__(f"could not {what}: {why}")
        self.what = what
        self.why = why
        self.status = status


class NotPermitted(PublishError):
    """The token may not do this (401/403): a fork PR's read-only GITHUB_TOKEN, a PAT on the Checks API."""


class RateLimited(PublishError):
    """GitHub's rate limit held for longer than the configured waits allow."""


class GitHubUnavailable(PublishError):
    """No usable answer: 5xx after every retry, a timeout, a refused connection."""


class NotFound(PublishError):
    """The repository, pull request or comment does not exist, or the token cannot see it (404)."""


class RequestRejected(PublishError):
    """GitHub refused the request as invalid (4xx such as 422); a bug to report, not a transient fault."""


# -- the client --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetrySettings:
    """How hard to try, and the bound on it.

    Per request, at most ``1 + total`` attempts of at most ``timeout`` seconds
    each, separated by waits of at most ``max(backoff_max, max_wait)`` seconds:
    :meth:`worst_case_seconds`. A wait longer than ``max_wait`` that GitHub asks
    for (``retry-after``, ``x-ratelimit-reset``) is not waited: it fails fast
    as :class:`RateLimited`.

    A read timeout is retried ``read_retries`` times only: the server may have
    applied a write whose answer was lost, and a repeated POST would post twice.
    PATCH is retried on 5xx (PyGithub's GithubRetry does not by default): an
    update re-sent is harmless, except that a repeated annotations batch could
    duplicate those annotations, which beats losing them.
    """

    total: int = 4
    backoff_factor: float = 1.0  # waits 0, 2, 4, 8 ... seconds (urllib3 formula), up to backoff_max
    backoff_max: float = 30.0
    secondary_rate_wait: float = 60.0  # a secondary rate limit without retry-after (GitHub: "at least 1 min")
    max_wait: int = 120  # the longest single wait for a rate limit
    read_retries: int = 1
    timeout: int = 30  # seconds per attempt; PyGithub takes an int

    def worst_case_seconds(self) -> float:
        """Upper bound of one request's time, retries and waits included (connection set-up aside)."""
        return (1 + self.total) * self.timeout + self.total * max(self.backoff_max, self.max_wait)


class GateRetry(GithubRetry):
    """PyGithub's GithubRetry plus two things it cannot do (PyGithub 2.10):

    * fail fast when GitHub asks, through ``retry-after`` or ``x-ratelimit-reset``,
      for a longer wait than ``max_rate_limit_wait`` (GithubRetry bounds only the
      waits it computes itself, and urllib3 would silently cut a ``retry-after``
      to ``retry_after_max`` and retry too early);
    * honour ``x-ratelimit-reset`` on a **429** with ``x-ratelimit-remaining: 0``
      (GithubRetry reads rate-limit details on 403 only), as GitHub's
      rate-limit page says to.
    """

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        value = super().get_retry_after(response)
        if value is None and response.status == 429:
            return _reset_wait(response)
        return value

    def increment(  # type: ignore[override]
        self,
        method: str | None = None,
        url: str | None = None,
        response: HTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Retry:
        if response is not None and response.status in (403, 429):
            wait = _asked_wait(response)
            if wait is not None and self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
                raise RateLimitExceededExceedsMaxWait(
                    response.status, {"message": "rate limited"}, dict(response.headers), wait=wait
                )
        return super().increment(method, url, response, error, _pool, _stacktrace)


def _asked_wait(response: BaseHTTPResponse) -> float | None:
    """Seconds GitHub asked to wait: ``retry-after``, else until the reset when nothing remains."""
    value = response.headers.get("Retry-After")
    if value is not None and value.strip().isdigit():
        return float(value)
    return _reset_wait(response)


def _reset_wait(response: BaseHTTPResponse) -> float | None:
    if response.headers.get("X-RateLimit-Remaining") != "0":
        return None
    reset = response.headers.get("X-RateLimit-Reset", "")
    if not reset.isdigit():
        return None
    return max(0.0, int(reset) - time.time()) + 1.0  # +1: the reset happens somewhere in that second


def make_retry(settings: RetrySettings) -> GateRetry:
    """The retry policy PyGithub's requests go through, configured from ``settings``."""
    return GateRetry(
        total=settings.total,
        read=settings.read_retries,
        backoff_factor=settings.backoff_factor,
        backoff_max=settings.backoff_max,
        secondary_rate_wait=settings.secondary_rate_wait,
        max_rate_limit_wait=settings.max_wait,
        retry_after_max=settings.max_wait,
        status_forcelist=[429, *range(500, 600)],  # GithubRetry adds 403 (retried for rate limits only)
        allowed_methods=frozenset({"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"}),
        raise_on_status=False,  # the last error response reaches PyGithub, which names the status
    )


def make_client(
    token: str,
    base_url: str = DEFAULT_API_URL,
    *,
    retry: RetrySettings | None = None,
    per_page: int = 100,
    seconds_between_requests: float | None = 0.25,
    seconds_between_writes: float | None = 1.0,
) -> github.Github:
    """The one PyGithub client of a run, for ``base_url`` (``GITHUB_API_URL``; GHES: ``https://host/api/v3``).

    Lazy: objects are not fetched until a field is read, so publishing sends
    only the requests it needs. ``seconds_between_*`` is PyGithub's pacing,
    which GitHub asks for content-creating requests; tests set it to 0.
    """
    if not 1 <= per_page <= 100:
        raise ValueError(f"per_page must be 1..100 (GitHub's maximum), got {per_page}")
    settings = retry or RetrySettings()
    return github.Github(
        auth=Auth.Token(token),
        base_url=base_url.rstrip("/"),
        timeout=settings.timeout,
        retry=make_retry(settings),
        per_page=per_page,
        user_agent=f"oracle-gate/{__version__}",
        seconds_between_requests=seconds_between_requests,
        seconds_between_writes=seconds_between_writes,
        lazy=True,
    )


def open_repo(client: github.Github, full_name: str) -> Repository:
    """The repository ``owner/name``, without a request (the client is lazy)."""
    return client.get_repo(full_name)


# -- turning PyGithub/requests failures into outcomes -------------------------------------------------


@contextmanager
def _github_call(what: str) -> Iterator[None]:
    """Run a GitHub call; translate its failure into the :class:`PublishError` named for the outcome."""
    try:
        yield
    except GithubException as exc:
        raise _from_github_exception(what, exc) from exc
    except requests.RequestException as exc:
        raise GitHubUnavailable(what, f"no answer from GitHub ({_describe_transport_error(exc)})") from exc


def _from_github_exception(what: str, exc: GithubException) -> PublishError:
    status = exc.status
    message = _github_message(exc.data)
    if isinstance(exc, RateLimitExceededExceedsMaxWait):
        return RateLimited(what, f"GitHub asks to wait {exc.wait:.0f} s, longer than allowed", status)
    if isinstance(exc, RateLimitExceededException) or status == 429:
        return RateLimited(what, f"rate limited after every retry ({status}: {message})", status)
    if status in (401, 403):
        return NotPermitted(what, f"the token may not do this ({status}: {message})", status)
    if status == 404:
        return NotFound(what, f"not found, or not visible to the token ({status}: {message})", status)
    if status >= 500:
        return GitHubUnavailable(what, f"GitHub kept failing ({status}: {message})", status)
    return RequestRejected(what, f"GitHub rejected the request ({status}: {message})", status)


def _github_message(data: Any) -> str:
    """GitHub's ``message`` plus each ``errors[].message`` (where a 422 says what was wrong)."""
    if not isinstance(data, dict):
        return report.shorten(str(data or "no message"), 300)
    parts = [str(data.get("message") or "no message")]
    for err in data.get("errors") or []:
        if isinstance(err, dict) and err.get("message"):
            parts.append(str(err["message"]))
        elif isinstance(err, str):
            parts.append(err)
    return report.shorten("; ".join(parts), 500)


def _describe_transport_error(exc: Exception) -> str:
    """The kind of transport failure (timeout, refused...), without URLs or headers."""
    text = str(exc).lower()
    if "timed out" in text or "timeout" in type(exc).__name__.lower():
        return "timed out"
    if "refused" in text:
        return "connection refused"
    return type(exc).__name__


# -- results -----------------------------------------------------------------------------------------


class CommentMode(StrEnum):
    ALWAYS = "always"  # create the sticky comment, or update it when its body changed
    ON_CHANGE = "on-change"  # the same, but never create one just to say pass_clean
    NEVER = "never"


class CommentAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"  # the sticky comment already says exactly this: no request sent
    SKIPPED = "skipped"  # nothing to post (mode never, or on-change with a first pass_clean)
    FAILED = "failed"  # see ``not_posted``


@dataclass(frozen=True)
class NotPosted:
    """Something that was not posted, and why; ``refused`` when the token may not write it
    (:class:`NotPermitted`: a fork PR's read-only GITHUB_TOKEN, Dependabot, a PAT on the Checks API)."""

    what: str
    why: str
    refused: bool = False


def _not_posted(what: str, err: PublishError) -> NotPosted:
    return NotPosted(what, str(err), refused=isinstance(err, NotPermitted))


@dataclass(frozen=True)
class CheckResult:
    """What the check-run step posted; ``check_run_id`` is None when only a status (or nothing) went out."""

    conclusion: str
    check_run_id: int | None = None
    used_status_fallback: bool = False
    status_state: str | None = None
    annotations_total: int = 0
    annotations_posted: int = 0
    summary_truncated: bool = False
    not_posted: tuple[NotPosted, ...] = ()

    @property
    def posted(self) -> bool:
        return self.check_run_id is not None or self.status_state is not None


@dataclass(frozen=True)
class CommentResult:
    action: CommentAction
    comment_id: int | None = None
    truncated: bool = False
    not_posted: tuple[NotPosted, ...] = ()


@dataclass(frozen=True)
class PublishResult:
    check: CheckResult
    comment: CommentResult

    @property
    def not_posted(self) -> tuple[NotPosted, ...]:
        return self.check.not_posted + self.comment.not_posted


@dataclass(frozen=True)
class PullInfo:
    """What the gate needs of a pull request (from ``pulls/get``)."""

    number: int
    head_sha: str
    base_sha: str
    head_ref: str
    base_ref: str
    from_fork: bool
    author: str
    # How many files the pull request changes (pulls/get ``changed_files``), to tell whether
    # ``pulls/list-files`` (at most 3000 files) listed them all. Not compared: informational.
    changed_files: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PullFile:
    """One entry of ``pulls/list-files``: the file's path, its old path when renamed, its status."""

    filename: str
    previous_filename: str | None
    status: str

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.filename,) if self.previous_filename is None else (self.previous_filename, self.filename)


@dataclass(frozen=True)
class _CheckContent:
    """Everything one check-run post sends, and the commit status that replaces it if refused."""

    conclusion: str
    title: str
    summary: str
    summary_truncated: bool
    status_state: str
    status_description: str
    annotations: list[dict[str, str | int]] = field(default_factory=list)


# -- the publisher -----------------------------------------------------------------------------------


class Publisher:
    """Posts verdicts to one repository. Takes the (lazy) PyGithub repository, never a token."""

    def __init__(
        self,
        repo: Repository,
        *,
        check_name: str = DEFAULT_CHECK_NAME,
        details_url: str | None = None,
        comment_author: str | None = None,
    ) -> None:
        """``details_url`` links the check (e.g. the workflow run); ``comment_author`` is the login the
        sticky comment is posted as (``github-actions[bot]`` for GITHUB_TOKEN), when known."""
        self._repo = repo
        self.check_name = check_name
        self.details_url = details_url
        self.comment_author = comment_author

    def __repr__(self) -> str:
        return f"Publisher(check_name={self.check_name!r})"

    # -- everything at once ------------------------------------------------------------------------

    def publish(
        self,
        verdict: Verdict,
        *,
        head_sha: str,
        pr_number: int | None = None,
        comment_mode: CommentMode = CommentMode.ON_CHANGE,
    ) -> PublishResult:
        """Check run (or status), then the sticky comment; never raises :class:`PublishError`.

        Each part that could not be posted is reported in the result instead,
        so the caller can still write its outputs and step summary.
        """
        try:
            check = self.publish_check(verdict, head_sha)
        except PublishError as err:
            _log.warning("%s", err)
            check = CheckResult(CONCLUSIONS[verdict.verdict], not_posted=(_not_posted("check run", err),))
        if pr_number is None:
            comment = CommentResult(CommentAction.SKIPPED)
        else:
            try:
                comment = self.publish_comment(verdict, pr_number, comment_mode)
            except PublishError as err:
                _log.warning("%s", err)
                comment = CommentResult(
                    CommentAction.FAILED, not_posted=(_not_posted("sticky comment", err),)
                )
        return PublishResult(check, comment)

    # -- check run -----------------------------------------------------------------------------------

    def publish_check(self, verdict: Verdict, head_sha: str) -> CheckResult:
        """A completed check run with the verdict's conclusion and every annotation.

        Falls back to a commit status when the token may not write check runs.
        Raises :class:`PublishError` only when neither could be posted.
        """
        summary, truncated = report.truncate_markdown(
            report.check_summary(verdict), MAX_CHECK_TEXT, "The full verdict is in the action's verdict.json."
        )
        title = report.check_title(verdict)
        content = _CheckContent(
            conclusion=CONCLUSIONS[verdict.verdict],
            title=title,
            summary=summary,
            summary_truncated=truncated,
            status_state=STATUS_STATES[verdict.verdict],
            status_description=report.shorten(title, MAX_STATUS_DESCRIPTION),
            annotations=[a.to_api() for a in report.check_annotations(verdict)],
        )
        return self._post_check(head_sha, content)

    def publish_error(self, head_sha: str, why: str) -> CheckResult:
        """The gate failed without a verdict: a ``failure`` check saying why (or an ``error`` status)."""
        summary, truncated = report.truncate_markdown(report.error_summary(why), MAX_CHECK_TEXT)
        content = _CheckContent(
            conclusion=ERROR_CONCLUSION,
            title=report.ERROR_TITLE,
            summary=summary,
            summary_truncated=truncated,
            status_state=ERROR_STATUS_STATE,
            status_description=report.shorten(f"{report.ERROR_TITLE}: {why}", MAX_STATUS_DESCRIPTION),
        )
        return self._post_check(head_sha, content)

    def _post_check(self, head_sha: str, content: _CheckContent) -> CheckResult:
        batches = _batches(content.annotations, MAX_ANNOTATIONS_PER_REQUEST)
        try:
            run = self._create_check_run(head_sha, content, batches[0] if batches else [])
        except NotPermitted as err:
            _log.info("%s; posting a commit status instead", err)
            return self._status_fallback(head_sha, content, err)
        posted = len(batches[0]) if batches else 0
        not_posted: list[NotPosted] = []
        for batch in batches[1:]:
            try:
                self._append_annotations(run, content, batch)
            except PublishError as err:
                missing = f"annotations {posted + 1}-{len(content.annotations)} of {len(content.annotations)}"
                not_posted.append(_not_posted(missing, err))
                break
            posted += len(batch)
        return CheckResult(
            conclusion=content.conclusion,
            check_run_id=run.id,
            annotations_total=len(content.annotations),
            annotations_posted=posted,
            summary_truncated=content.summary_truncated,
            not_posted=tuple(not_posted),
        )

    def _create_check_run(
        self, head_sha: str, content: _CheckContent, annotations: list[dict[str, str | int]]
    ) -> CheckRun:
        """Created completed: a required check never sits pending on a half-published run."""
        extra: dict[str, Any] = {"details_url": self.details_url} if self.details_url else {}
        with _github_call("create the check run"):
            return self._repo.create_check_run(
                name=self.check_name,
                head_sha=head_sha,
                status="completed",
                conclusion=content.conclusion,
                output=_output(content, annotations),
                **extra,
            )

    def _append_annotations(
        self, run: CheckRun, content: _CheckContent, annotations: list[dict[str, str | int]]
    ) -> None:
        """PATCH with the next batch: GitHub appends annotations (title and summary are re-sent as is)."""
        with _github_call("append annotations to the check run"):
            run.edit(output=_output(content, annotations))

    def _status_fallback(self, head_sha: str, content: _CheckContent, refused: NotPermitted) -> CheckResult:
        with _github_call("post the commit status (fallback for the refused check run)"):
            self._repo.get_commit(head_sha).create_status(
                state=content.status_state,
                description=content.status_description,
                context=self.check_name,
                **({"target_url": self.details_url} if self.details_url else {}),
            )
        not_posted = [_not_posted("check run", refused)]
        if content.annotations:
            not_posted.append(
                NotPosted(
                    f"{len(content.annotations)} annotation(s)", "a commit status carries no annotations"
                )
            )
        return CheckResult(
            conclusion=content.conclusion,
            used_status_fallback=True,
            status_state=content.status_state,
            annotations_total=len(content.annotations),
            summary_truncated=content.summary_truncated,
            not_posted=tuple(not_posted),
        )

    # -- sticky comment ------------------------------------------------------------------------------

    def publish_comment(self, verdict: Verdict, pr_number: int, mode: CommentMode) -> CommentResult:
        """Create or update the sticky comment per ``mode``; raises :class:`PublishError` on failure."""
        if mode == CommentMode.NEVER:
            return CommentResult(CommentAction.SKIPPED)
        body, truncated = report.truncate_markdown(
            report.to_markdown(verdict),
            report.MAX_COMMENT_BODY,
            "The check run and the action's verdict.json have the full verdict.",
        )
        create = mode == CommentMode.ALWAYS or verdict.verdict != Outcome.PASS_CLEAN
        return self.upsert_sticky(pr_number, body, create=create, truncated=truncated)

    def upsert_sticky(
        self, pr_number: int, body: str, *, create: bool, truncated: bool = False
    ) -> CommentResult:
        """Update the sticky comment in place when ``body`` differs; create one if none and ``create``."""
        if not body.startswith(report.STICKY_MARKER):
            raise ValueError("a sticky comment body must start with report.STICKY_MARKER")
        existing = self.find_sticky(pr_number)
        if existing is None:
            if not create:
                return CommentResult(CommentAction.SKIPPED)
            with _github_call(f"create the sticky comment on #{pr_number}"):
                created = self._repo.get_issue(pr_number).create_comment(body)
            return CommentResult(CommentAction.CREATED, created.id, truncated)
        if _same_text(existing.body, body):
            return CommentResult(CommentAction.UNCHANGED, existing.id, truncated)
        with _github_call(f"update the sticky comment {existing.id}"):
            existing.edit(body)
        return CommentResult(CommentAction.UPDATED, existing.id, truncated)

    def find_sticky(self, pr_number: int) -> IssueComment | None:
        """The oldest comment of ours that starts with the marker, across every page of comments."""
        with _github_call(f"list the comments of #{pr_number}"):
            for comment in self._repo.get_issue(pr_number).get_comments():
                if (comment.body or "").startswith(report.STICKY_MARKER) and self._is_ours(comment):
                    return comment
        return None

    def _is_ours(self, comment: IssueComment) -> bool:
        author = comment.user
        if self.comment_author is not None:
            return bool(author.login == self.comment_author)
        return bool(author.type == "Bot")

    # -- pull requests and bot commands ----------------------------------------------------------

    def pull_request(self, number: int) -> PullInfo:
        """``pulls/get``: head and base SHAs (check runs go on the head SHA, not the merge commit)."""
        with _github_call(f"read pull request #{number}"):
            pull = self._repo.get_pull(number)
            head_repo = pull.head.repo
            return PullInfo(
                number=number,
                head_sha=pull.head.sha,
                base_sha=pull.base.sha,
                head_ref=pull.head.ref,
                base_ref=pull.base.ref,
                from_fork=head_repo is None or head_repo.full_name != pull.base.repo.full_name,
                author=pull.user.login,
                changed_files=pull.changed_files,
            )

    def pull_request_files(self, number: int) -> list[PullFile]:
        """``pulls/list-files``, every page (GitHub lists at most 3000 files: compare ``changed_files``)."""
        with _github_call(f"list the files of pull request #{number}"):
            return [
                PullFile(f.filename, f.previous_filename, f.status)
                for f in self._repo.get_pull(number).get_files()
            ]

    def permission_of(self, login: str) -> str:
        """``admin``, ``write``, ``read`` or ``none`` (also for an unknown user) on this repository."""
        try:
            with _github_call(f"read the permission of {login}"):
                return str(self._repo.get_collaborator_permission(login))
        except NotFound:
            return "none"

    def react(self, issue_number: int, comment_id: int, content: str) -> None:
        """Add a reaction: ``eyes``/``+1`` for an accepted command, ``confused``/``-1`` for an ignored one."""
        if content not in REACTIONS:
            raise ValueError(f"reaction must be one of {sorted(REACTIONS)}")
        with _github_call(f"react {content} to comment {comment_id}"):
            self._repo.get_issue(issue_number).get_comment(comment_id).create_reaction(content)

    def reply(self, issue_number: int, body: str) -> int:
        """Post a plain (non-sticky) comment, cut to GitHub's limit; returns its id."""
        text, _ = report.truncate_markdown(body, report.MAX_COMMENT_BODY)
        with _github_call(f"reply on #{issue_number}"):
            return int(self._repo.get_issue(issue_number).create_comment(text).id)


def _output(content: _CheckContent, annotations: list[dict[str, str | int]]) -> dict[str, Any]:
    output: dict[str, Any] = {"title": content.title, "summary": content.summary}
    if annotations:
        output["annotations"] = annotations
    return output


def _batches(items: list[T], size: int) -> list[list[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _same_text(a: str | None, b: str) -> bool:
    """Equal bodies, ignoring the CRLF/LF difference GitHub may introduce."""
    return (a or "").replace("\r\n", "\n") == b.replace("\r\n", "\n")


__all__ = [
    "CONCLUSIONS",
    "DEFAULT_API_URL",
    "DEFAULT_CHECK_NAME",
    "STATUS_STATES",
    "CheckResult",
    "CommentAction",
    "CommentMode",
    "CommentResult",
    "GateRetry",
    "GitHubUnavailable",
    "NotFound",
    "NotPermitted",
    "NotPosted",
    "PublishError",
    "PublishResult",
    "Publisher",
    "PullFile",
    "PullInfo",
    "RateLimited",
    "RequestRejected",
    "RetrySettings",
    "make_client",
    "make_retry",
    "open_repo",
]
