"""Contract v3.5: approved oracle changes.

The policy's ``[approvals]`` table names who may approve a change to the oracle (logins, and
``org/team`` slugs whose members may), and how many distinct approvers it takes. Who actually
approved is an **input** (the Action and the bot ask GitHub; the CLI reads ``--approvals FILE``):
the core never calls out, it only applies every rule of the contract to what it is given, so a
caller that passes everything it heard cannot make an approval count that the rules refuse.

v3.9 binds an approval to what the approver saw: the base branch (a retarget after the review makes
it stale, as a push does), and lets a repository opt in to its maintainers' own pull requests
(``authors``: the author's own pull request is one approval of its head while the author holds
maintain or admin permission).

Pure: values in, values out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

#: The permissions (GitHub's collaborator permission, or its role name) that may approve.
APPROVING_PERMISSIONS = frozenset({"write", "maintain", "admin"})
#: v3.9.3: the permissions with which an author named in ``authors`` approves their own pull request.
AUTHOR_PERMISSIONS = frozenset({"maintain", "admin"})
BOT_SUFFIX = "[bot]"
BY_THE_AUTHOR = "by the author"
_KEYS = frozenset({"oracle", "count", "authors"})
_SLUG = re.compile(r"[A-Za-z0-9_.\-]+(\[bot\])?", re.ASCII)


@dataclass(frozen=True)
class ApprovalRules:
    """The parsed ``[approvals]`` table: names as written (without a leading ``@``)."""

    oracle: tuple[str, ...] = ()
    count: int = 1
    authors: tuple[str, ...] = ()  # v3.9.3: logins whose own pull request counts as one approval

    @property
    def logins(self) -> frozenset[str]:
        return frozenset(name.casefold() for name in self.oracle if "/" not in name)

    @property
    def teams(self) -> frozenset[str]:
        return frozenset(name.casefold() for name in self.oracle if "/" in name)

    @property
    def own_pull_requests(self) -> frozenset[str]:
        return frozenset(name.casefold() for name in self.authors)


@dataclass(frozen=True)
class Approval:
    """What the API said about one approving review: who, on which commit, their teams (``org/team``),
    their permission on the repository when the gate runs, and when the review was submitted
    (v3.9.1; None: not known, which is stale once the base has changed)."""

    login: str
    commit: str
    teams: tuple[str, ...] = ()
    permission: str = ""
    submitted_at: datetime | None = None


@dataclass(frozen=True)
class Approver:
    """One approver that counts, with the head SHA they approved (``by_author``: v3.9.3, the author's
    own pull request)."""

    login: str
    commit: str
    by_author: bool = False


@dataclass(frozen=True)
class QueuedApprovals:
    """v3.9.2: one pull request of a merge group of several, as its front door attributed it: its
    approvals as they stood on its head, and the paths its own queue entry changed (its step of the
    group's first-parent chain, renames as a delete and an add)."""

    number: int
    author: str
    head: str
    approvals: tuple[Approval, ...]
    paths: frozenset[str]
    base_changed_at: datetime | None = None
    author_permission: str | None = None


@dataclass(frozen=True)
class ApprovalsSeen:
    """Display only (not in the JSON, never judged): what a front door read of the reviews besides the
    approvals it passed in: the approvals of an older head (``stale``), and why the reviews could not
    be read (``unreadable``; then no approvals were passed in: the verdict is judged without them)."""

    head: str = ""  # the pull request's head SHA the approvals were compared with
    stale: tuple[Approver, ...] = ()
    # v3.9.1: approvals of the current head submitted before the base branch last changed (then).
    stale_base: tuple[Approver, ...] = ()
    base_changed_at: datetime | None = None
    unreadable: str = ""
    unknown_teams: tuple[str, ...] = ()  # named teams that do not exist (or cannot be seen)

    @property
    def base_changed_utc(self) -> str:
        """When the base last changed, as a person reads it (empty: not known)."""
        if self.base_changed_at is None:
            return ""
        return self.base_changed_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def parse_approvals(value: object) -> tuple[ApprovalRules | None, list[str]]:
    """The ``[approvals]`` table, or None and what is wrong with it (a malformed table approves
    nothing: the caller reports each problem as ``oracle_incomplete``)."""
    if not isinstance(value, Mapping):
        return None, [f"'approvals' must be a table, got {type(value).__name__}"]
    problems = [f"'approvals' has unknown key {key!r}" for key in value if key not in _KEYS]
    oracle = value.get("oracle")
    names: list[str] = []
    if "oracle" not in value:
        problems.append("'approvals' needs 'oracle' (a list of logins and org/team slugs)")
    elif not isinstance(oracle, list):
        problems.append(f"'approvals.oracle' must be a list of strings, got {type(oracle).__name__}")
    else:
        for index, entry in enumerate(oracle):
            problem = _name_problem(entry)
            if problem:
                problems.append(f"'approvals.oracle' entry {index} {problem}")
            else:
                names.append(str(entry).removeprefix("@"))
    authors, author_problems = _authors(value.get("authors", []))
    problems += author_problems
    count = value.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        problems.append(f"'approvals.count' must be an integer >= 1, got {count!r}")
    if problems:
        return None, problems
    return ApprovalRules(tuple(names), int(count), authors), []


def _authors(value: object) -> tuple[tuple[str, ...], list[str]]:
    """v3.9.3 ``authors``: logins only (never a team, never a ``[bot]`` login)."""
    if not isinstance(value, list):
        return (), [f"'approvals.authors' must be a list of logins, got {type(value).__name__}"]
    names: list[str] = []
    problems: list[str] = []
    for index, entry in enumerate(value):
        problem = _name_problem(entry)
        if problem is None and "/" in str(entry):
            problem = f"{entry!r} names a team: only logins may approve their own pull request"
        if problem is None and str(entry).casefold().endswith(BOT_SUFFIX):
            problem = f"{entry!r} is a bot: a bot never approves its own pull request"
        if problem:
            problems.append(f"'approvals.authors' entry {index} {problem}")
        else:
            names.append(str(entry).removeprefix("@"))
    return tuple(names), problems


def _name_problem(entry: object) -> str | None:
    if not isinstance(entry, str):
        return f"is not a string ({type(entry).__name__})"
    parts = entry.removeprefix("@").split("/")
    if len(parts) > 2 or not all(_SLUG.fullmatch(p) for p in parts):
        return f"{entry!r} is neither a login nor an org/team slug"
    return None


def counting_approvers(
    rules: ApprovalRules,
    approvals: Iterable[Approval],
    *,
    author: str,
    head_sha: str,
    base_changed_at: datetime | None = None,
    author_permission: str | None = None,
) -> list[Approver]:
    """The distinct approvers that count under every rule of v3.5 and v3.9, sorted by login: the
    author among them (``by_author``) when :func:`author_approves`."""
    found: dict[str, Approver] = {}
    if author_approves(rules, author=author, permission=author_permission, head_sha=head_sha):
        found[author.casefold()] = Approver(author, head_sha.lower(), by_author=True)
    for approval in approvals:
        key = approval.login.casefold()
        if key not in found and counts(
            rules, approval, author=author, head_sha=head_sha, base_changed_at=base_changed_at
        ):
            found[key] = Approver(approval.login, approval.commit.lower())
    return [found[key] for key in sorted(found)]


def author_approves(rules: ApprovalRules, *, author: str, permission: str | None, head_sha: str) -> bool:
    """v3.9.3: the author's own pull request counts as one approval of its head when the policy names
    the author in ``authors`` (never a bot) and the author holds maintain or admin permission now."""
    login = author.casefold()
    if not login or not head_sha or login.endswith(BOT_SUFFIX) or login not in rules.own_pull_requests:
        return False
    return (permission or "").casefold() in AUTHOR_PERMISSIONS


def before_base_change(approval: Approval, base_changed_at: datetime | None) -> bool:
    """v3.9.1: whether the review was submitted before the base branch last changed (not after it:
    a time GitHub gives to the second does not tell which came first), or at no known time."""
    if base_changed_at is None:
        return False
    return approval.submitted_at is None or approval.submitted_at <= base_changed_at


def counts(
    rules: ApprovalRules,
    approval: Approval,
    *,
    author: str,
    head_sha: str,
    base_changed_at: datetime | None = None,
) -> bool:
    """Whether one approving review counts: on the current head, since the base last changed, not
    the author's, not a bot's unless the bot is named exactly, by someone named (directly or through
    a named team) who can write to the repository."""
    login = approval.login.casefold()
    if not login or approval.commit.lower() != head_sha.lower() or not head_sha:
        return False
    if before_base_change(approval, base_changed_at):
        return False
    if login == author.casefold():
        return False
    if approval.permission.casefold() not in APPROVING_PERMISSIONS:
        return False
    if login.endswith(BOT_SUFFIX):  # a bot counts only where named exactly, never through a team
        return login in rules.logins
    teams = {team.removeprefix("@").casefold() for team in approval.teams}
    return login in rules.logins or bool(teams & rules.teams)


def queue_makers(queued: Sequence[QueuedApprovals], paths: Iterable[str | None]) -> list[QueuedApprovals]:
    """v3.9.2: the pull requests of a merge group that make the oracle changes found at ``paths``:
    those whose own entry changed the path; a change found at no path, or at a path no entry
    changed (the entries only together make it), is made by every pull request of the group."""
    makers: dict[int, QueuedApprovals] = {}
    for path in paths:
        by = [q for q in queued if path is not None and path in q.paths] or list(queued)
        makers.update((q.number, q) for q in by)
    return [makers[number] for number in sorted(makers)]


def queue_approvers(rules: ApprovalRules, makers: Sequence[QueuedApprovals]) -> list[Approver] | None:
    """v3.9.2: the approvers of each maker on its own head (every rule of v3.5 and v3.9 applied to
    each pull request alone), or None when some maker has fewer than ``count`` (or there is none)."""
    if not makers:
        return None
    found: list[Approver] = []
    for queued in makers:
        approvers = counting_approvers(
            rules,
            queued.approvals,
            author=queued.author,
            head_sha=queued.head,
            base_changed_at=queued.base_changed_at,
            author_permission=queued.author_permission,
        )
        if len(approvers) < rules.count:
            return None
        found += approvers
    return found


def enough(rules: ApprovalRules | None, approvers: Sequence[Approver]) -> bool:
    return rules is not None and len(approvers) >= rules.count
