"""The Action's run: event -> plan -> one job -> exit status.

Everything is passed in (:func:`run`): the typed config, the :class:`~oracle_gate.git.Git` of the
workspace, the :class:`~oracle_gate.github.publisher.Publisher` and the map builder. Nothing here reads the
environment or builds a client; ``entrypoint.py`` does that once.

The event, parsed once (:mod:`oracle_gate.review.events`), gives the plan
(:mod:`oracle_gate.action.events`) that picks the job: :func:`judge` a pull request (its test
merge against its first parent, :mod:`oracle_gate.action.judging`, handed out by
:mod:`oracle_gate.action.outcome`), answer a bot command (:mod:`oracle_gate.action.commands`), or do nothing.

Exit status: 0 the verdict is not in ``fail-on`` (or nothing to do), 1 it is, 3 the gate could
not run (then a ``failure`` check says why, so a required check never hangs pending). Publishing
never changes the verdict nor the exit status.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from oracle_gate.action.commands import answer
from oracle_gate.action.config import ActionConfig
from oracle_gate.action.context import Context, MapBuilder, RunState
from oracle_gate.action.events import Command, Ignore, Judge, MergeGroup, Plan, PullRequestRef, plan_for
from oracle_gate.action.judging import judge_pull_request
from oracle_gate.action.merge_commit import HeadUnknown, head_sha_of
from oracle_gate.action.merge_queue import judge_merge_group
from oracle_gate.action.outcome import cannot_run, nothing_to_do, publish_verdict
from oracle_gate.action.workflow_io import Log, read_event
from oracle_gate.errors import GateError
from oracle_gate.exit_status import ExitStatus
from oracle_gate.git import Git
from oracle_gate.github.publisher import Publisher, PublishError
from oracle_gate.maps.build import build_map
from oracle_gate.review.bases import allowed_bases, check_name_for_base
from oracle_gate.review.events import EventError, Ignored, parse_event

EXIT_CANNOT_RUN = ExitStatus.CANNOT_RUN

__all__ = ["EXIT_CANNOT_RUN", "MapBuilder", "RunState", "run"]


def run(
    config: ActionConfig,
    git: Git,
    publisher: Publisher,
    *,
    map_builder: MapBuilder = build_map,
    out: TextIO = sys.stdout,
    state: RunState | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Run the Action once; returns the exit status (0, 1 or 3). ``state`` tells the caller what was
    learned (the head SHA, whether a check was posted) if this raises."""
    log = Log(out, (config.token,))
    ctx = Context(config, git, publisher, log, map_builder, sleep, state if state is not None else RunState())
    try:
        payload = read_event(config.event_path)  # the one read of the event file
        event = parse_event(config.event_name, payload, str(config.event_path))  # and its one parse
    except EventError as exc:
        return cannot_run(ctx, str(exc))
    if not isinstance(event, Ignored):
        ctx.default_branch = event.origin.default_branch
    return follow(ctx, plan_for(event, config.check_name))


def follow(ctx: Context, plan: Plan) -> ExitStatus:
    """Do what the plan says."""
    match plan:
        case Ignore(why=why):
            return nothing_to_do(ctx, why)
        case Command():
            then = answer(ctx, plan)
            return follow(ctx, then) if isinstance(then, Judge) else then
        case Judge(pr=pr, use_event_sha=use_event_sha):
            return judge(ctx, pr, use_event_sha=use_event_sha)
        case MergeGroup():
            return judge_merge_group(ctx, plan)


def name_the_check_for_its_base(ctx: Context, pr: PullRequestRef) -> None:
    """Post the required check's name only for an allowed base (:mod:`oracle_gate.review.bases`)."""
    base = pr.base_ref or ctx.publisher.pull_request(pr.number).base_ref
    allowed = allowed_bases(ctx.config.allowed_bases, ctx.default_branch)
    name = check_name_for_base(ctx.config.check_name, base, allowed)
    if name != ctx.config.check_name:
        ctx.log.notice(
            f"Oracle Gate: base {base!r} is not an allowed base ({', '.join(allowed) or 'none known'}): "
            f"the verdict is posted as {name!r}, not as the required check {ctx.config.check_name!r}"
        )
    ctx.publisher.check_name = name


def judge(ctx: Context, pr: PullRequestRef, *, use_event_sha: bool) -> ExitStatus:
    """Compute the verdict for the pull request and publish it (``pull_request*``, ``check_run``,
    ``/oracle-gate rerun``)."""
    try:
        head_sha = head_sha_of(pr, ctx.publisher)
    except HeadUnknown as exc:
        return cannot_run(ctx, str(exc))
    ctx.state.head_sha = head_sha
    try:
        name_the_check_for_its_base(ctx, pr)
    except PublishError as exc:
        return cannot_run(ctx, f"cannot learn the base branch of pull request #{pr.number}: {exc}")
    try:
        verdict = judge_pull_request(ctx, pr, head_sha, use_event_sha=use_event_sha)
    except GateError as exc:
        return cannot_run(ctx, str(exc), head_sha=head_sha)
    return publish_verdict(ctx, verdict, pr.number, head_sha)
