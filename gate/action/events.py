"""What an event asks the Action to do: the one typed event of :mod:`oracle_gate.review.events` in,
a typed plan out. Pure.

A plan is one of four values: :class:`Judge` (compute the verdict and publish it), :class:`MergeGroup`
(judge a merge queue's merge commit), :class:`Command` (a ``/oracle-gate`` bot command in a comment)
or :class:`Ignore` (nothing to do, and why). Reading the payload, and refusing one that lacks what
its event carries, is :func:`oracle_gate.review.events.parse_event`'s (the bot's too).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias

from oracle_gate.review import events as ev


@dataclass(frozen=True)
class PullRequestRef:
    number: int
    head_sha: str | None  # the PR's head commit: where the check run goes (None: ask the API)
    from_fork: bool = False
    base_ref: str | None = None  # the base branch (None: ask the API)
    base_changed_at: datetime | None = None  # v3.9.1: this event changed the base, then

    @property
    def merge_ref(self) -> str:
        return f"refs/pull/{self.number}/merge"


@dataclass(frozen=True)
class Judge:
    """Evaluate the pull request and publish the verdict."""

    pr: PullRequestRef
    use_event_sha: bool = False  # pull_request: GITHUB_SHA is the test-merge commit itself


@dataclass(frozen=True)
class Command:
    """``/oracle-gate rerun|explain`` in comment ``comment_id`` by ``user`` on the pull request."""

    pr: PullRequestRef
    name: str  # rerun | explain
    comment_id: int
    user: str


@dataclass(frozen=True)
class MergeGroup:
    """``merge_group`` ``checks_requested``: judge the queue's merge commit ``head_sha`` against the
    queue's base ``base_sha`` and post the check on ``head_sha`` (TRUST.md invariant 6)."""

    head_sha: str
    base_sha: str
    head_ref: str  # refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>: where the merge commit is fetched
    base_ref: str  # refs/heads/<base>


@dataclass(frozen=True)
class Ignore:
    """Nothing to do, and why."""

    why: str


Plan: TypeAlias = Judge | Command | MergeGroup | Ignore


def plan_for(event: ev.Event, check_name: str) -> Plan:
    """What the parsed ``event`` asks the Action to do; ``check_name``: the check this run posts."""
    plan: Plan
    match event:
        case ev.PullRequestChanged():
            ref = PullRequestRef(
                event.number, event.head_sha, event.from_fork, event.base_ref, event.base_changed_at
            )
            # Only under pull_request is GITHUB_SHA the test merge itself.
            plan = Judge(ref, use_event_sha=event.origin.event == "pull_request")
        case ev.CommandGiven():
            plan = Command(
                PullRequestRef(event.number, None), event.command.value, event.comment_id, event.user
            )
        case ev.ChecksRerequested(holder="check_run"):
            plan = _check_run(event, check_name)
        case ev.MergeGroupQueued():
            plan = MergeGroup(event.head_sha, event.base_sha, event.head_ref, event.base_ref)
        case ev.ReviewRelayed():
            # v3.5: the review's own run is the pull request's workflow file, so nothing it produced is
            # read: the pull request is judged at the head the API gives, approvals re-read there.
            first = event.pulls[0]
            plan = Judge(PullRequestRef(first.number, None, base_ref=first.base_ref))
        case ev.MapRunSucceeded():
            plan = Ignore("only a completed pull_request_review run asks for a new judgement")
        case ev.Ignored(why=why):
            plan = Ignore(why)
        case (
            ev.ChecksRerequested()
            | ev.ReviewChanged()
            | ev.BaseMoved()
            | ev.InstallationChanged()
            | ev.AccessChanged()
        ):
            plan = Ignore(
                f"event '{event.origin.event}' is not one the Action handles (pull_request, "
                "pull_request_target, merge_group, issue_comment, check_run, workflow_run)"
            )
    return plan


def _check_run(event: ev.ChecksRerequested, check_name: str) -> Plan:
    """Our check run re-requested: judge again the (first) pull request it names."""
    if event.check_name != check_name:
        return Ignore(f"check run {event.check_name!r} is not {check_name!r}")
    first = event.pulls[0]
    return Judge(PullRequestRef(first.number, event.head_sha, base_ref=first.base_ref))
