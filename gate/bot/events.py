"""Which jobs a delivery asks for: a verified payload in, :class:`Job` values out. Pure.

Nothing here trusts a payload's SHAs to decide a verdict: a pull request job is judged on what
``pulls/get`` says when it runs (a stale or replayed event cannot pin an old head), the payload's
head only orders and supersedes jobs.

This runs on the server's event loop, so it reads only the payload's structure: a comment's text
is not parsed here. A comment on a pull request becomes a :data:`COMMAND` job under a key of its
own (it supersedes nothing); the worker parses it with the one grammar of oracle_gate.review.commands and
checks the commenter's permission before the command has any effect.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from oracle_gate.errors import Refused
from oracle_gate.github.defaults import FULL_SHA, is_repository
from oracle_gate.review.settings import default

PULL_ACTIONS = frozenset({"opened", "synchronize", "reopened"})
JUDGE, EXPLAIN, MAP_READY, DEFAULT_PUSH = "judge", "explain", "map_ready", "default_push"
COMMAND = "command"  # a pull request comment that may hold a command; explain: jobs stored before it
DEFAULT_MAP_WORKFLOW = default("map-workflow")  # the one definition: oracle_gate.review.settings


class PayloadError(Refused, ValueError):
    """The payload is not the shape GitHub sends for this event (one line: what is missing)."""


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
    comment: str | None = None  # a COMMAND job's comment text, parsed only by the worker
    default_branch: str | None = None  # repository.default_branch: the allowed base by default
    base_ref: str | None = None  # a merge group's base branch (refs/heads/ stripped)
    event: str | None = None  # a plan job's event name (oracle_gate.bot.planning)
    payload: str | None = None  # a plan job's delivery, its raw JSON text, planned by a worker

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Job:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Ignored:
    why: str


def _get(payload: Any, *path: str) -> Any:
    node = payload
    for name in path:
        if not isinstance(node, dict) or name not in node:
            raise PayloadError(f"the payload has no {'.'.join(path)}")
        node = node[name]
    return node


def _repo(payload: dict[str, Any]) -> str:
    name = _get(payload, "repository", "full_name")
    # The name becomes a mirror's path and a clone URL: "." and ".." would climb out of the state dir.
    if not isinstance(name, str) or not is_repository(name) or {".", ".."} & set(name.split("/")):
        raise PayloadError("repository.full_name is not OWNER/NAME")
    return name


def _installation(payload: dict[str, Any]) -> int:
    value = _get(payload, "installation", "id")
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise PayloadError("installation.id is not an id")
    return value


def _sha(value: Any, what: str) -> str:
    if not isinstance(value, str) or not FULL_SHA.fullmatch(value):
        raise PayloadError(f"{what} is not a full commit SHA")
    return value


def _number(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise PayloadError(f"{what} is not a pull request number")
    return value


def _default_branch(payload: dict[str, Any]) -> str | None:
    value = (payload.get("repository") or {}).get("default_branch")
    return value if isinstance(value, str) and value else None


def judge_pull(payload: dict[str, Any], number: int, head: str | None) -> Job:
    repo = _repo(payload)
    return Job(
        JUDGE,
        repo,
        _installation(payload),
        f"{repo}#{number}",
        pr=number,
        head=head,
        default_branch=_default_branch(payload),
    )


def _pull_request(payload: dict[str, Any]) -> list[Job] | Ignored:
    action = payload.get("action")
    base_changed = action == "edited" and isinstance((payload.get("changes") or {}).get("base"), dict)
    if action not in PULL_ACTIONS and not base_changed:
        return Ignored(f"pull_request.{action} does not change what is judged")
    pull = _get(payload, "pull_request")
    number = _number(_get(pull, "number"), "pull_request.number")
    return [judge_pull(payload, number, _sha(_get(pull, "head", "sha"), "pull_request.head.sha"))]


REVIEW_ACTIONS = frozenset({"submitted", "edited", "dismissed"})


def _pull_request_review(payload: dict[str, Any]) -> list[Job] | Ignored:
    """v3.5: a review may add or take back an approval: judge the pull request again, at whatever its
    head is then (approvals are read from the API, never from this payload)."""
    action = payload.get("action")
    if action not in REVIEW_ACTIONS:
        return Ignored(f"pull_request_review.{action} does not change what is judged")
    number = _number(_get(payload, "pull_request", "number"), "pull_request.number")
    return [judge_pull(payload, number, None)]


def _pulls_of(payload: dict[str, Any], holder: str) -> list[Job] | Ignored:
    """check_suite / check_run: every (non-fork) pull request GitHub lists for it."""
    item = _get(payload, holder)
    head = _sha(_get(item, "head_sha"), f"{holder}.head_sha")
    pulls = item.get("pull_requests") or []
    jobs = [judge_pull(payload, _number(_get(p, "number"), "pull_requests[].number"), head) for p in pulls]
    return jobs or Ignored(f"the {holder} lists no pull request (a fork's or a branch's)")


def _check_suite(payload: dict[str, Any]) -> list[Job] | Ignored:
    if payload.get("action") not in ("requested", "rerequested"):
        return Ignored(f"check_suite.{payload.get('action')} needs nothing")
    return _pulls_of(payload, "check_suite")


def _check_run(payload: dict[str, Any]) -> list[Job] | Ignored:
    if payload.get("action") != "rerequested":
        return Ignored(f"check_run.{payload.get('action')} needs nothing")
    return _pulls_of(payload, "check_run")


def _merge_group(payload: dict[str, Any]) -> list[Job] | Ignored:
    if payload.get("action") != "checks_requested":
        return Ignored(f"merge_group.{payload.get('action')} needs nothing")
    group = _get(payload, "merge_group")
    repo, head = _repo(payload), _sha(_get(group, "head_sha"), "merge_group.head_sha")
    ref = _get(group, "head_ref")
    if not isinstance(ref, str) or not ref.startswith("refs/heads/gh-readonly-queue/"):
        raise PayloadError("merge_group.head_ref is not a merge queue ref")
    base = _sha(_get(group, "base_sha"), "merge_group.base_sha")
    base_ref = group.get("base_ref")
    branch = base_ref.removeprefix("refs/heads/") if isinstance(base_ref, str) else None
    return [
        Job(
            JUDGE,
            repo,
            _installation(payload),
            f"{repo}@{head}",
            head=head,
            base=base,
            group_ref=ref,
            default_branch=_default_branch(payload),
            base_ref=branch or None,
        )
    ]


def _issue_comment(payload: dict[str, Any]) -> list[Job] | Ignored:
    """A new comment on a pull request: a :data:`COMMAND` job carrying the text, unparsed."""
    if payload.get("action") != "created":
        return Ignored(f"issue_comment.{payload.get('action')} is not a command")
    issue = _get(payload, "issue")
    if not isinstance(issue.get("pull_request"), dict):
        return Ignored("the comment is on an issue, not a pull request")
    user = _get(payload, "comment", "user")
    if isinstance(user, dict) and user.get("type") == "Bot":
        return Ignored("commands from bots are ignored")
    body = _get(payload, "comment", "body")
    if not isinstance(body, str):
        return Ignored("the comment has no text")
    login = _get(payload, "comment", "user", "login")
    comment_id = _get(payload, "comment", "id")
    if not isinstance(comment_id, int) or isinstance(comment_id, bool) or comment_id < 1:
        raise PayloadError("comment.id is not an id")
    number = _number(_get(issue, "number"), "issue.number")
    repo = _repo(payload)
    return [
        Job(
            COMMAND,
            repo,
            _installation(payload),
            f"{repo}#{number}/comment/{comment_id}",
            pr=number,
            commenter=str(login),
            comment_id=comment_id,
            comment=body,
            default_branch=_default_branch(payload),
        )
    ]


def _workflow_run(payload: dict[str, Any], map_workflow: str = DEFAULT_MAP_WORKFLOW) -> list[Job] | Ignored:
    """A map workflow's push run on the default branch succeeded: the pull requests waiting for that
    parent's map are judged again (the map itself is then found and checked through the API)."""
    run = _get(payload, "workflow_run")
    if payload.get("action") != "completed" or run.get("event") != "push":
        return Ignored("only a completed push run of the map workflow can bring a map")
    if str(run.get("path") or "").split("@", 1)[0] != map_workflow:
        return Ignored(f"the run is of {run.get('path')!r}, not of the map workflow {map_workflow}")
    if run.get("conclusion") != "success":
        return Ignored(f"the map workflow's run concluded {run.get('conclusion')!r}: no map")
    if run.get("head_branch") != _get(payload, "repository", "default_branch"):
        return Ignored("the map workflow ran on a branch other than the default one")
    repo = _repo(payload)
    sha = _sha(_get(run, "head_sha"), "workflow_run.head_sha")
    default = _default_branch(payload)
    return [Job(MAP_READY, repo, _installation(payload), f"{repo}!map", base=sha, default_branch=default)]


def _push(payload: dict[str, Any]) -> list[Job] | Ignored:
    default = _get(payload, "repository", "default_branch")
    if _get(payload, "ref") != f"refs/heads/{default}":
        return Ignored("a push to a branch other than the default one changes no parent")
    repo = _repo(payload)
    return [
        Job(
            DEFAULT_PUSH,
            repo,
            _installation(payload),
            f"{repo}!push",
            base=_sha(_get(payload, "after"), "after"),
            default_branch=_default_branch(payload),
        )
    ]


PLANNERS = {
    "pull_request": _pull_request,
    "pull_request_review": _pull_request_review,
    "check_suite": _check_suite,
    "check_run": _check_run,
    "merge_group": _merge_group,
    "issue_comment": _issue_comment,
    "workflow_run": _workflow_run,
    "push": _push,
}
INSTALLATION_STATES = {
    "created": "active",
    "new_permissions_accepted": "active",
    "unsuspend": "active",
    "suspend": "suspended",
    "deleted": "deleted",
}


def installation_change(event: str, payload: Any) -> tuple[int, str] | None:
    """(installation id, its state now) that an ``installation`` or ``installation_repositories``
    delivery tells; None when it tells none (the bot then records nothing)."""
    if event not in ("installation", "installation_repositories") or not isinstance(payload, dict):
        return None
    action = str(payload.get("action"))
    state = "active" if event == "installation_repositories" else INSTALLATION_STATES.get(action)
    if state is None:
        return None
    return _installation(payload), state


ACKNOWLEDGED = frozenset({"ping", "installation", "installation_repositories"})


def plan(event: str, payload: Any, *, map_workflow: str = DEFAULT_MAP_WORKFLOW) -> list[Job] | Ignored:
    """The jobs of one delivery, or why none; :class:`PayloadError` for a payload GitHub never sends."""
    if event in ACKNOWLEDGED:
        return Ignored(f"{event}: nothing to judge")
    planner = PLANNERS.get(event)
    if planner is None:
        return Ignored(f"event {event!r} is not one the bot handles")
    if not isinstance(payload, dict):
        raise PayloadError("the payload is not a JSON object")
    if event == "workflow_run":
        return _workflow_run(payload, map_workflow)
    return planner(payload)
