"""One parser of GitHub events for both front doors: (event name, payload, source) in, one typed
:data:`Event` out (issue 17: the Action and the bot each had their own, and they drifted).

The Action reads its event file, the bot a stored webhook delivery; both hand the parsed JSON object
here, with the name of where it came from (the file's path, the delivery's id), and map the typed
event to their own work. Every field either front door uses is read and checked here, once: numbers
are positive integers (never a string, never a bool), commits are full lower-case SHAs, repositories
are ``OWNER/NAME``, a null is a missing field. A payload that lacks a field its event carries, or
carries one of the wrong shape, raises :class:`EventError`, one line naming the input and the
field; everything that asks for nothing is :class:`Ignored` with the reason.

Which events ask for a judgement is decided here too, so the doors cannot disagree on it: a pull
request is judged when it is opened, pushed to, reopened, or its base branch changes (a label or a
title edit changes nothing that is judged); a comment counts only when its first line is a command
of :mod:`oracle_gate.review.commands` (parsed in linear time; the bot plans deliveries in a worker,
never on the server's event loop). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeAlias

from oracle_gate.github.defaults import is_repository
from oracle_gate.review.commands import Command, parse_command
from oracle_gate.review.payload_reader import EventError, Reader, payload_of, shown
from oracle_gate.review.settings import default

__all__ = ["EventError", "payload_of"]  # with the event types and parse_event below

DEFAULT_MAP_WORKFLOW = default("map-workflow")  # the one definition: oracle_gate.review.settings
JUDGED_PULL_ACTIONS = frozenset({"opened", "synchronize", "reopened"})  # and "edited" when the base changed
REVIEW_ACTIONS = frozenset({"submitted", "edited", "dismissed"})  # v3.5: may add or take back an approval
QUEUE_REF_PREFIX = "refs/heads/gh-readonly-queue/"
BRANCH_PREFIX = "refs/heads/"
INSTALLATION_STATES = {
    "created": "active",
    "new_permissions_accepted": "active",
    "unsuspend": "active",
    "suspend": "suspended",
    "deleted": "deleted",
}


@dataclass(frozen=True)
class Origin:
    """Which event, read from where, about which repository (each None when the payload has none:
    an Action's event file carries no installation)."""

    event: str
    source: str
    repo: str | None
    installation: int | None
    default_branch: str | None

    def app_delivery(self) -> tuple[str, int]:
        """(repository, installation id) that every delivery to a GitHub App carries."""
        if self.repo is None:
            raise EventError(self.source, f"the {self.event} payload has no repository.full_name")
        if self.installation is None:
            raise EventError(self.source, f"the {self.event} payload has no installation.id")
        return self.repo, self.installation


@dataclass(frozen=True)
class PullRef:
    """A pull request a check run, check suite or workflow run names."""

    number: int
    base_ref: str | None  # its base branch, when named


@dataclass(frozen=True)
class PullRequestChanged:
    """A pull request opened, pushed to, reopened, or moved to another base branch."""

    origin: Origin
    action: str
    number: int
    head_sha: str
    base_ref: str | None
    from_fork: bool  # the head repository is another one (or is gone)
    # v3.9.1: an ``edited`` event that changed the base: when (the pull request's ``updated_at``).
    base_changed_at: datetime | None = None


@dataclass(frozen=True)
class ReviewChanged:
    """A review submitted, edited or dismissed (v3.5: approvals are re-read from the API)."""

    origin: Origin
    action: str
    number: int


@dataclass(frozen=True)
class CommandGiven:
    """A new comment on a pull request whose first line is a command (by a user, not a bot)."""

    origin: Origin
    number: int
    comment_id: int
    user: str
    command: Command


@dataclass(frozen=True)
class ChecksRerequested:
    """``check_run.rerequested`` or ``check_suite.requested|rerequested`` naming pull requests."""

    origin: Origin
    holder: str  # check_run | check_suite
    check_name: str | None  # the check run's name (None for a suite)
    head_sha: str
    pulls: tuple[PullRef, ...]  # never empty


@dataclass(frozen=True)
class MergeGroupQueued:
    """``merge_group.checks_requested``: the queue's merge commit and the base it lands on."""

    origin: Origin
    head_sha: str
    base_sha: str
    head_ref: str  # refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>
    base_ref: str  # refs/heads/<base>

    @property
    def base_branch(self) -> str:
        return self.base_ref.removeprefix(BRANCH_PREFIX)


@dataclass(frozen=True)
class BaseMoved:
    """A push to the default branch: every open pull request's parent moved to ``after``."""

    origin: Origin
    branch: str
    after: str


@dataclass(frozen=True)
class ReviewRelayed:
    """A completed run of the ``pull_request_review`` relay workflow, naming its pull requests."""

    origin: Origin
    pulls: tuple[PullRef, ...]  # never empty


@dataclass(frozen=True)
class MapRunSucceeded:
    """The map workflow's successful push run on the default branch: a map of ``head_sha`` exists."""

    origin: Origin
    head_sha: str


@dataclass(frozen=True)
class InstallationChanged:
    """The App was installed, suspended, given repositories...: the installation's state now."""

    origin: Origin
    installation: int
    state: str  # active | suspended | deleted


@dataclass(frozen=True)
class AccessChanged:
    """``member``, ``membership`` or ``team``: who may approve may have changed (a collaborator
    added, removed or given another permission; someone added to or removed from a team; a team's
    repositories or permission changed). An approval counts only while its approver holds write
    access, and a team's only while they are its member (TRUST.md 12), so the bot judges again the
    pull requests whose verdict rests on approvals. The Action is never told of these events."""

    origin: Origin  # a ``membership`` or an organization's ``team`` event names no repository
    login: str | None  # whose access changed; None: a team's (any of its members)
    team: str | None  # ``org/slug`` of the team, when the event is about one


@dataclass(frozen=True)
class Ignored:
    """Nothing to do, and why."""

    why: str


Event: TypeAlias = (
    PullRequestChanged
    | ReviewChanged
    | CommandGiven
    | ChecksRerequested
    | MergeGroupQueued
    | BaseMoved
    | ReviewRelayed
    | MapRunSucceeded
    | InstallationChanged
    | AccessChanged
    | Ignored
)


def parse_event(name: str, payload: Any, source: str, *, map_workflow: str = DEFAULT_MAP_WORKFLOW) -> Event:
    """The typed event ``name`` with ``payload`` (read from ``source``) is; :class:`EventError` when
    the payload is not the shape GitHub sends for it. ``map_workflow``: the path of the workflow
    whose successful default-branch push run brings a map (the bot's setting)."""
    if not isinstance(payload, dict):
        raise EventError(source, f"the {name} payload is not a JSON object")
    parser = PARSERS.get(name)
    if parser is None:
        return Ignored(f"event {shown(name)} is not one oracle-gate handles")
    return parser(Reader(payload, source, name), map_workflow)


def _origin(r: Reader) -> Origin:
    """Who the event is about; a repository or installation that is present must be well formed."""
    repo = None
    if r.optional("repository") is not None:
        repo = r.text("repository.full_name")
        # It becomes a mirror's path and a clone URL: "." and ".." would climb out of a directory.
        if not is_repository(repo) or {".", ".."} & set(repo.split("/")):
            raise r.fail(f"repository.full_name is not OWNER/NAME: {shown(repo)}")
    installation = r.number("installation.id") if r.optional("installation") is not None else None
    default_branch = r.optional_text("repository.default_branch")
    return Origin(r.event, r.source, repo, installation, default_branch)


def _pull_request(r: Reader, _: str) -> Event:
    action = r.action
    base_changed = action == "edited" and isinstance(r.optional("changes.base"), dict)
    if action not in JUDGED_PULL_ACTIONS and not base_changed:
        return Ignored(f"pull request {action}: nothing to judge")
    origin, number = _origin(r), r.number("pull_request.number")
    head_sha = r.sha("pull_request.head.sha")
    base_repo = r.optional_text("pull_request.base.repo.full_name")
    head_repo = r.optional_text("pull_request.head.repo.full_name")
    base_ref = r.optional_text("pull_request.base.ref")
    changed_at = _time(r, "pull_request.updated_at") if base_changed else None
    return PullRequestChanged(origin, action, number, head_sha, base_ref, head_repo != base_repo, changed_at)


def _time(r: Reader, path: str) -> datetime:
    """An ISO time the payload carries (GitHub's are UTC: one without an offset is read as UTC)."""
    text = r.text(path)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise r.fail(f"{path} is not an ISO time: {shown(text)}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _pull_request_review(r: Reader, _: str) -> Event:
    if r.action not in REVIEW_ACTIONS:
        return Ignored(f"pull_request_review {r.action}: no approval changed")
    return ReviewChanged(_origin(r), r.action, r.number("pull_request.number"))


def _issue_comment(r: Reader, _: str) -> Event:
    if r.action != "created":
        return Ignored("only new comments carry commands")
    if not isinstance(r.optional("issue.pull_request"), dict):
        return Ignored("the comment is on an issue, not a pull request")
    if r.optional("comment.user.type") == "Bot":
        return Ignored("commands from bots are ignored")
    body = r.optional("comment.body")
    command = parse_command(body) if isinstance(body, str) else None
    if command is None:
        return Ignored("the comment holds no /oracle-gate command")
    return CommandGiven(
        _origin(r),
        r.number("issue.number"),
        r.number("comment.id"),
        r.text("comment.user.login"),
        command,
    )


def _pulls(r: Reader, path: str) -> tuple[PullRef, ...]:
    listed = r.optional(path) or []
    if not isinstance(listed, list):
        raise r.fail(f"{path} is not a list")
    return tuple(
        PullRef(r.number("number", p, f"{path}[{i}]."), r.optional_text("base.ref", p))
        for i, p in enumerate(listed)
    )


def _checks(r: Reader, holder: str) -> Event:
    pulls = _pulls(r, f"{holder}.pull_requests")
    if not pulls:
        return Ignored(f"the {holder} names no pull request (GitHub leaves it empty for forks and branches)")
    name = r.optional_text(f"{holder}.name") if holder == "check_run" else None
    return ChecksRerequested(_origin(r), holder, name, r.sha(f"{holder}.head_sha"), pulls)


def _check_run(r: Reader, _: str) -> Event:
    if r.action != "rerequested":
        return Ignored(f"check_run {r.action}: only 'rerequested' asks for a new judgement")
    return _checks(r, "check_run")


def _check_suite(r: Reader, _: str) -> Event:
    if r.action not in ("requested", "rerequested"):
        return Ignored(f"check_suite {r.action}: asks for no check")
    return _checks(r, "check_suite")


def _merge_group(r: Reader, _: str) -> Event:
    if r.action != "checks_requested":
        return Ignored(f"merge_group {r.action}: only 'checks_requested' asks for checks")
    head_ref, base_ref = r.text("merge_group.head_ref"), r.text("merge_group.base_ref")
    if not head_ref.startswith(QUEUE_REF_PREFIX):
        raise r.fail(f"merge_group.head_ref is not a merge queue ref: {shown(head_ref)}")
    if not base_ref.startswith(BRANCH_PREFIX) or base_ref == BRANCH_PREFIX:
        raise r.fail(f"merge_group.base_ref is not a branch: {shown(base_ref)}")
    head_sha, base_sha = r.sha("merge_group.head_sha"), r.sha("merge_group.base_sha")
    return MergeGroupQueued(_origin(r), head_sha, base_sha, head_ref, base_ref)


def _push(r: Reader, _: str) -> Event:
    ref, default_branch = r.text("ref"), r.text("repository.default_branch")
    if ref != BRANCH_PREFIX + default_branch:
        return Ignored("a push to a branch other than the default one changes no parent")
    after = r.sha("after")
    if not after.strip("0"):  # GitHub's "no commit": the branch was deleted
        return Ignored("the default branch was deleted: no parent to judge against")
    return BaseMoved(_origin(r), default_branch, after)


def _workflow_run(r: Reader, map_workflow: str) -> Event:
    """A completed run: the review relay (the Action's two-stage approvals) or the map workflow's."""
    trigger = r.optional("workflow_run.event")
    if r.action != "completed":
        return Ignored(f"workflow_run {r.action}: only a completed run asks for anything")
    if trigger == "pull_request_review":
        pulls = _pulls(r, "workflow_run.pull_requests")
        if not pulls:
            return Ignored(
                "the review run names no pull request (GitHub leaves this empty for pull requests "
                "from forks: re-run the check there, or use the bot)"
            )
        return ReviewRelayed(_origin(r), pulls)
    if trigger != "push":
        return Ignored(f"a {shown(trigger)} run neither relays a review nor brings a map")
    return _map_run(r, map_workflow)


def _map_run(r: Reader, map_workflow: str) -> Event:
    path = r.optional("workflow_run.path")
    if str(path or "").split("@", 1)[0] != map_workflow:
        return Ignored(f"the run is of {shown(path)}, not of the map workflow {map_workflow}")
    conclusion = r.optional("workflow_run.conclusion")
    if conclusion != "success":
        return Ignored(f"the map workflow's run concluded {shown(conclusion)}: no map")
    if r.optional("workflow_run.head_branch") != r.text("repository.default_branch"):
        return Ignored("the map workflow ran on a branch other than the default one")
    return MapRunSucceeded(_origin(r), r.sha("workflow_run.head_sha"))


def _installation(r: Reader, _: str) -> Event:
    state = "active" if r.event == "installation_repositories" else INSTALLATION_STATES.get(r.action)
    if state is None:
        return Ignored(f"{r.event} {r.action}: no change of state")
    return InstallationChanged(_origin(r), r.number("installation.id"), state)


MEMBER_ACTIONS = frozenset({"added", "edited", "removed"})
MEMBERSHIP_ACTIONS = frozenset({"added", "removed"})
TEAM_ACTIONS = frozenset({"edited", "deleted", "added_to_repository", "removed_from_repository"})


def _not_access(r: Reader, actions: frozenset[str]) -> Ignored | None:
    if r.action in actions:
        return None
    return Ignored(f"{r.event} {r.action}: no one's access to a repository changed")


def _team_of(r: Reader) -> str:
    return f"{r.text('organization.login')}/{r.text('team.slug')}"


def _member(r: Reader, _: str) -> Event:
    """A repository's collaborator added, removed, or given another permission."""
    ignored = _not_access(r, MEMBER_ACTIONS)
    if ignored is not None:
        return ignored
    return AccessChanged(_origin(r), r.text("member.login"), None)


def _membership(r: Reader, _: str) -> Event:
    """Someone added to or removed from a team (``member`` is null for a deleted account: any)."""
    ignored = _not_access(r, MEMBERSHIP_ACTIONS)
    if ignored is not None:
        return ignored
    login = r.optional_text("member.login")
    return AccessChanged(_origin(r), login, _team_of(r))


def _team(r: Reader, _: str) -> Event:
    """A team's permission, repositories or existence changed: any of its members' access."""
    ignored = _not_access(r, TEAM_ACTIONS)
    if ignored is not None:
        return ignored
    return AccessChanged(_origin(r), None, _team_of(r))


def _ping(r: Reader, _: str) -> Event:
    return Ignored("ping: nothing to judge")


PARSERS: dict[str, Callable[[Reader, str], Event]] = {
    "pull_request": _pull_request,
    "pull_request_target": _pull_request,  # the same payload; the Action tells the two apart
    "pull_request_review": _pull_request_review,
    "issue_comment": _issue_comment,
    "check_run": _check_run,
    "check_suite": _check_suite,
    "merge_group": _merge_group,
    "push": _push,
    "workflow_run": _workflow_run,
    "installation": _installation,
    "installation_repositories": _installation,
    "ping": _ping,
    "member": _member,
    "membership": _membership,
    "team": _team,
}
