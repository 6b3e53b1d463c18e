"""The GitHub client of a run (PyGithub), its retry policy, and PyGithub's failures as typed errors.

* **Retries.** :func:`make_client` gives PyGithub a :class:`github.GithubRetry`
  (urllib3 ``Retry``): 5xx, 403/429 rate limits honouring ``retry-after`` and
  ``x-ratelimit-reset``, exponential backoff, every wait capped, a timeout
  per attempt. See :class:`RetrySettings` for what is configured and why;
  tests pass their own settings and turn PyGithub's pacing off.
* **Errors.** :func:`github_call` turns a PyGithub or transport failure into
  the :class:`PublishError` named for the outcome (:class:`NotPermitted`,
  :class:`RateLimited`, :class:`GitHubUnavailable`, :class:`NotFound`,
  :class:`RequestRejected`), its message free of the token.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import github
import requests
from github import Auth, GithubRetry
from github.GithubException import (
    GithubException,
    RateLimitExceededExceedsMaxWait,
    RateLimitExceededException,
)
from github.Repository import Repository
from urllib3 import Retry
from urllib3.connectionpool import ConnectionPool
from urllib3.response import BaseHTTPResponse, HTTPResponse

from oracle_gate import __version__, errors
from oracle_gate.github.defaults import DEFAULT_API_URL

# -- errors ------------------------------------------------------------------------------------------


PublishError = errors.PublishError  # the family (oracle_gate.errors); the outcomes below are its members


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
      rate-limit page says to, and on a 429 that names no wait at all, wait
      ``secondary_rate_wait`` (a minute) and double it for each further one
      (urllib3 would back off 0, 2, 4, 8 s);
    * never re-send a POST after a 5xx or a timeout (it may have been applied).
    """

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        value = super().get_retry_after(response)
        if value is None and response.status == 429:
            value = _reset_wait(response)
            if value is None:  # this retry's history already holds the 429 being answered
                value = self.secondary_backoff(self._rate_limited_before() - 1)
        return value

    def secondary_backoff(self, earlier: int) -> float:
        """The wait after a 429 that names no wait: GitHub asks for at least a minute, then an
        exponential backoff (``secondary_rate_wait`` doubled for each earlier rate-limit answer)."""
        wait: float = float(self.secondary_rate_wait) * 2.0 ** max(0, earlier)
        return wait

    def _rate_limited_before(self) -> int:
        return sum(1 for h in self.history if h.status in (403, 429))

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        """A POST is retried only on a rate-limit answer (403/429), which GitHub never applied: after
        a 5xx or a timeout it may have landed, and the publisher re-lists before re-creating."""
        if method.upper() == "POST":
            return status_code in (403, 429) and super().is_retry("PUT", status_code, has_retry_after)
        return super().is_retry(method, status_code, has_retry_after)

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
            if wait is None and response.status == 429:
                wait = self.secondary_backoff(self._rate_limited_before())
            if wait is not None and self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
                raise RateLimitExceededExceedsMaxWait(
                    response.status, {"message": "rate limited"}, dict(response.headers), wait=wait
                )
        return super().increment(method, url, response, error, _pool, _stacktrace)


def _asked_wait(response: BaseHTTPResponse) -> float | None:
    """Seconds GitHub asked to wait: ``retry-after``, else until the reset when nothing remains."""
    value = response.headers.get("Retry-After")
    if value is not None and value.strip().isascii() and value.strip().isdigit():
        return float(value)
    return _reset_wait(response)


def _reset_wait(response: BaseHTTPResponse) -> float | None:
    if response.headers.get("X-RateLimit-Remaining") != "0":
        return None
    reset = response.headers.get("X-RateLimit-Reset", "")
    if not (reset.isascii() and reset.isdigit()):
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
        # POST is not retried on 5xx or a read error (it may have landed): see GateRetry.is_retry.
        allowed_methods=frozenset({"GET", "HEAD", "PATCH", "PUT", "DELETE"}),
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
def github_call(what: str) -> Iterator[None]:
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
        return _one_line(str(data or "no message"), 300)
    parts = [str(data.get("message") or "no message")]
    for err in data.get("errors") or []:
        if isinstance(err, dict) and err.get("message"):
            parts.append(str(err["message"]))
        elif isinstance(err, str):
            parts.append(err)
    return _one_line("; ".join(parts), 500)


def _describe_transport_error(exc: Exception) -> str:
    """The kind of transport failure (timeout, refused...), without URLs or headers."""
    text = str(exc).lower()
    if "timed out" in text or "timeout" in type(exc).__name__.lower():
        return "timed out"
    if "refused" in text:
        return "connection refused"
    return type(exc).__name__


def _one_line(text: str, limit: int) -> str:
    """GitHub's message on one line, cut to ``limit`` characters (it goes into a log line)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
