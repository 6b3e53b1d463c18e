"""How a run ends: the verdict handed out (``verdict.json``, check run, comment, outputs, job summary,
exit status), or, without one, why, with a ``failure`` check so a required check never hangs pending.

Publishing never changes the verdict nor the exit status.
"""

from __future__ import annotations

from oracle_gate.action.context import Context
from oracle_gate.action.workflow_io import ERROR_VERDICT, exit_status, verdict_outputs
from oracle_gate.exit_status import ExitStatus
from oracle_gate.files import write_atomically
from oracle_gate.github import content
from oracle_gate.github.publisher import CheckResult, NotPosted, PublishError, PublishResult
from oracle_gate.judge.verdict import Verdict

VERDICT_FILE = "verdict.json"


def publish_verdict(ctx: Context, verdict: Verdict, pr_number: int | None, head_sha: str) -> ExitStatus:
    """Write and post the verdict everywhere (no comment without ``pr_number``: a merge group); the exit
    status says whether it is one of ``fail-on``."""
    config = ctx.config
    rel = write_verdict_json(ctx, verdict)
    ctx.log.untrusted(content.log_text(verdict))
    result = ctx.publisher.publish(
        content.check_content(verdict, config.max_annotations),
        head_sha=head_sha,
        pr_number=pr_number,
        comment=content.sticky_comment(verdict, config.comment),
    )
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
        content.verdict_summary(verdict, result, check_name=ctx.publisher.check_name, mode=config.comment)
    )
    status = exit_status(verdict.verdict, config.fail_on)
    fails = "is" if status else "is not"
    ctx.log.line(f"oracle-gate: verdict {verdict.verdict} {fails} in fail-on: exit status {status:d}")
    return status


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
            check = ctx.publisher.publish_check(content.error_check(why), head_sha)
            ctx.state.check_posted = check.posted
        except PublishError as exc:
            failure = NotPosted("failure check", str(exc))
            ctx.log.warning(f"Oracle Gate: the failure check was not posted either: {exc}")
    check_run_id = "" if check is None or check.check_run_id is None else str(check.check_run_id)
    ctx.write_outputs({**verdict_outputs(None), "verdict": ERROR_VERDICT, "check-run-id": check_run_id})
    ctx.write_summary(
        content.error_summary(
            why,
            check=check,
            failure=failure,
            check_name=ctx.config.check_name,
            head_known=head_sha is not None,
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
