"""One job, start to end: learn the pull request, fetch its objects, judge with the core, post as the App.

The bot's front door over the judgement the Action also makes (TRUST.md invariant 11), under the
same rules of :mod:`oracle_gate.review`: GitHub's test merge ``refs/pull/N/merge`` is judged against its
first parent only when it is fresh (:mod:`oracle_gate.review.freshness`: ``mergeable`` known, first parent
the base's current tip, second parent the head; else look again, and past the looks post a failure
check, never a verdict on a stale merge); the check goes on the head under the required check's
name only for an allowed base (:mod:`oracle_gate.review.bases`); a comment is parsed here, in the worker,
and a command acts only once its author's write access is known (:mod:`oracle_gate.review.commands`); a
change over ``max-changed-bytes`` is not read (``oracle_incomplete``). A merge group's commit is
judged against the group's base. The oracle comes from the parent (oracle_gate.check reads it there);
the parent's map comes only from a :class:`~oracle_gate.bot.jobs.context.MapSource` (no source, or no
map for that parent: the core makes the verdict ``unscored``, posted as ``action_required``, and the
pull request waits for it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from oracle_gate.bot.jobs import approvers, mirror, posting, scoring, surface_share, trend
from oracle_gate.bot.jobs.context import Context, JobOutcome, Judged, Transient, client_for, github_for
from oracle_gate.bot.jobs.door import MirrorLook, StoreMaps, bot_door
from oracle_gate.bot.queue import planning
from oracle_gate.bot.queue.delivery_jobs import ACCESS, COMMAND, DEFAULT_PUSH, EXPLAIN, JUDGE, MAP_READY, Job
from oracle_gate.bot.queue.store import DONE, FAILED, NO_MAP, SUPERSEDED, ClaimedJob, Store
from oracle_gate.github.client import (
    GitHubUnavailable,
    PublishError,
    RateLimited,
    github_call,
    open_repo,
)
from oracle_gate.github.content import explain_reply
from oracle_gate.github.pulls import PullInfo
from oracle_gate.github.repository import GitHubRepo
from oracle_gate.github.values import CheckTarget
from oracle_gate.judge.verdict import ReasonCode
from oracle_gate.judgement import sequence, stale
from oracle_gate.judgement.ports import Judged as SequenceJudged
from oracle_gate.judgement.ports import MergeGroupAsked, NotJudged, PullRequestAsked, Superseded
from oracle_gate.judgement.sequence import Answer, Door
from oracle_gate.review.approvals import ApprovalsRead
from oracle_gate.review.commands import Command, may_command, parse_command, reaction_for

_log = logging.getLogger("oracle_gate.bot")


def run_job(ctx: Context, claimed: ClaimedJob) -> JobOutcome:
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


def _run(ctx: Context, claimed: ClaimedJob) -> JobOutcome:  # noqa: PLR0911 - one return per job kind
    job = claimed.job
    try:
        if job.kind == planning.PLAN:
            return JobOutcome(
                *planning.plan_delivery(
                    ctx.store, claimed, ctx.config.map_workflow, ctx.config.review_interval
                )
            )
        if job.kind == COMMAND:
            return _answer_command(ctx, claimed)
        if job.kind == ACCESS:
            jobs = approvers.rejudge_jobs(ctx.store, job, lambda repo: _default_branch(ctx, job, repo))
            ctx.store.enqueue(claimed.delivery, jobs)
            return JobOutcome(DONE, f"queued {len(jobs)} pull request(s) resting on approvals again")
        if job.kind == MAP_READY:
            return _requeue_pulls(ctx, claimed, ctx.store.pulls_waiting_for_map(job.repo, job.base or ""))
        if job.kind == DEFAULT_PUSH:
            moved = ctx.store.pulls_judged_on_other_parent(job.repo, job.base or "")
            return _requeue_pulls(ctx, claimed, moved, moved_to=job.base)
        if job.kind in (JUDGE, EXPLAIN):
            return _judge(ctx, claimed, job.pr) if job.pr is not None else _judge_group(ctx, claimed)
        if job.kind == scoring.SCORE:  # a pass_clean verdict's sandboxed scoring run
            return scoring.run_score_job(ctx, claimed)
        return JobOutcome(FAILED, f"unknown job kind {job.kind!r}")
    except (GitHubUnavailable, RateLimited) as exc:
        raise Transient(str(exc)) from exc


def _requeue_pulls(
    ctx: Context, claimed: ClaimedJob, pulls: list[tuple[int, int]], *, moved_to: str | None = None
) -> JobOutcome:
    """Judge ``pulls`` again; ``moved_to`` (the default branch's new tip) makes each job first mark
    the check of a verdict on an older parent stale (:func:`_mark_stale_if_moved`)."""
    job = claimed.job
    jobs = [
        Job(
            JUDGE,
            job.repo,
            inst,
            f"{job.repo}#{pr}",
            pr=pr,
            base=moved_to,
            default_branch=job.default_branch,
        )
        for pr, inst in pulls
    ]
    ctx.store.enqueue(claimed.delivery, jobs)
    return JobOutcome(DONE, f"queued {len(jobs)} pull request(s) again")


def _answer_command(ctx: Context, claimed: ClaimedJob) -> JobOutcome:
    """Parse the comment (here, never on the server's event loop), learn its author's permission and
    react; only then act. A command from someone without write access changes nothing: no judgement
    is queued, cancelled or superseded (its job has a key of its own)."""
    job = claimed.job
    command = parse_command(job.comment or "")
    if command is None or job.pr is None:
        return JobOutcome(DONE, "the comment holds no /oracle-gate command")
    github, token = github_for(ctx, job)
    user = job.commenter or ""
    answered = sequence.answer(
        _door(ctx, job, github, token), command, user=user, pr_number=job.pr, comment_id=job.comment_id
    )
    if answered.error is not None:  # the permission is not known: nothing changes (a transient error retries)
        raise answered.error
    if answered.answer == Answer.REFUSED:
        return JobOutcome(DONE, answered.said)
    if command == Command.RERUN:
        again = Job(
            JUDGE,
            job.repo,
            job.installation,
            f"{job.repo}#{job.pr}",
            pr=job.pr,
            default_branch=job.default_branch,
        )
        ctx.store.enqueue(claimed.delivery, [again])
        return JobOutcome(DONE, f"/oracle-gate rerun by {user}: the pull request is queued")
    return _judge(ctx, claimed, job.pr, explain=True)


def _default_branch(ctx: Context, job: Job, repo: str) -> str | None:
    """``repos/get``'s default branch of ``repo``, read with the job's installation token."""
    client, _ = client_for(ctx, job)
    with github_call(f"read repository {repo}"):
        return str(open_repo(client, repo).default_branch) or None


def _judge(ctx: Context, claimed: ClaimedJob, number: int, *, explain: bool = False) -> JobOutcome:
    """The bot's adapter over the one judgement: the queue's rules (a newer event, a closed pull
    request, a moved default branch) around :func:`oracle_gate.judgement.sequence.judge` and
    :func:`~oracle_gate.judgement.sequence.post`, then what the store and the status page keep."""
    job = claimed.job
    github, token = github_for(ctx, job)
    if job.commenter is not None and job.kind != COMMAND and not _may_command(github, job):
        return JobOutcome(DONE, f"{job.commenter} may not command the bot (needs write access)")
    pull = github.pulls.pull_request(number)
    passed_over = _passed_over(ctx, job, pull)
    if passed_over is not None:
        return passed_over
    door = _door(ctx, job, github, token, pull)
    _mark_stale_if_moved(ctx, job, door, pull)
    return _judge_pull(ctx, claimed, door, pull, explain=explain)


def _judge_pull(
    ctx: Context, claimed: ClaimedJob, door: Door, pull: PullInfo, *, explain: bool
) -> JobOutcome:
    job, number = claimed.job, pull.number
    changed_at = ctx.store.base_changed_at(job.repo, number)
    judgement = sequence.judge(door, PullRequestAsked(number, pull.head_sha, pull.base_ref, changed_at))
    if isinstance(judgement, Superseded):
        return JobOutcome(SUPERSEDED, judgement.why)
    if explain or job.kind == EXPLAIN:
        return _explain(ctx, claimed, door, judgement)
    if isinstance(judgement, NotJudged):
        return _post_error(door, judgement, posting.external_id(job.repo, number, "error", pull.head_sha))
    if not ctx.store.is_newest(claimed.id, job.key):
        return JobOutcome(SUPERSEDED, "a newer event for this pull request is queued")
    judged = _judged(judgement)
    outcome = _post_verdict(ctx, job, door, judgement, judged)
    scoring.after_verdict(ctx, claimed.delivery, job, judged)  # the verdict's check first, then the score
    return outcome


def _explain(
    ctx: Context, claimed: ClaimedJob, door: Door, judgement: SequenceJudged | NotJudged
) -> JobOutcome:
    """``/oracle-gate explain``: the reply (every reason, or why there is no verdict), no check, as
    in the Action (:func:`oracle_gate.judgement.sequence.explain`)."""
    job = claimed.job
    if isinstance(judgement, NotJudged):
        sequence.explain(door, judgement, job.pr or 0)
        return JobOutcome(FAILED, judgement.why)
    if not ctx.store.is_newest(claimed.id, job.key):
        return JobOutcome(SUPERSEDED, "a newer event for this pull request is queued")
    sequence.explain(door, judgement, job.pr or 0)
    return JobOutcome(DONE, f"explained {judgement.verdict.verdict}")


def _door(ctx: Context, job: Job, github: GitHubRepo, token: str, first: PullInfo | None = None) -> Door:
    """The bot's ports for one job (:mod:`oracle_gate.bot.jobs.door`)."""
    look = MirrorLook(
        lambda: mirror.open_mirror(ctx.config.mirrors, job.repo),
        ctx.config.clone_url(job.repo),
        token,
        github.pulls,
        first,
    )
    maps = StoreMaps(lambda parent: ctx.maps.find(job.repo, parent, token))
    return bot_door(
        ctx.config,
        github=github,
        look=look,
        maps=maps,
        default_branch=job.default_branch,
        sleep=lambda seconds: ctx.clock.wait(ctx.stopping, seconds),
        clock=ctx.clock.monotonic,
        note=_note(job),
    )


def _passed_over(ctx: Context, job: Job, pull: PullInfo) -> JobOutcome | None:
    """Why the pull request is not judged by this job: its head moved past the event's, or an
    access change asked about a pull request closed since (forgotten: it is not asked again)."""
    if approvers.is_access_rejudgement(job) and not pull.open:
        ctx.store.forget_approvals(job.repo, pull.number)
        return JobOutcome(DONE, "the pull request is closed: not judged again")
    if job.head is not None and pull.head_sha != job.head:
        return JobOutcome(SUPERSEDED, f"the pull request's head is now {pull.head_sha}, not {job.head}")
    return None


def _judged(judgement: SequenceJudged) -> Judged:
    """What the store, the status page and the score job keep of a verdict."""
    return Judged(
        judgement.verdict,
        judgement.parent,
        judgement.head,
        judgement.had_map,
        judgement.seconds,
        _approving(judgement.approvals),
    )


def _approving(approvals: ApprovalsRead | None) -> tuple[str, ...]:
    """Whose access a verdict may rest on: the approving reviewers and (v3.9.3) the author whose
    permission was asked, whose own pull request may count as an approval."""
    if approvals is None:
        return ()
    logins = tuple(a.login for a in (approvals.approvals or ()))
    return (*logins, approvals.author) if approvals.author_permission is not None else logins


def _noted(ctx: Context, job: Job, judged: Judged) -> dict[str, object]:
    """What the status page keeps of a posted verdict (:mod:`oracle_gate.bot.jobs.trend`,
    :mod:`oracle_gate.bot.jobs.surface_share`)."""
    noted = trend.noted(judged.verdict, judged.seconds)
    if not judged.had_map:
        return noted
    git = mirror.open_mirror(ctx.config.mirrors, job.repo)

    def kept_map() -> Path | None:  # only asked when this parent's share is not known yet
        return ctx.maps.find(job.repo, judged.parent, ctx.auth.token(job.installation)).manifest

    return surface_share.with_share(noted, ctx.store, git, (job.repo, judged.parent), kept_map)


def _post_verdict(
    ctx: Context, job: Job, door: Door, judgement: SequenceJudged, judged: Judged
) -> JobOutcome:
    number, verdict, parent = job.pr or 0, judged.verdict, judged.parent
    details_url = None
    if ctx.config.public_url:
        page = ctx.store.save_explanation(job.repo, number, judged.head, explain_reply(verdict)[0])
        details_url = f"{ctx.config.public_url}/explanations/{page}"
    result = sequence.post(
        door,
        judgement,
        external_id=posting.external_id(job.repo, number, parent, judged.head),
        details_url=details_url,
        earlier=None if judged.had_map else _earlier(ctx.store, job.repo, number),
    )
    if result is None:  # pragma: no cover - post always posts a verdict
        raise AssertionError("a verdict was not posted")
    recorded = verdict.verdict if judged.had_map else NO_MAP
    noted = _noted(ctx, job, judged)
    ctx.store.record_verdict(
        job,
        parent,
        judged.head,
        recorded,
        result.check.check_run_id,
        noted=noted,
        required=judgement.check_name == ctx.config.check_name,
        approved_by=judged.approvers if ReasonCode.ORACLE_CHANGE_APPROVED in verdict.codes else None,
    )
    if not result.check.posted:
        raise Transient("; ".join(n.why for n in result.check.not_posted) or "the check was not posted")
    return JobOutcome(DONE, f"{verdict.verdict} on {judged.head} (parent {parent})")


def _earlier(store: Store, repo: str, number: int) -> stale.Earlier | None:
    """The pull request's last verdict (its parent and verdict), for marking an unscored check stale."""
    last = store.last_verdict(repo, number)
    return None if last is None else stale.Earlier(parent=last[0], verdict=last[2])


def _mark_stale_if_moved(ctx: Context, job: Job, door: Door, pull: PullInfo) -> None:
    """The default branch moved to ``job.base`` under a pull request whose check on this head holds a
    verdict made on an older parent: replace it with a stale (``action_required``) check now, before
    waiting for GitHub to recompute the test merge (TRUST.md 6: an old parent's success never
    stands as current). A pull request to another branch, or whose head moved since, is left alone."""
    if job.base is None or pull.base_ref != job.default_branch:
        return
    last = ctx.store.last_verdict(job.repo, pull.number)
    if last is None or last[0] == job.base or last[1] != pull.head_sha or last[2] == NO_MAP:
        return
    target = CheckTarget(
        pull.head_sha,
        sequence.check_name(door.rules, pull.base_ref),
        posting.external_id(job.repo, pull.number, f"stale:{job.base}", pull.head_sha),
    )
    result = sequence.post_moved(door, stale.Earlier(parent=last[0], verdict=last[2]), job.base, target)
    if not result.check.posted:
        raise Transient("; ".join(n.why for n in result.check.not_posted) or "the stale check was not posted")


def _may_command(github: GitHubRepo, job: Job) -> bool:
    """A job queued by an older version with its commenter: checked before anything else."""
    permitted = may_command(github.pulls.permission_of(job.commenter or ""))
    _react(github, job, reaction_for(permitted))
    return permitted


def _react(github: GitHubRepo, job: Job, reaction: str) -> None:
    if job.comment_id is not None and job.pr is not None:
        try:
            github.comments.react(job.pr, job.comment_id, reaction)
        except PublishError as exc:
            _log.warning("could not react", extra={"repo": job.repo, "pr": job.pr, "detail": str(exc)})


def _note(job: Job) -> Callable[[str], None]:
    def note(line: str) -> None:
        _log.info("judging", extra={"repo": job.repo, "pr": job.pr, "detail": line})

    return note


def _post_error(door: Door, judgement: NotJudged, external_id: str) -> JobOutcome:
    """No verdict could be computed: the sequence's failure check saying why (never a pass)."""
    sequence.post(door, judgement, external_id=external_id)
    return JobOutcome(FAILED, judgement.why)


def _judge_group(ctx: Context, claimed: ClaimedJob) -> JobOutcome:
    job = claimed.job
    if job.head is None or job.base is None or job.group_ref is None:
        return JobOutcome(FAILED, "a merge group job needs its head, base and ref")
    github, token = github_for(ctx, job)
    door = _door(ctx, job, github, token)
    asked = MergeGroupAsked(job.head, job.group_ref, job.base, job.base_ref)
    judgement = sequence.judge(door, asked)
    if isinstance(judgement, NotJudged):
        return _post_error(door, judgement, posting.external_id(job.repo, job.group_ref, "error", job.head))
    if isinstance(judgement, Superseded):  # pragma: no cover - a merge group is never superseded
        return JobOutcome(SUPERSEDED, judgement.why)
    external_id = posting.external_id(job.repo, job.group_ref, judgement.parent, judgement.merge)
    sequence.post(door, judgement, external_id=external_id)
    return JobOutcome(DONE, f"{judgement.verdict.verdict} on merge group {judgement.merge}")
