"""The end of a job that keeps crashing the server.

A job left ``running`` by a crash is queued again on the next start (:meth:`Store.recover`, which
counts it). When the job itself is what kills the process -- memory, a native crash -- that would
repeat on every start for ever, the pull request's check never posted. A job recovered more than
``max_recoveries`` times (a setting, default 3) is therefore not run again: the worker posts a failure
check on its head saying so, and the job ends ``failed``.
"""

from __future__ import annotations

import logging

from oracle_gate.bot.jobs import posting, scoring
from oracle_gate.bot.jobs.context import Context, JobOutcome, Runner, Transient, github_for
from oracle_gate.bot.queue.store import FAILED, ClaimedJob
from oracle_gate.github.client import GitHubUnavailable, RateLimited
from oracle_gate.github.content import error_check
from oracle_gate.github.values import CheckTarget

_log = logging.getLogger("oracle_gate.bot")


def run_or_give_up(ctx: Context, claimed: ClaimedJob, run: Runner) -> JobOutcome:
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
            return JobOutcome(FAILED, why)
        head = _head_of(ctx, claimed)
        if head is not None:
            github = github_for(ctx, claimed.job)[0]
            external_id = posting.external_id(claimed.job.repo, claimed.job.pr, "given up", head)
            github.checks.publish(error_check(why), CheckTarget(head, ctx.config.check_name, external_id))
    except (GitHubUnavailable, RateLimited) as exc:
        raise Transient(str(exc)) from exc
    return JobOutcome(FAILED, why)


def _head_of(ctx: Context, claimed: ClaimedJob) -> str | None:
    """The commit the failure check goes on: the pull request's head now, or the job's own head."""
    job = claimed.job
    if job.pr is not None:
        return github_for(ctx, claimed.job)[0].pulls.pull_request(job.pr).head_sha
    return job.head
