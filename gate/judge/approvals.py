"""Contract v3.5: approved oracle changes.

The policy's ``[approvals]`` table names who may approve a change to the oracle (logins, and
``org/team`` slugs whose members may), and how many distinct approvers it takes. Who actually
approved is an **input** (the Action and the bot ask GitHub; the CLI reads ``--approvals FILE``):
the core never calls out, it only applies every rule of the contract to what it is given, so a
caller that passes everything it heard cannot make an approval count that the rules refuse.

Pure: values in, values out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The permissions (GitHub's collaborator permission, or its role name) that may approve.
APPROVING_PERMISSIONS = frozenset({"write", "maintain", "admin"})
BOT_SUFFIX = "[bot]"
_KEYS = frozenset({"oracle", "count"})
_SLUG = re.compile(r"[A-Za-z0-9_.\-]+(\[bot\])?", re.ASCII)


@dataclass(frozen=True)
class ApprovalRules:
    """The parsed ``[approvals]`` table: names as written (without a leading ``@``)."""

    oracle: tuple[str, ...] = ()
    count: int = 1

    @property
    def logins(self) -> frozenset[str]:
        return frozenset(name.casefold() for name in self.oracle if "/" not in name)

    @property
    def teams(self) -> frozenset[str]:
        return frozenset(name.casefold() for name in self.oracle if "/" in name)


@dataclass(frozen=True)
class Approval:
    """What the API said about one approving review: who, on which commit, their teams (``org/team``)
    and their permission on the repository when the gate runs."""

    login: str
    commit: str
    teams: tuple[str, ...] = ()
    permission: str = ""


@dataclass(frozen=True)
class Approver:
    """One approver that counts, with the head SHA they approved."""

    login: str
    commit: str


@dataclass(frozen=True)
class ApprovalsSeen:
    """Display only (not in the JSON, never judged): what a front door read of the reviews besides the
    approvals it passed in: the approvals of an older head (``stale``), and why the reviews could not
    be read (``unreadable``; then no approvals were passed in: the verdict is judged without them)."""

    head: str = ""  # the pull request's head SHA the approvals were compared with
    stale: tuple[Approver, ...] = ()
    unreadable: str = ""
    unknown_teams: tuple[str, ...] = ()  # named teams that do not exist (or cannot be seen)


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
    count = value.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        problems.append(f"'approvals.count' must be an integer >= 1, got {count!r}")
    if problems:
        return None, problems
    return ApprovalRules(tuple(names), int(count)), []


def _name_problem(entry: object) -> str | None:
    if not isinstance(entry, str):
        return f"is not a string ({type(entry).__name__})"
    parts = entry.removeprefix("@").split("/")
    if len(parts) > 2 or not all(_SLUG.fullmatch(p) for p in parts):
        return f"{entry!r} is neither a login nor an org/team slug"
    return None


def counting_approvers(
    rules: ApprovalRules, approvals: Iterable[Approval], *, author: str, head_sha: str
) -> list[Approver]:
    """The distinct approvers that count under every rule of v3.5, sorted by login."""
    found: dict[str, Approver] = {}
    for approval in approvals:
        key = approval.login.casefold()
        if key not in found and counts(rules, approval, author=author, head_sha=head_sha):
            found[key] = Approver(approval.login, approval.commit.lower())
    return [found[key] for key in sorted(found)]


def counts(rules: ApprovalRules, approval: Approval, *, author: str, head_sha: str) -> bool:
    """Whether one approving review counts: on the current head, not the author's, not a bot's
    unless the bot is named exactly, by someone named (directly or through a named team) who can
    write to the repository."""
    login = approval.login.casefold()
    if not login or approval.commit.lower() != head_sha.lower() or not head_sha:
        return False
    if login == author.casefold():
        return False
    if approval.permission.casefold() not in APPROVING_PERMISSIONS:
        return False
    if login.endswith(BOT_SUFFIX):  # a bot counts only where named exactly, never through a team
        return login in rules.logins
    teams = {team.removeprefix("@").casefold() for team in approval.teams}
    return login in rules.logins or bool(teams & rules.teams)


def enough(rules: ApprovalRules | None, approvers: Sequence[Approver]) -> bool:
    return rules is not None and len(approvers) >= rules.count
