"""Bot commands in pull request comments: ``/oracle-gate rerun`` and ``/oracle-gate explain``.

Only people who may write to the repository may command; the command's comment gets a reaction
saying whether it was accepted. ``rerun`` is answered by judging the pull request again (the run
does that: :func:`answer` hands back the :class:`~oracle_gate.action.events.Judge` plan); ``explain``
replies with every reason and the full overlap listing, and posts no check run.
"""

from __future__ import annotations

from oracle_gate.action.context import Context
from oracle_gate.action.events import Command, Judge, PullRequestRef
from oracle_gate.action.judging import judge_pull_request
from oracle_gate.action.merge_commit import HeadUnknown, head_sha_of
from oracle_gate.action.outcome import cannot_run, write_verdict_json
from oracle_gate.action.workflow_io import verdict_outputs
from oracle_gate.errors import GateError
from oracle_gate.exit_status import ExitStatus
from oracle_gate.github import content
from oracle_gate.github.publisher import PublishError
from oracle_gate.review.commands import may_command, reaction_for, refusal


def answer(ctx: Context, cmd: Command) -> ExitStatus | Judge:
    """Check who commands and react; ``rerun`` comes back as the plan to judge the pull request."""
    try:
        permission = ctx.publisher.permission_of(cmd.user)
    except PublishError as exc:
        return cannot_run(
            ctx, f"cannot check the permission of {cmd.user} for /oracle-gate {cmd.name}: {exc}"
        )
    permitted = may_command(permission)
    react(ctx, cmd, reaction_for(permitted))
    if not permitted:
        ctx.log.notice(refusal(cmd.user, cmd.name, permission))
        ctx.write_outputs(verdict_outputs(None))
        return ExitStatus.OK
    ctx.log.line(f"oracle-gate: /oracle-gate {cmd.name} by {cmd.user} ({permission}) on #{cmd.pr.number}")
    if cmd.name == "rerun":
        return Judge(cmd.pr, use_event_sha=False)
    return explain(ctx, cmd.pr)


def react(ctx: Context, cmd: Command, reaction: str) -> None:
    try:
        ctx.publisher.react(cmd.pr.number, cmd.comment_id, reaction)
    except PublishError as exc:
        ctx.log.warning(f"Oracle Gate: reaction not posted: {exc}")


def explain(ctx: Context, pr: PullRequestRef) -> ExitStatus:
    """Compute the verdict and reply with every reason and the full overlap listing (no check run:
    that is what ``rerun`` is for). Exits 0 once answered, whatever the verdict."""
    try:
        head_sha = head_sha_of(pr, ctx.publisher)
    except HeadUnknown as exc:
        return cannot_run(ctx, str(exc))
    ctx.state.head_sha = head_sha
    try:
        verdict = judge_pull_request(ctx, pr, head_sha, use_event_sha=False)
    except GateError as exc:
        reply(ctx, pr.number, content.not_computed_reply(exc))
        return cannot_run(ctx, str(exc))
    rel = write_verdict_json(ctx, verdict)
    body, truncated = content.explain_reply(verdict)
    comment_id = reply(ctx, pr.number, body)
    ctx.log.untrusted(content.log_text(verdict))
    ctx.write_outputs(verdict_outputs(verdict, verdict_json=rel, comment_id=comment_id))
    ctx.write_summary(
        content.explain_summary(verdict, pr.number, replied=comment_id is not None, truncated=truncated)
    )
    return ExitStatus.OK


def reply(ctx: Context, issue_number: int, body: str) -> int | None:
    try:
        return ctx.publisher.reply(issue_number, content.reply_text(body))
    except PublishError as exc:
        ctx.log.warning(f"Oracle Gate: reply not posted: {exc}")
        return None
