"""What every job of the worker shares: its context, its outcome, and how it talks to GitHub.

The job modules (:mod:`oracle_gate.bot.jobs.judging`, :mod:`oracle_gate.bot.jobs.scoring`,
:mod:`oracle_gate.bot.queue.recovery`) and the pool (:mod:`oracle_gate.bot.queue.workers`) all take
these from here, so none of them reaches into another's module: the judge job queues a score, the
score job never imports the judge job.

* :class:`Context`: the settings, the App's credentials, the store, the map source, the rate-limit
  budgets and the stop signal a job runs with;
* :class:`JobOutcome`: the state a job ends in and why (the verdict's own outcome is
  :class:`oracle_gate.judge.verdict.Outcome`, a different thing);
* :class:`Transient`: raised by a job worth another attempt later;
* :class:`Judged`: a verdict made by the judge job, as the score job reads it;
* :func:`github_for`: the App's pull requests, checks and comments of a job's repository, its requests
  counted against the job's installation;
* :func:`check_name`: the check's name for a pull request's base.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import github

from oracle_gate.bot.app.auth import AppAuth, installation_client
from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.bot.app.config import BotConfig
from oracle_gate.bot.app.ratelimit import Budgets
from oracle_gate.bot.jobs.mapstore import MapLookup
from oracle_gate.bot.queue.delivery_jobs import Job
from oracle_gate.bot.queue.store import ClaimedJob, Store
from oracle_gate.errors import RetryLater
from oracle_gate.github.client import RetrySettings, open_repo
from oracle_gate.github.repository import GitHubRepo, connect
from oracle_gate.judge.verdict import Verdict
from oracle_gate.review.bases import allowed_bases, check_name_for_base


class MapSource(Protocol):
    def find(self, repo: str, parent: str, token: str) -> MapLookup:
        """The parent's verified map (its manifest, the data file beside it), or why there is none."""


class NoMaps:
    """No trusted store is configured: every pull request is unscored until one is."""

    def find(self, repo: str, parent: str, token: str) -> MapLookup:
        return MapLookup(None, "no trusted map store is configured", waiting=True)


class Transient(RetryLater):
    """Worth another attempt later (GitHub unavailable or rate limited)."""


@dataclass(frozen=True)
class JobOutcome:
    """The state a job ends in (``done``, ``failed``, ``superseded``…) and why."""

    state: str
    detail: str


@dataclass(frozen=True)
class Judged:
    verdict: Verdict
    parent: str
    head: str  # the pull request's head: where the check goes
    had_map: bool
    seconds: float = 0.0  # spent judging (the status page's /metrics histogram)
    approvers: tuple[str, ...] = ()  # who approved the head (an access change of theirs re-judges)


@dataclass
class Context:
    config: BotConfig
    auth: AppAuth
    store: Store
    maps: MapSource
    retry: RetrySettings | None = None
    pacing: float | None = 0.25
    budgets: Budgets = field(default_factory=Budgets)
    stopping: threading.Event = field(default_factory=threading.Event)
    clock: Clock = SYSTEM  # the server's one clock (oracle_gate.bot.app.clock)
    _clients: threading.local = field(default_factory=threading.local)

    def track(self, installation: int, client: github.Github) -> None:
        """Remember a job's client, so its last rate-limit headers are noted when the job ends."""
        if not hasattr(self._clients, "seen"):
            self._clients.seen = []
        self._clients.seen.append((installation, client))

    def begin_job(self, installation: int) -> None:
        """The installation whose budget this thread's requests spend until :meth:`note_budgets`."""
        self._clients.installation = installation

    def track_for_job(self, client: github.Github) -> None:
        """:meth:`track` for a client made outside the job's own code (the map store's), counted
        against the installation of the job this thread runs; ignored outside a job."""
        installation = getattr(self._clients, "installation", None)
        if installation is not None:
            self.track(installation, client)

    def note_budgets(self) -> None:
        for installation, client in getattr(self._clients, "seen", []):
            self.budgets.note(installation, client.requester)
        self._clients.seen = []
        self._clients.installation = None


#: A job's runner: :func:`oracle_gate.bot.jobs.judging.run_job`, or a test's stand-in.
Runner = Callable[[Context, ClaimedJob], JobOutcome]


def client_for(ctx: Context, job: Job) -> tuple[github.Github, str]:
    """An installation client for ``job`` (tracked for its rate-limit budget) and its token."""
    token = ctx.auth.token(job.installation)
    client = installation_client(token, ctx.config.api_url, retry=ctx.retry, pacing=ctx.pacing)
    ctx.track(job.installation, client)
    return client, token


def github_for(ctx: Context, job: Job) -> tuple[GitHubRepo, str]:
    """``job``'s repository as the App sees it (only the App's own check runs and comments count as
    ours), and its token."""
    client, token = client_for(ctx, job)
    repo = connect(
        open_repo(client, job.repo), check_app=ctx.auth.slug(), comment_author=ctx.auth.bot_login()
    )
    return repo, token


def check_name(ctx: Context, job: Job, base: str | None) -> str:
    """The required check's name for an allowed base, ``<name> (base: <branch>)`` for any other."""
    allowed = allowed_bases(ctx.config.allowed_bases, job.default_branch)
    return check_name_for_base(ctx.config.check_name, base, allowed)
