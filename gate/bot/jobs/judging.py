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
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from oracle_gate import __version__
from oracle_gate.bot.jobs import (
    approvers,
    bounded,
    merges,
    mirror,
    posting,
    scoring,
    surface_share,
    trend,
)
from oracle_gate.bot.jobs.context import (
    Context,
    JobOutcome,
    Judged,
    Transient,
    check_name,
    client_for,
    publisher_for,
)
from oracle_gate.bot.queue import planning
from oracle_gate.bot.queue.delivery_jobs import ACCESS, COMMAND, DEFAULT_PUSH, EXPLAIN, JUDGE, MAP_READY, Job
from oracle_gate.bot.queue.store import DONE, FAILED, NO_MAP, SUPERSEDED, ClaimedJob, Store
from oracle_gate.check import CheckRequest
from oracle_gate.errors import GateError
from oracle_gate.git import Git
from oracle_gate.github.client import (
    GitHubUnavailable,
    PublishError,
    RateLimited,
    github_call,
)
from oracle_gate.github.content import check_content, error_check, explain_reply, sticky_comment
from oracle_gate.github.publisher import CheckContent, Publisher, PullInfo, open_repo
from oracle_gate.judge.verdict import ReasonCode, Verdict
from oracle_gate.judgement import stale
from oracle_gate.judge.withheld import change_too_large, map_unavailable
from oracle_gate.review.approvals import ApprovalsRead, parent_rules, read_approvals, request_fields, shown
from oracle_gate.review.budget import changed_bytes
from oracle_gate.review.commands import Command, may_command, parse_command, reaction_for, refusal
from oracle_gate.review.freshness import fresh_merge
from oracle_gate.review.merge_group import QueuedPull, group_approvals

_log = logging.getLogger("oracle_gate.bot")
QUEUED_HEAD = "refs/oracle-gate/group-pull"  # v3.9.2: the merge group's pull request's head


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
    publisher, _ = publisher_for(ctx, job)
    user = job.commenter or ""
    permission = publisher.permission_of(user)
    permitted = may_command(permission)
    _react(publisher, job, reaction_for(permitted))
    if not permitted:
        return JobOutcome(DONE, refusal(user, command, permission))
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
    job = claimed.job
    publisher, token = publisher_for(ctx, job)
    if job.commenter is not None and job.kind != COMMAND and not _may_command(publisher, job):
        return JobOutcome(DONE, f"{job.commenter} may not command the bot (needs write access)")
    pull = publisher.pull_request(number)
    passed_over = _passed_over(ctx, job, pull)
    if passed_over is not None:
        return passed_over
    publisher.check_name = check_name(ctx, job, pull.base_ref)
    _mark_stale_if_moved(ctx, job, publisher, pull)
    judged = _judge_fresh_merge(ctx, job, publisher, token, pull)
    if isinstance(judged, JobOutcome):
        return judged
    if not ctx.store.is_newest(claimed.id, job.key):
        return JobOutcome(SUPERSEDED, "a newer event for this pull request is queued")
    if explain or job.kind == EXPLAIN:
        body, _ = explain_reply(judged.verdict)
        publisher.reply(number, body)
        return JobOutcome(DONE, f"explained {judged.verdict.verdict}")
    outcome = _post_verdict(ctx, job, publisher, judged)
    scoring.after_verdict(ctx, claimed.delivery, job, judged)  # the verdict's check first, then the score
    return outcome


def _passed_over(ctx: Context, job: Job, pull: PullInfo) -> JobOutcome | None:
    """Why the pull request is not judged by this job: its head moved past the event's, or an
    access change asked about a pull request closed since (forgotten: it is not asked again)."""
    if approvers.is_access_rejudgement(job) and not pull.open:
        ctx.store.forget_approvals(job.repo, pull.number)
        return JobOutcome(DONE, "the pull request is closed: not judged again")
    if job.head is not None and pull.head_sha != job.head:
        return JobOutcome(SUPERSEDED, f"the pull request's head is now {pull.head_sha}, not {job.head}")
    return None


def _judge_fresh_merge(
    ctx: Context, job: Job, publisher: Publisher, token: str, pull: PullInfo
) -> Judged | JobOutcome:
    """The verdict on the pull request's fresh test merge, or the outcome of not making one (a
    failure check says why: a merge still stale after every look is never judged)."""
    head = pull.head_sha
    try:
        git = mirror.open_mirror(ctx.config.mirrors, job.repo)
        look = merges.looker(git, ctx.config.clone_url(job.repo), token, publisher, pull)
        seen = fresh_merge(look, ctx.stopping.wait, wait=ctx.config.merge_wait, note=_note(job))
        if seen.head != head:
            return JobOutcome(SUPERSEDED, f"the pull request's head moved to {seen.head} while waiting")
        parent = seen.first_parent or ""
        approvals = _approvals(git, publisher, pull, parent, ctx.store.base_changed_at(job.repo, pull.number))
        started = time.monotonic()
        verdict, had_map = _verdict(
            ctx, git, repo=job.repo, parent=parent, head=seen.merge or "", token=token, approvals=approvals
        )
    except GateError as exc:
        publisher.external_id = posting.external_id(job.repo, pull.number, "error", head)
        return _post_error(publisher, head, str(exc))
    publisher.external_id = posting.external_id(job.repo, pull.number, parent, head)
    return Judged(verdict, parent, head, had_map, time.monotonic() - started, _approving(approvals))


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


def _post_verdict(ctx: Context, job: Job, publisher: Publisher, judged: Judged) -> JobOutcome:
    number, verdict, parent = job.pr or 0, judged.verdict, judged.parent
    if ctx.config.public_url:
        page = ctx.store.save_explanation(job.repo, number, judged.head, explain_reply(verdict)[0])
        publisher.details_url = f"{ctx.config.public_url}/explanations/{page}"
    content = check_content(verdict, ctx.config.max_annotations)
    if not judged.had_map:
        content = _marked_if_stale(ctx.store, job.repo, number, parent, content)
    result = publisher.publish(
        content,
        head_sha=judged.head,
        pr_number=number,
        comment=sticky_comment(verdict, ctx.config.comment),
    )
    recorded = verdict.verdict if judged.had_map else NO_MAP
    noted = _noted(ctx, job, judged)
    ctx.store.record_verdict(
        job,
        parent,
        judged.head,
        recorded,
        result.check.check_run_id,
        noted=noted,
        required=publisher.check_name == ctx.config.check_name,
        approved_by=judged.approvers if ReasonCode.ORACLE_CHANGE_APPROVED in verdict.codes else None,
    )
    if not result.check.posted:
        raise Transient("; ".join(n.why for n in result.check.not_posted) or "the check was not posted")
    return JobOutcome(DONE, f"{verdict.verdict} on {judged.head} (parent {parent})")


def _mark_stale_if_moved(ctx: Context, job: Job, publisher: Publisher, pull: PullInfo) -> None:
    """The default branch moved to ``job.base`` under a pull request whose check on this head holds a
    verdict made on an older parent: replace it with a stale (``action_required``) check now, before
    waiting for GitHub to recompute the test merge (TRUST.md 6: an old parent's success never
    stands as current). A pull request to another branch, or whose head moved since, is left alone."""
    if job.base is None or pull.base_ref != job.default_branch:
        return
    last = ctx.store.last_verdict(job.repo, pull.number)
    if last is None or last[0] == job.base or last[1] != pull.head_sha or last[2] == NO_MAP:
        return
    earlier = stale.Earlier(parent=last[0], verdict=last[2])
    publisher.external_id = posting.external_id(job.repo, pull.number, f"stale:{job.base}", pull.head_sha)
    result = publisher.publish_check(stale.moved_check(earlier, job.base), pull.head_sha)
    if not result.posted:
        raise Transient("; ".join(n.why for n in result.not_posted) or "the stale check was not posted")


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
    """A job queued by an older version with its commenter: checked before anything else."""
    permitted = may_command(publisher.permission_of(job.commenter or ""))
    _react(publisher, job, reaction_for(permitted))
    return permitted


def _react(publisher: Publisher, job: Job, reaction: str) -> None:
    if job.comment_id is not None and job.pr is not None:
        try:
            publisher.react(job.pr, job.comment_id, reaction)
        except PublishError as exc:
            _log.warning("could not react", extra={"repo": job.repo, "pr": job.pr, "detail": str(exc)})


def _note(job: Job) -> Callable[[str], None]:
    def note(line: str) -> None:
        _log.info("test merge not fresh", extra={"repo": job.repo, "pr": job.pr, "detail": line})

    return note


def _approvals(
    git: Git, publisher: Publisher, pull: PullInfo, parent: str, base_changed_at: datetime | None = None
) -> ApprovalsRead | None:
    """v3.5: the pull request's approvals through the API, when the parent's policy names approvers;
    ``base_changed_at``: v3.9.1, the last retarget the bot's deliveries told (the API may lag)."""
    rules = parent_rules(git, parent)
    if rules is None:
        return None
    reader = publisher.review_reader()
    return read_approvals(
        reader,
        rules,
        number=pull.number,
        author=pull.author,
        head=pull.head_sha,
        base_changed_at=base_changed_at,
    )


def _verdict(
    ctx: Context,
    git: Git,
    *,
    repo: str,
    parent: str,
    head: str,
    token: str,
    approvals: ApprovalsRead | None = None,
) -> tuple[Verdict, bool]:
    found = ctx.maps.find(repo, parent, token)
    size = changed_bytes(git, parent, head)
    if size > ctx.config.max_changed_bytes:
        verdict = change_too_large(parent, head, size, ctx.config.max_changed_bytes, __version__)
    else:
        request = CheckRequest(
            repo=git.repo, base=parent, head=head, coverage=found.manifest, **request_fields(approvals)
        )
        verdict = shown(bounded.judge(request, ctx.config.job_memory_mb * bounded.MIB), approvals)
    if found.manifest is None:
        return map_unavailable(verdict, found.why), False
    return verdict, True


def _post_error(publisher: Publisher, head: str, why: str) -> JobOutcome:
    """No verdict could be computed: a failure check saying why (never a pass)."""
    publisher.publish_check(error_check(why), head)
    return JobOutcome(FAILED, why)


def _judge_group(ctx: Context, claimed: ClaimedJob) -> JobOutcome:
    job = claimed.job
    if job.head is None or job.base is None or job.group_ref is None:
        return JobOutcome(FAILED, "a merge group job needs its head, base and ref")
    publisher, token = publisher_for(ctx, job)
    publisher.check_name = check_name(ctx, job, job.base_ref)
    try:
        git = mirror.open_mirror(ctx.config.mirrors, job.repo)
        mirror.fetch(git, ctx.config.clone_url(job.repo), [f"+{job.group_ref}:refs/oracle-gate/group"], token)
        head, base = git.commit(job.head), git.commit(job.base)
        approvals = _group_approvals(ctx, git, publisher, token, job, base=base, head=head)
        verdict, _ = _verdict(
            ctx, git, repo=job.repo, parent=base, head=head, token=token, approvals=approvals
        )
    except GateError as exc:
        publisher.external_id = posting.external_id(job.repo, job.group_ref, "error", job.head)
        return _post_error(publisher, job.head, str(exc))
    publisher.external_id = posting.external_id(job.repo, job.group_ref, base, head)
    publisher.publish_check(check_content(verdict, ctx.config.max_annotations), head)
    return JobOutcome(DONE, f"{verdict.verdict} on merge group {head}")


def _group_approvals(
    ctx: Context, git: Git, publisher: Publisher, token: str, job: Job, *, base: str, head: str
) -> ApprovalsRead | None:
    """v3.9.2: the approvals of each pull request of the group, on its own head
    (:mod:`oracle_gate.review.merge_group`)."""

    def pull(number: int) -> QueuedPull:
        info = publisher.pull_request(number)
        return QueuedPull(info.head_sha, info.author, info.base_ref)

    def fetch_head(number: int) -> None:
        mirror.fetch(git, ctx.config.clone_url(job.repo), [f"+refs/pull/{number}/head:{QUEUED_HEAD}"], token)

    return group_approvals(
        git,
        publisher.review_reader(),
        parent_rules(git, base),
        head_ref=job.group_ref or "",
        base_sha=base,
        head_sha=head,
        pull=pull,
        fetch_head=fetch_head,
    )
