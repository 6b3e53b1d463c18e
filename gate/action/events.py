"""What a workflow event asks the Action to do. Pure: payload in, plan out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

COMMAND = re.compile(r"\A\s*/oracle-gate\s+(rerun|explain)\b", re.IGNORECASE)
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


@dataclass(frozen=True)
class PullRequestRef:
    number: int
    head_sha: str | None  # the PR's head commit: where the check run goes (None: ask the API)
    from_fork: bool = False

    @property
    def merge_ref(self) -> str:
        return f"refs/pull/{self.number}/merge"


@dataclass(frozen=True)
class Command:
    name: str  # rerun | explain
    comment_id: int
    user: str


@dataclass(frozen=True)
class Plan:
    """``judge``: evaluate and publish; ``command``: a bot command; ``ignore``: nothing to do."""

    action: str
    pr: PullRequestRef | None = None
    command: Command | None = None
    use_event_sha: bool = False  # pull_request: GITHUB_SHA is the test-merge commit itself
    why: str = ""


def plan_for(event_name: str, payload: dict[str, Any], check_name: str) -> Plan:
    if event_name in PR_EVENTS:
        return _pull_request(event_name, payload)
    if event_name == "issue_comment":
        return _issue_comment(payload)
    if event_name == "check_run":
        return _check_run(payload, check_name)
    return Plan(
        "ignore",
        why=f"event '{event_name}' is not one oracle-gate handles "
        "(pull_request, pull_request_target, issue_comment, check_run)",
    )


def _pull_request(event_name: str, payload: dict[str, Any]) -> Plan:
    pr = payload.get("pull_request") or {}
    action = payload.get("action", "")
    if action in SKIPPED_PR_ACTIONS:
        return Plan("ignore", why=f"pull request {action}: nothing to judge")
    base_repo = ((pr.get("base") or {}).get("repo") or {}).get("full_name")
    head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
    ref = PullRequestRef(
        number=int(pr["number"]),
        head_sha=(pr.get("head") or {}).get("sha"),
        from_fork=bool(head_repo and base_repo and head_repo != base_repo),
    )
    return Plan("judge", pr=ref, use_event_sha=event_name == "pull_request")


def _issue_comment(payload: dict[str, Any]) -> Plan:
    issue = payload.get("issue") or {}
    comment = payload.get("comment") or {}
    if payload.get("action") != "created":
        return Plan("ignore", why="only new comments carry commands")
    if not issue.get("pull_request"):
        return Plan("ignore", why="the comment is on an issue, not a pull request")
    match = COMMAND.match(comment.get("body") or "")
    if not match:
        return Plan("ignore", why="the comment holds no /oracle-gate command")
    user = (comment.get("user") or {}).get("login", "")
    if (comment.get("user") or {}).get("type") == "Bot":
        return Plan("ignore", why="commands from bots are ignored")
    return Plan(
        "command",
        pr=PullRequestRef(int(issue["number"]), None),
        command=Command(match.group(1).lower(), int(comment["id"]), user),
    )


def _check_run(payload: dict[str, Any], check_name: str) -> Plan:
    run = payload.get("check_run") or {}
    if payload.get("action") != "rerequested":
        return Plan("ignore", why=f"check_run {payload.get('action')}: only 'rerequested' re-runs the gate")
    if run.get("name") != check_name:
        return Plan("ignore", why=f"check run {run.get('name')!r} is not {check_name!r}")
    prs = run.get("pull_requests") or []
    if not prs:
        return Plan(
            "ignore",
            why="the re-requested check run names no pull request "
            "(GitHub leaves this empty for pull requests from forks)",
        )
    return Plan("judge", pr=PullRequestRef(int(prs[0]["number"]), run.get("head_sha")))
