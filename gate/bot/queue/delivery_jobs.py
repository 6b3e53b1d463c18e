"""Which jobs a delivery asks for: the one typed event of :mod:`oracle_gate.review.events` in,
:class:`Job` values out. Pure.

Nothing here trusts a payload's SHAs to decide a verdict: a pull request job is judged on what
``pulls/get`` says when it runs (a stale or replayed event cannot pin an old head), the payload's
head only orders and supersedes jobs.

A review asks for a judgement that waits (:attr:`Job.coalesce`, the ``review-interval-ms`` setting):
every review that comes meanwhile is taken by that one judgement, which reads the reviews once
(TRUST.md 8: a flood of reviews costs one read of them per interval, not one per review; see
:meth:`oracle_gate.bot.queue.store.Store.enqueue`).

A worker plans a stored delivery (:mod:`oracle_gate.bot.queue.planning`), never the server's event loop. A
command in a comment becomes a :data:`COMMAND` job under a key of its own (it supersedes nothing); the
worker checks the commenter's permission before the command has any effect.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any

from oracle_gate.github.defaults import APP_EVENTS
from oracle_gate.review import events as ev
from oracle_gate.review.commands import PREFIX
from oracle_gate.review.events import DEFAULT_MAP_WORKFLOW, Ignored

__all__ = ["DEFAULT_MAP_WORKFLOW", "Ignored"]

JUDGE, EXPLAIN, MAP_READY, DEFAULT_PUSH = "judge", "explain", "map_ready", "default_push"
COMMAND = "command"  # a pull request comment's command; explain: jobs stored before it
ACCESS = "access"  # someone's access changed: judge again the pull requests resting on approvals
#: The events the App subscribes to, and those it is told about without asking.
PLANNED_EVENTS = frozenset(APP_EVENTS) | {"ping", "installation", "installation_repositories"}


@dataclass(frozen=True)
class Job:
    """One unit of work; ``key`` serializes jobs (one pull request, one merge group, one repository)."""

    kind: str
    repo: str
    installation: int
    key: str
    pr: int | None = None
    head: str | None = None  # the head the event names (a merge group's SHA is judged as is)
    base: str | None = None  # a merge group's base SHA; a map's SHA for map_ready
    group_ref: str | None = None
    commenter: str | None = None
    comment_id: int | None = None
    comment: str | None = None  # a COMMAND job's command line, parsed again by the worker
    default_branch: str | None = None  # repository.default_branch: the allowed base by default
    base_ref: str | None = None  # a merge group's base branch (refs/heads/ stripped)
    event: str | None = None  # a plan job's event name (oracle_gate.bot.queue.planning)
    payload: str | None = None  # a plan job's delivery, its raw JSON text, planned by a worker
    #: a review's judgement: seconds it waits, taking the reviews that come meanwhile (None: at once)
    coalesce: float | None = None
    #: an access change's login (None: a team's, any member's); its repository is ``repo`` ("": any)
    approver: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Job:
        return cls(**json.loads(text))


def plan(
    name: str,
    payload: Any,
    *,
    map_workflow: str = DEFAULT_MAP_WORKFLOW,
    source: str = "the delivery",
    review_interval: float = 0.0,
) -> list[Job] | Ignored:
    """The jobs of one delivery, or why none; :class:`~oracle_gate.review.events.EventError` for a
    payload GitHub never sends."""
    return jobs_for(parsed(name, payload, source, map_workflow=map_workflow), review_interval=review_interval)


def parsed(name: str, payload: Any, source: str, *, map_workflow: str = DEFAULT_MAP_WORKFLOW) -> ev.Event:
    """The delivery's event (one the App does not subscribe to is ignored unread)."""
    if name not in PLANNED_EVENTS:
        return Ignored(f"event {name!r} is not one the bot handles")
    return ev.parse_event(name, payload, source, map_workflow=map_workflow)


def jobs_for(event: ev.Event, *, review_interval: float = 0.0) -> list[Job] | Ignored:
    """The jobs the parsed ``event`` asks for, or why none (a review's judgement waits
    ``review_interval`` seconds, coalescing the reviews that come meanwhile)."""
    found: list[Job] | Ignored
    match event:
        case ev.PullRequestChanged():
            found = [judge_pull(event.origin, event.number, event.head_sha)]
        case ev.ReviewChanged():  # approvals are read from the API, at whatever the head is then
            found = [replace(judge_pull(event.origin, event.number, None), coalesce=review_interval)]
        case ev.ChecksRerequested():
            found = [judge_pull(event.origin, pull.number, event.head_sha) for pull in event.pulls]
        case ev.MergeGroupQueued():
            found = [_merge_group(event)]
        case ev.CommandGiven():
            found = [_command(event)]
        case ev.MapRunSucceeded():
            found = [_repository_job(MAP_READY, event.origin, "!map", event.head_sha)]
        case ev.BaseMoved():
            found = [_repository_job(DEFAULT_PUSH, event.origin, "!push", event.after)]
        case ev.ReviewRelayed():
            found = Ignored("a review relay run is the Action's: the bot hears pull_request_review itself")
        case ev.InstallationChanged():
            found = Ignored(f"{event.origin.event}: nothing to judge")
        case ev.AccessChanged():
            found = _access(event)
        case ev.Ignored():
            found = event
    return found


def installation_change(event: ev.Event) -> tuple[int, str] | None:
    """(installation id, its state now) that an installation event tells; None for any other."""
    return (event.installation, event.state) if isinstance(event, ev.InstallationChanged) else None


def judge_pull(origin: ev.Origin, number: int, head: str | None) -> Job:
    repo, installation = origin.app_delivery()
    return Job(
        JUDGE,
        repo,
        installation,
        f"{repo}#{number}",
        pr=number,
        head=head,
        default_branch=origin.default_branch,
    )


def _repository_job(kind: str, origin: ev.Origin, suffix: str, sha: str) -> Job:
    """A job about the whole repository (a map arrived, the default branch moved)."""
    repo, installation = origin.app_delivery()
    return Job(kind, repo, installation, repo + suffix, base=sha, default_branch=origin.default_branch)


def _merge_group(event: ev.MergeGroupQueued) -> Job:
    repo, installation = event.origin.app_delivery()
    return Job(
        JUDGE,
        repo,
        installation,
        f"{repo}@{event.head_sha}",
        head=event.head_sha,
        base=event.base_sha,
        group_ref=event.head_ref,
        default_branch=event.origin.default_branch,
        base_ref=event.base_branch,
    )


def _access(event: ev.AccessChanged) -> list[Job] | Ignored:
    """One job per installation's access changes, in order: it finds the pull requests whose verdict
    rests on approvals (of ``approver``, in ``repo`` when the event names one) and judges them again
    (:mod:`oracle_gate.bot.jobs.approvers`)."""
    installation = event.origin.installation
    if installation is None:  # a repository's own webhook, not the App's: no token to judge with
        return Ignored(f"{event.origin.event}: not a delivery to the App (no installation)")
    job = Job(
        ACCESS,
        event.origin.repo or "",
        installation,
        f"!access/{installation}",
        approver=event.login,
        default_branch=event.origin.default_branch,
    )
    return [job]


def _command(event: ev.CommandGiven) -> Job:
    """The command, in its canonical form: the worker parses it again with the same grammar."""
    repo, installation = event.origin.app_delivery()
    return Job(
        COMMAND,
        repo,
        installation,
        f"{repo}#{event.number}/comment/{event.comment_id}",
        pr=event.number,
        commenter=event.user,
        comment_id=event.comment_id,
        comment=f"{PREFIX} {event.command.value}",
        default_branch=event.origin.default_branch,
    )
