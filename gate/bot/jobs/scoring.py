"""The bot's scoring run (issue 20; SCORING.md; TRUST.md 13): a ``pass_clean`` verdict scored on the
bot's own machine, in a sandbox, and posted as a second check, ``<check-name> / score``.

Off unless ``ORACLE_GATE_SCORE_SANDBOX=bwrap``; ``serve`` refuses to start when it is on and
bubblewrap is missing or cannot make its namespaces
(:func:`oracle_gate.bot.app.score_settings.ensure_sandbox`). When on:

* the judge job, having posted a ``pass_clean`` verdict with the parent's map, queues one
  :data:`SCORE` job (:func:`after_verdict`); nothing else is ever scored;
* a worker runs it (never the server's event loop): the check goes ``in_progress``, then
  ``oracle-gate score`` runs in the sandbox of :mod:`oracle_gate.score.sandbox` on the test merge the
  verdict was made on (head's tree from the bot's mirror, ``git archive`` into a size-limited
  tmpfs; the parent's map read-only; the state directory, the App's key and the webhook secret's
  file hidden; no network; an environment with no token; CPU, memory, disk and wall-clock limits);
* its report is a claim: the bot accepts it only against what it knows itself (its own diff
  verdict, the parent's map, :func:`oracle_gate.score.trusted.verify_document`), so the check's
  conclusion is mapped as ``score-verify``'s is (``pass_clean`` success, ``fail`` failure,
  ``unscored`` action_required); a limit reached is ``unscored`` naming the limit;
* the check's ``external_id`` comes from (repository, pull request, parent, head, "score"): a job
  run again after a crash, or a re-run, finds and completes the same run;
* a newer head (or parent, or verdict) supersedes the score: a queued one is dropped and a running
  one is killed within a second, and no score is posted for a head the pull request no longer has.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Any

from oracle_gate.bot.jobs import bounded, mirror, posting
from oracle_gate.bot.jobs.context import Context, JobOutcome, Judged, Transient, check_name, github_for
from oracle_gate.bot.queue.delivery_jobs import Job
from oracle_gate.bot.queue.store import DONE, FAILED, SUPERSEDED, ClaimedJob, Store
from oracle_gate.errors import GateError
from oracle_gate.github.checks import Checks
from oracle_gate.github.content import outcome_check
from oracle_gate.github.defaults import MAX_ANNOTATIONS_PER_RUN
from oracle_gate.github.values import CheckContent, CheckTarget
from oracle_gate.judge.verdict import Outcome, Verdict
from oracle_gate.judgement.ports import Facts, ParentMap
from oracle_gate.score import sandbox as box
from oracle_gate.score.decide import Score, incomplete
from oracle_gate.score.mutation.annotations import report_annotations
from oracle_gate.score.report import to_markdown
from oracle_gate.score.trusted import verify_document

SCORE = "score"  # the job kind
SUFFIX = " / score"  # the check's name: the verdict check's name and this
_log = logging.getLogger("oracle_gate.bot")


# -- queueing: the judge job's hook --------------------------------------------------------------


def score_job(job: Job, parent: str, head: str, merge: str) -> Job:
    """The score of ``job``'s pull request at (parent, head); the test merge it was judged on rides in
    ``payload``. A key of its own: a long score never holds up the pull request's next judgement."""
    return Job(
        SCORE,
        job.repo,
        job.installation,
        f"{job.repo}#{job.pr}{SUFFIX}",
        pr=job.pr,
        head=head,
        base=parent,
        default_branch=job.default_branch,
        payload=json.dumps({"merge": merge}),
    )


def after_verdict(ctx: Context, delivery: str, job: Job, judged: Judged) -> None:
    """Queue the score of a ``pass_clean`` verdict made with the parent's map (when scoring is on);
    not again while the very same score is queued or running."""
    if not ctx.config.score.enabled or not judged.had_map or job.pr is None:
        return
    if judged.verdict.verdict != Outcome.PASS_CLEAN:
        return
    scored = score_job(job, judged.parent, judged.head, judged.verdict.head)
    if not ctx.store.is_pending(scored):
        ctx.store.enqueue(delivery, [scored])


def superseded(store: Store, claimed: ClaimedJob) -> str | None:
    """Why this score is no longer wanted, or None: another score of the pull request was queued
    after it, or its last judgement is no longer ``pass_clean`` on this parent and head."""
    job = claimed.job
    if store.other_queued_after(claimed.id, job):
        return "a newer score of this pull request is queued"
    last = store.last_verdict(job.repo, job.pr or 0)
    if last is None or tuple(last) != (job.base, job.head, Outcome.PASS_CLEAN.value):
        return "the pull request was judged again since (a new head, parent or verdict)"
    return None


def external_id(job: Job) -> str:
    """From the job, never random: the same (repository, pull request, parent, head) finds its run."""
    return posting.external_id(job.repo, job.pr, f"{SCORE}:{job.base}", job.head or "")


# -- the worker's side -----------------------------------------------------------------------------


def run_score_job(ctx: Context, claimed: ClaimedJob) -> JobOutcome:
    """The check in progress, the sandboxed run, the check completed; superseded (nothing posted)
    when the pull request moved on before or while it ran."""
    job = claimed.job
    merge = _merge_of(job)
    if merge is None or job.pr is None or job.head is None or job.base is None:
        return JobOutcome(FAILED, "a score job needs its pull request, head, parent and test merge")
    if not ctx.config.score.enabled:
        return JobOutcome(DONE, "scoring is off (ORACLE_GATE_SCORE_SANDBOX)")
    github, token = github_for(ctx, job)
    pull = github.pulls.pull_request(job.pr)
    why = _moved(pull.head_sha, job) or superseded(ctx.store, claimed)
    if why is not None:
        return JobOutcome(SUPERSEDED, why)
    target = _target(ctx, job, pull.base_ref, job.head)
    github.checks.start(progress_content(ctx.config.score.limits), target)
    try:
        score, annotations = _score(ctx, claimed, token, merge)
    except box.Stopped as exc:
        if ctx.stopping.is_set():
            raise Transient("the server is stopping; the score runs again on its next start") from exc
        return _cancelled(github.checks, target, superseded(ctx.store, claimed) or "stopped")
    why = _moved(github.pulls.pull_request(job.pr).head_sha, job) or superseded(ctx.store, claimed)
    if why is not None:  # never a score for a head the pull request no longer has
        return _cancelled(github.checks, target, why)
    github.checks.complete(score_content(score, job.base, merge, annotations), target)
    return JobOutcome(DONE, f"score {score.score.value} on {job.head} (parent {job.base})")


def _target(ctx: Context, job: Job, base_ref: str, head: str) -> CheckTarget:
    """The score's own check on ``head``: the verdict check's name for the base, with :data:`SUFFIX`."""
    return CheckTarget(head, check_name(ctx, job, base_ref) + SUFFIX, external_id(job))


def _cancelled(checks: Checks, target: CheckTarget, why: str) -> JobOutcome:
    """A score stopped after its check was posted in progress: the check is completed ``cancelled``
    saying why (never left spinning on the old head, never a score), and the job is superseded."""
    checks.complete(cancelled_content(why), target)
    return JobOutcome(SUPERSEDED, why)


def give_up(ctx: Context, claimed: ClaimedJob, why: str) -> None:
    """A score job that kept crashing the server (oracle_gate.bot.queue.recovery): its own check completed
    ``unscored`` saying why (never the verdict's check), unless the pull request moved on."""
    job = claimed.job
    if job.pr is None or job.head is None:
        return
    github, _ = github_for(ctx, job)
    pull = github.pulls.pull_request(job.pr)
    if _moved(pull.head_sha, job) is not None:
        return
    merge = _merge_of(job) or job.head
    target = _target(ctx, job, pull.base_ref, job.head)
    github.checks.complete(score_content(incomplete(why), job.base or "", merge), target)


def _merge_of(job: Job) -> str | None:
    try:
        merge = json.loads(job.payload or "")["merge"]
    except (ValueError, TypeError, KeyError):
        return None
    return merge if isinstance(merge, str) else None


def _moved(head_now: str, job: Job) -> str | None:
    return None if head_now == job.head else f"the pull request's head is now {head_now}, not {job.head}"


def _score(ctx: Context, claimed: ClaimedJob, token: str, merge: str) -> tuple[Score, list[dict[str, Any]]]:
    """The score to post: the bot's own diff verdict first (its facts, TRUST.md 13), then the
    sandbox's report checked against them. Any failure to score is ``unscored``, never a pass.
    With it, the annotations on the lines no live test checks (SCORING.md 2.4)."""
    job, settings = claimed.job, ctx.config.score
    parent = job.base or ""
    try:
        git = mirror.open_mirror(ctx.config.mirrors, job.repo)
        found = ctx.maps.find(job.repo, parent, token)
        if found.manifest is None:
            return incomplete(f"the parent's map is not available ({found.why})"), []
        facts = Facts(repo=git.repo, parent=parent, merge=merge, parent_map=ParentMap(found.manifest))
        limits = (ctx.config.job_memory_mb * bounded.MIB, ctx.config.job_seconds)
        verdict = bounded.judge(facts, *limits)  # the judge job's judgement
        if verdict.verdict != Outcome.PASS_CLEAN:
            return _not_scorable(verdict), []
        doc = box.score_in_sandbox(
            git.repo,
            parent,
            merge,
            found.manifest,
            state_dir=ctx.config.state_dir,
            hidden=settings.hidden,
            limits=settings.limits,
            stop=_stopper(ctx, claimed),
        )
    except GateError as exc:
        return incomplete(f"the scoring run could not run: {exc}"), []
    if "schema" not in doc:  # the sandbox's stand-in: a limit, a crash; it can only say unscored
        return incomplete(_stand_in_detail(doc)), []
    score = verify_document(doc, git.repo, verdict, found.manifest).score
    return score, report_annotations(doc, score, MAX_ANNOTATIONS_PER_RUN)


def _not_scorable(verdict: Verdict) -> Score:
    """The verdict the bot computes for the sandbox's inputs is not ``pass_clean`` (it was when judged:
    approvals the scoring run does not read, or the parent's map replaced meanwhile): never a pass."""
    codes = ", ".join(dict.fromkeys(r.code.value for r in verdict.reasons)) or "no reason"
    return incomplete(
        f"the diff verdict for the scoring run's inputs (no approvals) is {verdict.verdict.value} ({codes})"
    )


def _stand_in_detail(doc: dict[str, Any]) -> str:
    reasons = doc.get("reasons")
    first = reasons[0] if isinstance(reasons, list) and reasons and isinstance(reasons[0], dict) else {}
    return str(first.get("detail") or "the scoring run reported nothing")[:500]


def _stopper(ctx: Context, claimed: ClaimedJob) -> Callable[[], bool]:
    def stop() -> bool:
        return ctx.stopping.is_set() or superseded(ctx.store, claimed) is not None

    return stop


# -- what the check says ---------------------------------------------------------------------------


def progress_content(limits: box.Limits) -> CheckContent:
    title = "scoring: running head's tests in the sandbox"
    summary = (
        "The diff verdict is `pass_clean`, so Oracle Gate is running the test merge's tests twice in a "
        "sandbox on its own machine and comparing them with the parent's, test by test "
        f"(at most {int(limits.wall_seconds)} s). This check completes with the score."
    )
    return outcome_check(Outcome.UNSCORED, title, summary)


def cancelled_content(why: str) -> CheckContent:
    """The check of a score that was stopped before it finished: GitHub's ``cancelled``, which no
    branch protection reads as passing; the commit status fallback stays the unscored one."""
    summary = (
        f"This score was stopped before it finished: {why}. Nothing was scored for this commit; "
        "the pull request's current head is scored on its own check."
    )
    content = outcome_check(Outcome.UNSCORED, "score: not scored (superseded)", summary)
    return dataclasses.replace(content, conclusion="cancelled")


def score_content(
    score: Score, parent: str, merge: str, annotations: list[dict[str, Any]] | None = None
) -> CheckContent:
    """The score's check: the conclusion as ``score-verify``'s is mapped (``CONCLUSIONS``), the
    report as ``oracle-gate score --format markdown`` renders it, and a warning on each line no
    live test checks (diff mutation's survivors)."""
    codes = ", ".join(score.codes)
    title = f"score: {score.score.value}" + (f" ({codes})" if codes else "")
    content = outcome_check(score.score, title, to_markdown(score, parent, merge))
    return dataclasses.replace(content, annotations=list(annotations or []))
