"""What a workflow event asks the Action to do. Pure: payload in, a typed plan out.

A plan is one of four values: :class:`Judge` (compute the verdict and publish it), :class:`MergeGroup`
(judge a merge queue's merge commit), :class:`Command`
(a ``/oracle-gate`` bot command in a comment) or :class:`Ignore` (nothing to do, and why). A payload
that is not JSON, or lacks what its event carries, raises :class:`EventError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeAlias

from oracle_gate.errors import GateError
from oracle_gate.review.commands import parse_command

PR_EVENTS = ("pull_request", "pull_request_target")
SKIPPED_PR_ACTIONS = (
    "closed",
    "assigned",
    "unassigned",
    "review_requested",
    "review_request_removed",
    "locked",
    "unlocked",
    "milestoned",
    "demilestoned",
)


class EventError(GateError):
    """The event payload cannot be read or lacks what the event must carry."""


@dataclass(frozen=True)
class PullRequestRef:
    number: int
    head_sha: str | None  # the PR's head commit: where the check run goes (None: ask the API)
    from_fork: bool = False
    base_ref: str | None = None  # the base branch (None: ask the API)

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


def parse_payload(data: bytes, source: str) -> dict[str, Any]:
    """The event payload (a JSON object) from the bytes of the file ``source`` names."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventError(f"the event payload {source} is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise EventError(f"the event payload {source} is not a JSON object")
    return payload


def plan_for(event_name: str, payload: dict[str, Any], check_name: str) -> Plan:
    """What ``event_name`` with ``payload`` asks for; :class:`EventError` when the payload lacks a field
    its event must carry."""
    try:
        return _plan(event_name, payload, check_name)
    except (KeyError, TypeError, ValueError) as exc:
        raise EventError(f"the {event_name} payload lacks what the event carries ({exc!r})") from exc


def _plan(event_name: str, payload: dict[str, Any], check_name: str) -> Plan:
    if event_name in PR_EVENTS:
        return _pull_request(event_name, payload)
    if event_name == "issue_comment":
        return _issue_comment(payload)
    if event_name == "check_run":
        return _check_run(payload, check_name)
    if event_name == "merge_group":
        return _merge_group(payload)
    if event_name == "workflow_run":
        return _review_run(payload)
    return Ignore(
        f"event '{event_name}' is not one oracle-gate handles "
        "(pull_request, pull_request_target, merge_group, issue_comment, check_run, workflow_run)"
    )


def _review_run(payload: dict[str, Any]) -> Plan:
    """v3.5: a completed ``pull_request_review`` run (the pull request's own workflow file, so
    nothing it produced is read) re-judges the pull request GitHub names, at its head as the API
    says, with approvals re-read from the API."""
    run = payload.get("workflow_run") or {}
    if payload.get("action") != "completed" or run.get("event") != "pull_request_review":
        return Ignore("only a completed pull_request_review run asks for a new judgement")
    prs = run.get("pull_requests") or []
    if not prs:
        return Ignore(
            "the review run names no pull request (GitHub leaves this empty for pull requests "
            "from forks: re-run the check there, or use the bot)"
        )
    base_ref = _text((prs[0].get("base") or {}).get("ref"))
    return Judge(PullRequestRef(int(prs[0]["number"]), None, base_ref=base_ref))


def _merge_group(payload: dict[str, Any]) -> Plan:
    if payload.get("action") != "checks_requested":
        return Ignore(f"merge_group {payload.get('action')}: only 'checks_requested' asks for checks")
    group = payload["merge_group"]
    fields = [group["head_sha"], group["base_sha"], group["head_ref"], group["base_ref"]]
    if not all(isinstance(value, str) and value for value in fields):
        raise ValueError("merge_group needs head_sha, base_sha, head_ref and base_ref")
    return MergeGroup(*fields)


def _pull_request(event_name: str, payload: dict[str, Any]) -> Plan:
    pr = payload.get("pull_request") or {}
    action = payload.get("action", "")
    if action in SKIPPED_PR_ACTIONS:
        return Ignore(f"pull request {action}: nothing to judge")
    base_repo = ((pr.get("base") or {}).get("repo") or {}).get("full_name")
    head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
    ref = PullRequestRef(
        number=int(pr["number"]),
        head_sha=(pr.get("head") or {}).get("sha"),
        from_fork=bool(head_repo and base_repo and head_repo != base_repo),
        base_ref=_text((pr.get("base") or {}).get("ref")),
    )
    return Judge(ref, use_event_sha=event_name == "pull_request")


def _issue_comment(payload: dict[str, Any]) -> Plan:
    issue = payload.get("issue") or {}
    comment = payload.get("comment") or {}
    if payload.get("action") != "created":
        return Ignore("only new comments carry commands")
    if not issue.get("pull_request"):
        return Ignore("the comment is on an issue, not a pull request")
    body = comment.get("body")
    command = parse_command(body) if isinstance(body, str) else None
    if command is None:
        return Ignore("the comment holds no /oracle-gate command")
    user = (comment.get("user") or {}).get("login", "")
    if (comment.get("user") or {}).get("type") == "Bot":
        return Ignore("commands from bots are ignored")
    pr = PullRequestRef(int(issue["number"]), None)
    return Command(pr, command.value, int(comment["id"]), user)


def _check_run(payload: dict[str, Any], check_name: str) -> Plan:
    run = payload.get("check_run") or {}
    if payload.get("action") != "rerequested":
        return Ignore(f"check_run {payload.get('action')}: only 'rerequested' re-runs the gate")
    if run.get("name") != check_name:
        return Ignore(f"check run {run.get('name')!r} is not {check_name!r}")
    prs = run.get("pull_requests") or []
    if not prs:
        return Ignore(
            "the re-requested check run names no pull request "
            "(GitHub leaves this empty for pull requests from forks)"
        )
    base_ref = _text((prs[0].get("base") or {}).get("ref"))
    return Judge(PullRequestRef(int(prs[0]["number"]), run.get("head_sha"), base_ref=base_ref))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
