"""Bot commands in pull request comments: ``/oracle-gate rerun`` and ``/oracle-gate explain``.

Who may command, and the reaction saying whether the command was accepted, is the judgement's
(:func:`oracle_gate.judgement.sequence.answer`, the bot's too). ``rerun`` is answered by judging the
pull request again (the run does that: :func:`answer` hands back the
:class:`~oracle_gate.action.events.Judge` plan); ``explain`` replies with every reason and the full
overlap listing (:func:`oracle_gate.judgement.sequence.explain`), and posts no check run.
"""

from __future__ import annotations

from oracle_gate.action.context import Context
from oracle_gate.action.door import action_door
from oracle_gate.action.events import Command, Judge, PullRequestRef
from oracle_gate.action.outcome import cannot_run, write_verdict_json
from oracle_gate.action.workflow_io import verdict_outputs
from oracle_gate.exit_status import ExitStatus
from oracle_gate.github import content
from oracle_gate.judgement import sequence
from oracle_gate.judgement.ports import Judged, NotJudged, PullRequestAsked
from oracle_gate.judgement.sequence import Answer
from oracle_gate.review.commands import Command as CommandName


def answer(ctx: Context, cmd: Command) -> ExitStatus | Judge:
    """Check who commands and react; ``rerun`` comes back as the plan to judge the pull request."""
    with action_door(ctx) as door:
        answered = sequence.answer(
            door, CommandName(cmd.name), user=cmd.user, pr_number=cmd.pr.number, comment_id=cmd.comment_id
        )
    if answered.answer == Answer.UNKNOWN:
        return cannot_run(ctx, answered.said)
    if answered.answer == Answer.REFUSED:
        ctx.log.notice(answered.said)
        ctx.write_outputs(verdict_outputs(None))
        return ExitStatus.OK
    ctx.log.line(f"oracle-gate: {answered.said}")
    if answered.answer == Answer.RERUN:
        return Judge(cmd.pr, use_event_sha=False)
    return explain(ctx, cmd.pr)


def explain(ctx: Context, pr: PullRequestRef) -> ExitStatus:
    """Compute the verdict and reply with every reason and the full overlap listing (no check run:
    that is what ``rerun`` is for). Exits 0 once answered, whatever the verdict."""
    asked = PullRequestAsked(pr.number, pr.head_sha, pr.base_ref, pr.base_changed_at)
    with action_door(ctx, event_base=pr.base_ref) as door:
        judgement = sequence.judge(door, asked)
        explained = sequence.explain(door, judgement, pr.number)
    if isinstance(judgement, NotJudged):
        return cannot_run(ctx, judgement.why)
    if not isinstance(judgement, Judged) or explained is None:
        ctx.write_outputs(verdict_outputs(None))
        return ExitStatus.OK
    verdict = judgement.verdict
    rel = write_verdict_json(ctx, verdict)
    ctx.log.untrusted(content.log_text(verdict))
    ctx.write_outputs(verdict_outputs(verdict, verdict_json=rel, comment_id=explained.comment_id))
    ctx.write_summary(
        content.explain_summary(
            verdict, pr.number, replied=explained.comment_id is not None, truncated=explained.truncated
        )
    )
    return ExitStatus.OK
