"""One job, start to end: learn the pull request, fetch its objects, judge with the core, post as the App.

What is judged is what the Action judges (:mod:`gate.action.merge_commit` explains why): GitHub's
test merge ``refs/pull/N/merge`` against its first parent; the check goes on the pull request's
head, which must be the merge's second parent. A merge group's commit is judged against the group's
base. The oracle comes from the parent (gate.check reads it there); the parent's map comes only from
a :class:`MapSource` (no source, or no map for that parent: the verdict is ``unscored``, posted as
``action_required``, and the pull request waits for the map).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import github

from gate.action.client import GitHubUnavailable, PublishError, RateLimited, RetrySettings
from gate.action.content import check_content, error_check, explain_reply, sticky_comment
from gate.action.defaults import CommentMode
from gate.action.publisher import CheckContent, Publisher, PullInfo, open_repo
from gate.bot import bounded, mirror, posting, stale, surface, trend
from gate.bot.auth import AppAuth, installation_client
from gate.bot.config import BotConfig
from gate.bot.events import DEFAULT_PUSH, EXPLAIN, JUDGE, MAP_READY, Job
from gate.bot.mapstore import MapLookup
from gate.bot.ratelimit import Budgets
from gate.bot.store import DONE, FAILED, NO_MAP, SUPERSEDED, ClaimedJob, Store
from gate.check import CheckRequest
from gate.errors import GateError
from gate.git import Git
from gate.judge.verdict import Outcome as Conclusion
from gate.judge.verdict import Reason, ReasonCode, Verdict

WRITERS = frozenset({"admin", "maintain", "write"})
_log = logging.getLogger("gate.bot")


class MapSource(Protocol):
    def find(self, repo: str, parent: str, token: str) -> MapLookup:
        """The parent's verified map (its manifest, the data file beside it), or why there is none."""


class NoMaps:
    """No trusted store is configured: every pull request is unscored until one is."""

    def find(self, repo: str, parent: str, token: str) -> MapLookup:
        return MapLookup(None, "no trusted map store is configured", waiting=True)


class Transient(Exception):
    """Worth another attempt later (GitHub unavailable or rate limited)."""


@dataclass(frozen=True)
class Outcome:
    state: str
    detail: str


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


def run_job(ctx: Context, claimed: ClaimedJob) -> Outcome:
    """Run one claimed job; :class:`Transient` when it should be retried."""
    job = claimed.job
    _wait_for_budget(ctx, job)
    ctx.begin_job(job.installation)
    try:
        return _run(ctx, claimed)
    finally:
        ctx.note_budgets()


def _wait_for_budget(ctx: Context, job: Job) -> None:
    pause = ctx.budgets.pause_for(job.installation)
    if pause <= 0:
        return
    _log.warning(
        "rate limit nearly spent; waiting for its reset",
        extra={"repo": job.repo, "detail": f"installation {job.installation}: {pause:.0f} s"},
    )
    if ctx.stopping.wait(pause):
        raise Transient("stopped while waiting for the installation's rate limit to reset")


def _run(ctx: Context, claimed: ClaimedJob) -> Outcome:
    job = claimed.job
    try:
        if job.kind == MAP_READY:
            return _requeue_pulls(ctx, claimed, ctx.store.pulls_waiting_for_map(job.repo, job.base or ""))
        if job.kind == DEFAULT_PUSH:
            return _requeue_pulls(
                ctx, claimed, ctx.store.pulls_judged_on_other_parent(job.repo, job.base or "")
            )
        if job.kind in (JUDGE, EXPLAIN):
            return _judge(ctx, claimed, job.pr) if job.pr is not None else _judge_group(ctx, claimed)
        return Outcome(FAILED, f"unknown job kind {job.kind!r}")
    except (GitHubUnavailable, RateLimited) as exc:
        raise Transient(str(exc)) from exc


def _requeue_pulls(ctx: Context, claimed: ClaimedJob, pulls: list[tuple[int, int]]) -> Outcome:
    job = claimed.job
    jobs = [Job(JUDGE, job.repo, inst, f"{job.repo}#{pr}", pr=pr) for pr, inst in pulls]
    ctx.store.enqueue(claimed.delivery, jobs)
    return Outcome(DONE, f"queued {len(jobs)} pull request(s) again")


def _publisher(ctx: Context, job: Job) -> tuple[Publisher, str]:
    token = ctx.auth.token(job.installation)
    client = installation_client(token, ctx.config.api_url, retry=ctx.retry, pacing=ctx.pacing)
    ctx.track(job.installation, client)
    publisher = Publisher(
        open_repo(client, job.repo), check_name=ctx.config.check_name, comment_author=ctx.auth.bot_login()
    )
    publisher.check_app = ctx.auth.slug()
    return publisher, token


def _judge(ctx: Context, claimed: ClaimedJob, number: int) -> Outcome:
    job = claimed.job
    publisher, token = _publisher(ctx, job)
    if job.commenter is not None and not _may_command(publisher, job):
        return Outcome(DONE, f"{job.commenter} may not command the bot (needs write access)")
    pull = publisher.pull_request(number)
    if job.head is not None and pull.head_sha != job.head:
        return Outcome(SUPERSEDED, f"the pull request's head is now {pull.head_sha}, not {job.head}")
    try:
        git = mirror.open_mirror(ctx.config.mirrors, job.repo)
        parent, judged = _fetch_pull(git, ctx.config.clone_url(job.repo), pull, token)
        started = time.monotonic()
        verdict, had_map = _verdict(ctx, git, repo=job.repo, parent=parent, head=judged, token=token)
        noted = trend.noted_at_judging(
            git, parent, time.monotonic() - started, dt.datetime.now(dt.UTC).date()
        )
    except GateError as exc:
        publisher.external_id = posting.external_id(job.repo, number, "error", pull.head_sha)
        return _post_error(publisher, pull.head_sha, str(exc))
    publisher.external_id = posting.external_id(job.repo, number, parent, pull.head_sha)
    if not ctx.store.is_newest(claimed.id, job.key):
        return Outcome(SUPERSEDED, "a newer event for this pull request is queued")
    if job.kind == EXPLAIN:
        body, _ = explain_reply(verdict)
        publisher.reply(number, body)
        return Outcome(DONE, f"explained {verdict.verdict}")
    if ctx.config.public_url:
        page = ctx.store.save_explanation(job.repo, number, pull.head_sha, explain_reply(verdict)[0])
        publisher.details_url = f"{ctx.config.public_url}/explanations/{page}"
    content = check_content(verdict)
    if not had_map:
        content = _marked_if_stale(ctx.store, job.repo, number, parent, content)
    result = publisher.publish(
        content,
        head_sha=pull.head_sha,
        pr_number=number,
        comment=sticky_comment(verdict, CommentMode.ON_CHANGE),
    )
    recorded = verdict.verdict if had_map else NO_MAP
    found = lambda: ctx.maps.find(job.repo, parent, token).manifest if had_map else None  # noqa: E731
    noted = surface.with_share(noted, ctx.store, git, (job.repo, parent), found)
    ctx.store.record_verdict(job, parent, pull.head_sha, recorded, result.check.check_run_id, noted=noted)
    if not result.check.posted:
        raise Transient("; ".join(n.why for n in result.check.not_posted) or "the check was not posted")
    return Outcome(DONE, f"{verdict.verdict} on {pull.head_sha} (parent {parent})")


def _marked_if_stale(
    store: Store, repo: str, number: int, parent: str, content: CheckContent
) -> CheckContent:
    """The unscored check, saying it replaces a verdict made on an older parent when it does."""
    last = store.last_verdict(repo, number)
    earlier = None if last is None else stale.Earlier(parent=last[0], verdict=last[2])
    if earlier is None or not stale.is_stale(earlier, parent, content):
        return content
    return stale.stale_check(content, earlier, parent)


def _may_command(publisher: Publisher, job: Job) -> bool:
    permitted = publisher.permission_of(job.commenter or "") in WRITERS
    if job.comment_id is not None and job.pr is not None:
        try:
            publisher.react(job.pr, job.comment_id, "eyes" if permitted else "confused")
        except PublishError as exc:
            _log.warning("could not react", extra={"repo": job.repo, "pr": job.pr, "detail": str(exc)})
    return permitted


def _fetch_pull(git: Git, url: str, pull: PullInfo, token: str) -> tuple[str, str]:
    """(parent, merge) of the pull request's test merge, fetched into the mirror."""
    ref = f"refs/oracle-gate/pull/{pull.number}/merge"
    mirror.fetch(git, url, [f"+refs/pull/{pull.number}/merge:{ref}"], token)
    merge = git.commit(ref)
    parent, second = git.commit(f"{merge}^1"), git.commit(f"{merge}^2")
    if second != pull.head_sha:
        raise GateError(f"GitHub's test merge is of {second}, not of the head {pull.head_sha}; rerun later")
    return parent, merge


def _verdict(
    ctx: Context, git: Git, *, repo: str, parent: str, head: str, token: str
) -> tuple[Verdict, bool]:
    found = ctx.maps.find(repo, parent, token)
    request = CheckRequest(repo=git.repo, base=parent, head=head, coverage=found.manifest)
    verdict = bounded.judge(request, ctx.config.job_memory_mb * bounded.MIB)
    if found.manifest is None:
        return without_map(verdict, found.why), False
    return verdict, True


def without_map(verdict: Verdict, why: str) -> Verdict:
    """The verdict made with no map, saying why the trusted store gave none; never ``pass_clean``
    (the core already makes a verdict without a map unscored at best: this holds even if it did not)."""
    reason = Reason(ReasonCode.ORACLE_INCOMPLETE, f"trusted map store: {why}")
    outcome = Conclusion.UNSCORED if verdict.verdict == Conclusion.PASS_CLEAN else verdict.verdict
    return dataclasses.replace(verdict, verdict=outcome, reasons=(reason, *verdict.reasons))


def _post_error(publisher: Publisher, head: str, why: str) -> Outcome:
    """No verdict could be computed: a failure check saying why (never a pass)."""
    publisher.publish_check(error_check(why), head)
    return Outcome(FAILED, why)


def _judge_group(ctx: Context, claimed: ClaimedJob) -> Outcome:
    job = claimed.job
    if job.head is None or job.base is None or job.group_ref is None:
        return Outcome(FAILED, "a merge group job needs its head, base and ref")
    publisher, token = _publisher(ctx, job)
    try:
        git = mirror.open_mirror(ctx.config.mirrors, job.repo)
        mirror.fetch(git, ctx.config.clone_url(job.repo), [f"+{job.group_ref}:refs/oracle-gate/group"], token)
        head, base = git.commit(job.head), git.commit(job.base)
        verdict, _ = _verdict(ctx, git, repo=job.repo, parent=base, head=head, token=token)
    except GateError as exc:
        publisher.external_id = posting.external_id(job.repo, job.group_ref, "error", job.head)
        return _post_error(publisher, job.head, str(exc))
    publisher.external_id = posting.external_id(job.repo, job.group_ref, base, head)
    publisher.publish_check(check_content(verdict), head)
    return Outcome(DONE, f"{verdict.verdict} on merge group {head}")


Runner = Callable[[Context, ClaimedJob], Outcome]
