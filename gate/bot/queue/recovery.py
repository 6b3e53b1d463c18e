"""The end of a job that keeps crashing the server.

A job left ``running`` by a crash is queued again on the next start (:meth:`Store.recover`, which
counts it). When the job itself is what kills the process -- memory, a native crash -- that would
repeat on every start for ever, the pull request's check never posted. A job recovered more than
``max_recoveries`` times (a setting, default 3) is therefore not run again: the worker posts a failure
check on its head saying so, and the job ends ``failed``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from oracle_gate.bot.app.auth import installation_client
from oracle_gate.bot.jobs import posting, scoring
from oracle_gate.bot.jobs.judging import Context, Outcome, Transient
from oracle_gate.bot.queue.store import FAILED, ClaimedJob
from oracle_gate.github.client import GitHubUnavailable, RateLimited
from oracle_gate.github.content import error_check
from oracle_gate.github.publisher import Publisher, open_repo

_log = logging.getLogger("oracle_gate.bot")


def run_or_give_up(
    ctx: Context, claimed: ClaimedJob, run: Callable[[Context, ClaimedJob], Outcome]
) -> Outcome:
    """``run(ctx, claimed)``, unless a crash interrupted the job more than the limit allows."""
    limit = ctx.config.max_recoveries
    if claimed.recoveries <= limit:
        return run(ctx, claimed)
    why = (
        f"the server stopped while judging this {claimed.recoveries} times (more than the limit of "
        f"{limit}, ORACLE_GATE_MAX_RECOVERIES); it is not judged again automatically: "
        "look at the server's log, then comment /oracle-gate rerun"
    )
    _log.error("job given up", extra={"job": claimed.id, "repo": claimed.job.repo, "detail": why})
    try:
        if claimed.job.kind == scoring.SCORE:  # a score's own check says so, not the verdict's
            scoring.give_up(ctx, claimed, why)
            return Outcome(FAILED, why)
        head = _head_of(ctx, claimed)
        if head is not None:
            publisher = _publisher(ctx, claimed)
            publisher.external_id = posting.external_id(claimed.job.repo, claimed.job.pr, "given up", head)
            publisher.publish_check(error_check(why), head)
    except (GitHubUnavailable, RateLimited) as exc:
        raise Transient(str(exc)) from exc
    return Outcome(FAILED, why)


def _publisher(ctx: Context, claimed: ClaimedJob) -> Publisher:
    job = claimed.job
    client = installation_client(ctx.auth.token(job.installation), ctx.config.api_url, pacing=ctx.pacing)
    ctx.track(job.installation, client)
    publisher = Publisher(open_repo(client, job.repo), check_name=ctx.config.check_name)
    publisher.check_app = ctx.auth.slug()
    return publisher


def _head_of(ctx: Context, claimed: ClaimedJob) -> str | None:
    """The commit the failure check goes on: the pull request's head now, or the job's own head."""
    job = claimed.job
    if job.pr is not None:
        return _publisher(ctx, claimed).pull_request(job.pr).head_sha
    return job.head
