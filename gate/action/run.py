"""The Action's run: event -> plan -> one job -> exit status.

Everything is passed in (:func:`run`): the typed config, the :class:`~oracle_gate.git.Git` of the
workspace, the repository on GitHub (:func:`oracle_gate.github.repository.connect`) and the map
builder. Nothing here reads the environment or builds a client; ``entrypoint.py`` does that once.

The event, parsed once (:mod:`oracle_gate.review.events`), gives the plan
(:mod:`oracle_gate.action.events`) that picks the job: :func:`judge` a pull request or a merge
group (the one judgement, :mod:`oracle_gate.judgement`, over the Action's ports,
:mod:`oracle_gate.action.door`; handed out by :mod:`oracle_gate.action.outcome`), answer a bot
command (:mod:`oracle_gate.action.commands`), or do nothing.

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
from oracle_gate.action.door import action_door
from oracle_gate.action.events import Command, Ignore, Judge, MergeGroup, Plan, PullRequestRef, plan_for
from oracle_gate.action.outcome import cannot_run, hand_out, nothing_to_do
from oracle_gate.action.workflow_io import Log, read_event
from oracle_gate.exit_status import ExitStatus
from oracle_gate.git import Git
from oracle_gate.github.repository import GitHubRepo
from oracle_gate.judgement import sequence
from oracle_gate.judgement.ports import MergeGroupAsked, PullRequestAsked
from oracle_gate.maps.build import build_map
from oracle_gate.review.events import EventError, Ignored, parse_event

EXIT_CANNOT_RUN = ExitStatus.CANNOT_RUN
BRANCH_PREFIX = "refs/heads/"

__all__ = ["EXIT_CANNOT_RUN", "MapBuilder", "RunState", "run"]


def run(
    config: ActionConfig,
    git: Git,
    github: GitHubRepo,
    *,
    map_builder: MapBuilder = build_map,
    out: TextIO = sys.stdout,
    state: RunState | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Run the Action once; returns the exit status (0, 1 or 3). ``state`` tells the caller what was
    learned (the head SHA, whether a check was posted) if this raises."""
    log = Log(out, (config.token,))
    ctx = Context(config, git, github, log, map_builder, sleep, state if state is not None else RunState())
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


def judge(ctx: Context, pr: PullRequestRef, *, use_event_sha: bool) -> ExitStatus:
    """Compute the verdict for the pull request and publish it (``pull_request*``, ``check_run``,
    ``/oracle-gate rerun``)."""
    asked = PullRequestAsked(pr.number, pr.head_sha, pr.base_ref, pr.base_changed_at)
    with action_door(ctx, use_event_sha=use_event_sha, event_base=pr.base_ref) as door:
        return hand_out(ctx, door, sequence.judge(door, asked))


def judge_merge_group(ctx: Context, group: MergeGroup) -> ExitStatus:
    """``merge_group``: the queue's merge commit against the queue's base (TRUST.md 6), the check on
    the merge commit the queue waits on; v3.9.2: with the approvals of each of its pull requests."""
    base = group.base_ref.removeprefix(BRANCH_PREFIX)
    asked = MergeGroupAsked(group.head_sha, group.head_ref, group.base_sha, base)
    with action_door(ctx) as door:
        return hand_out(ctx, door, sequence.judge(door, asked))
