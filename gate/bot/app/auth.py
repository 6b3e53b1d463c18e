"""The App's identity, through PyGithub's App auth: a JWT for the App, tokens per installation.

Installation tokens live an hour; each is cached until :data:`REFRESH_MARGIN` before it expires, and
minted by one thread at a time per installation, so a burst of jobs for one installation asks GitHub
once. The token is handed to the publisher's client
and to one git fetch's environment; it is never logged, never written to disk or to git config.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import github
from github import Auth, GithubIntegration

from oracle_gate import __version__
from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.github.client import RetrySettings, github_call, make_client, make_retry

REFRESH_MARGIN = 300.0  # seconds before expiry when a cached installation token is replaced


@dataclass(frozen=True)
class InstallationToken:
    token: str = field(repr=False)
    expires_at: float  # epoch seconds


class AppAuth:
    """JWT -> installation tokens (cached) and the App's own slug, for one App on one GitHub."""

    def __init__(
        self,
        app_id: int,
        private_key: str,
        api_url: str,
        *,
        retry: RetrySettings | None = None,
        seconds_between_requests: float | None = 0.25,
        clock: Clock = SYSTEM,
    ) -> None:
        settings = retry or RetrySettings()
        self._integration = GithubIntegration(
            auth=Auth.AppAuth(app_id, private_key),
            base_url=api_url,
            timeout=settings.timeout,
            retry=make_retry(settings),
            user_agent=f"oracle-gate/{__version__}",
            seconds_between_requests=seconds_between_requests,
            seconds_between_writes=seconds_between_requests,
        )
        self._clock = clock
        self._tokens: dict[int, InstallationToken] = {}
        self._lock = threading.Lock()
        self._mint_locks: dict[int, threading.Lock] = {}
        self._slug: str | None = None
        self._slug_lock = threading.Lock()

    def __repr__(self) -> str:
        return "AppAuth(...)"

    def slug(self) -> str:
        """The App's slug (``GET /app``); its comments are by ``<slug>[bot]``."""
        with self._slug_lock:  # one GET /app however many jobs of a cold start ask at once
            if self._slug is None:
                with github_call("read the App (GET /app)"):
                    self._slug = str(self._integration.get_app().slug)
            return self._slug

    def app_requester(self) -> Any:
        """PyGithub's requester authenticated with the App's JWT (for ``/app/...`` endpoints)."""
        return self._integration.requester

    def bot_login(self) -> str:
        return f"{self.slug()}[bot]"

    def token(self, installation: int) -> str:
        """A valid installation token, from the cache or freshly created.

        Single flight per installation: the jobs of a cold start all ask at once, and without this
        each of them minted its own token (6-7 of them for one installation). The first asks GitHub
        while holding the installation's lock; the others wait on it and take the cached token."""
        cached = self._cached(installation)
        if cached is not None:
            return cached
        with self._minting(installation):
            cached = self._cached(installation)
            if cached is not None:
                return cached
            with github_call(f"create an installation token for installation {installation}"):
                answer = self._integration.get_access_token(installation)
            expires = answer.expires_at
            fresh = InstallationToken(
                answer.token,
                expires.timestamp() if isinstance(expires, datetime) else self._clock.now() + 3600,
            )
            with self._lock:
                self._tokens[installation] = fresh
            return fresh.token

    def _cached(self, installation: int) -> str | None:
        with self._lock:
            cached = self._tokens.get(installation)
        if cached is not None and cached.expires_at - REFRESH_MARGIN > self._clock.now():
            return cached.token
        return None

    def _minting(self, installation: int) -> threading.Lock:
        """The lock one installation's token is minted under (installations do not wait on each other)."""
        with self._lock:
            return self._mint_locks.setdefault(installation, threading.Lock())

    def cached_tokens(self) -> int:
        with self._lock:
            return len(self._tokens)


def installation_client(
    token: str, api_url: str, *, retry: RetrySettings | None = None, pacing: float | None = 0.25
) -> github.Github:
    """The publisher's client for one installation token (oracle_gate.github.client's, same retry policy)."""
    return make_client(
        token, api_url, retry=retry, seconds_between_requests=pacing, seconds_between_writes=pacing
    )
