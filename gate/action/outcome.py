"""How a run ends: the judgement handed out (:func:`hand_out`): the verdict (``verdict.json``, check
run and comment through :func:`oracle_gate.judgement.sequence.post`, outputs, job summary, exit
status), or, without one, why, with a ``failure`` check so a required check never hangs pending.

Publishing never changes the verdict nor the exit status.
"""

from __future__ import annotations

from oracle_gate.action.context import Context
from oracle_gate.action.workflow_io import ERROR_VERDICT, exit_status, verdict_outputs
from oracle_gate.exit_status import ExitStatus
from oracle_gate.files import write_atomically
from oracle_gate.github import content
from oracle_gate.github.client import PublishError
from oracle_gate.github.values import CheckResult, CheckTarget, NotPosted, PublishResult
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judgement import sequence
from oracle_gate.judgement.ports import Judged, Judgement, NotJudged
from oracle_gate.judgement.sequence import Door

VERDICT_FILE = "verdict.json"


def hand_out(ctx: Context, door: Door, judgement: Judgement) -> ExitStatus:
    """A verdict published; no verdict, a failure check saying why; superseded, nothing to do."""
    if isinstance(judgement, Judged):
        return publish_verdict(ctx, door, judgement)
    if isinstance(judgement, NotJudged):
        return not_judged(ctx, door, judgement)
    return nothing_to_do(ctx, f"{judgement.why}; the newer head's own event judges it")


def publish_verdict(ctx: Context, door: Door, judged: Judged) -> ExitStatus:
    """Write and post the verdict everywhere (no comment for a merge group); the exit status says
    whether it is one of ``fail-on``."""
    config, verdict = ctx.config, judged.verdict
    rel = write_verdict_json(ctx, verdict)
    ctx.log.untrusted(content.log_text(verdict))
    result = sequence.post(door, judged)
    if result is None:  # pragma: no cover - post always posts a Judged
        raise AssertionError("a verdict was not posted")
    ctx.state.check_posted = result.check.posted
    log_publication(ctx, result)
    ctx.write_outputs(
        verdict_outputs(
            verdict,
            verdict_json=rel,
            check_run_id=result.check.check_run_id,
            comment_id=result.comment.comment_id,
        )
    )
    ctx.write_summary(
        content.verdict_summary(verdict, result, check_name=judged.check_name, mode=config.comment)
    )
    status = exit_status(verdict.verdict, config.fail_on)
    fails = "is" if status else "is not"
    ctx.log.line(f"oracle-gate: verdict {verdict.verdict} {fails} in fail-on: exit status {status:d}")
    return status


def not_judged(ctx: Context, door: Door, judgement: NotJudged) -> ExitStatus:
    """No verdict: the sequence's ``failure`` check on the head (when known), and why everywhere."""
    ctx.log.error(f"Oracle Gate could not run: {judgement.why}")
    result = sequence.post(door, judgement)
    check = None if result is None or not result.check.posted else result.check
    failure = None if result is None or not result.check.not_posted else result.check.not_posted[0]
    if check is not None:
        ctx.state.check_posted = True
    if failure is not None:
        ctx.log.warning(f"Oracle Gate: the failure check was not posted either: {failure.why}")
    return ended_without_verdict(ctx, judgement.why, check, failure, head_known=judgement.head is not None)


def log_publication(ctx: Context, result: PublishResult) -> None:
    for missing in result.not_posted:
        ctx.log.warning(f"Oracle Gate: {missing.what} not posted: {missing.why}")
    if content.nothing_posted_for_permission(result):
        ctx.log.warning(content.FORK_SAFE_HINT)


def cannot_run(ctx: Context, why: str, *, head_sha: str | None = None) -> ExitStatus:
    """No verdict: say why everywhere, and post a ``failure`` check so a required check does not
    hang pending."""
    ctx.log.error(f"Oracle Gate could not run: {why}")
    check: CheckResult | None = None
    failure: NotPosted | None = None
    if head_sha is not None:
        try:
            target = CheckTarget(head_sha, ctx.config.check_name, details_url=ctx.config.run_url)
            check = ctx.github.checks.publish(content.error_check(why), target)
            ctx.state.check_posted = check.posted
        except PublishError as exc:
            failure = NotPosted("failure check", str(exc))
            ctx.log.warning(f"Oracle Gate: the failure check was not posted either: {exc}")
    return ended_without_verdict(ctx, why, check, failure, head_known=head_sha is not None)


def ended_without_verdict(
    ctx: Context, why: str, check: CheckResult | None, failure: NotPosted | None, *, head_known: bool
) -> ExitStatus:
    """The outputs and the job summary of a run that made no verdict (exit status 3)."""
    check_run_id = "" if check is None or check.check_run_id is None else str(check.check_run_id)
    ctx.write_outputs({**verdict_outputs(None), "verdict": ERROR_VERDICT, "check-run-id": check_run_id})
    ctx.write_summary(
        content.error_summary(
            why,
            check=check,
            failure=failure,
            check_name=ctx.config.check_name,
            head_known=head_known,
        )
    )
    return ExitStatus.CANNOT_RUN


def nothing_to_do(ctx: Context, why: str) -> ExitStatus:
    ctx.log.notice(f"Oracle Gate has nothing to do: {why}")
    ctx.write_outputs(verdict_outputs(None))
    return ExitStatus.OK


def write_verdict_json(ctx: Context, verdict: Verdict) -> str:
    """``verdict.json`` (exactly the contract's JSON) at the workspace root; returns its relative path."""
    path = ctx.config.workspace / VERDICT_FILE
    if path.is_symlink():  # the checkout may be the pull request's: never write through its links
        path.unlink()
    write_atomically(path, content.verdict_json(verdict))
    return VERDICT_FILE
