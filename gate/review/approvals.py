"""Contract v3.5 approvals, established through the API at judging time (TRUST.md invariant 12).

Both front doors call :func:`read_approvals` when the parent's policy has an ``[approvals]`` table.
What counts is decided by the core (:func:`oracle_gate.judge.approvals.counts`); this module only reads
what the API says, in a shape the core takes:

- every review of the pull request (every page); per user only the **latest** submitted review
  matters (``PENDING`` is not submitted): a later ``CHANGES_REQUESTED``, ``COMMENTED`` or a
  dismissal takes an earlier approval back (stricter than GitHub's review decision, which ignores
  a later comment: re-approve);
- a latest review ``APPROVED`` on the current head is passed in with the reviewer's permission now
  and the named teams they are an active member of; one ``APPROVED`` on another commit is
  **stale** (display only);
- v3.9.1: when some approval of the current head could count, the pull request's issue events say
  when its base branch last changed; the later of that and what the front door heard itself (the
  bot's stored ``edited`` deliveries, the Action's own event) goes to the core with each review's
  ``submitted_at``, and an approval submitted before it is stale (display: ``stale_base``);
- v3.9.3: when the policy's ``authors`` names the author, the author's permission now;
- an API error never reads as "no approvals": the verdict is judged without approvals and its
  check and comment say the approvals could not be read (:class:`oracle_gate.judge.approvals.ApprovalsSeen`).
  Fail closed: an unreadable answer can only make the verdict stricter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from oracle_gate.errors import GateError, PublishError
from oracle_gate.github.reviews import Review
from oracle_gate.judge.approvals import (
    BOT_SUFFIX,
    Approval,
    ApprovalRules,
    ApprovalsSeen,
    Approver,
    QueuedApprovals,
    before_base_change,
)

if TYPE_CHECKING:
    from oracle_gate.git import Git


class ReviewSource(Protocol):
    def reviews(self, number: int) -> list[Review]: ...

    def active_member(self, team: str, login: str) -> bool: ...

    def team_exists(self, team: str) -> bool: ...

    def permission(self, login: str) -> str: ...

    def base_changed_at(self, number: int) -> datetime | None: ...


@dataclass(frozen=True)
class ApprovalsRead:
    """What goes into ``CheckRequest`` (``approvals``, ``author``, ``pr_head``) and onto the verdict
    (``seen``). ``approvals`` is None when they could not be read."""

    approvals: tuple[Approval, ...] | None
    author: str
    head: str
    seen: ApprovalsSeen
    base_changed_at: datetime | None = None  # v3.9.1
    author_permission: str | None = None  # v3.9.3: asked only when ``authors`` names the author
    queued: tuple[QueuedApprovals, ...] | None = None  # v3.9.2: a merge group of several


def latest_reviews(reviews: Iterable[Review]) -> list[Review]:
    """Each user's latest submitted review (reviews in chronological order), in first-seen order."""
    latest: dict[str, Review] = {}
    for review in reviews:
        if review.login and review.state.upper() != "PENDING":
            key = review.login.casefold()
            latest.pop(key, None)
            latest[key] = review
    return list(latest.values())


def split_approved(reviews: Sequence[Review], head: str) -> tuple[list[Review], list[Approver]]:
    """The latest reviews ``APPROVED`` on ``head``, and those ``APPROVED`` on another commit (stale)."""
    current: list[Review] = []
    stale: list[Approver] = []
    for review in latest_reviews(reviews):
        if review.state.upper() != "APPROVED":
            continue
        if head and review.commit.lower() == head.lower():
            current.append(review)
        else:
            stale.append(Approver(review.login, review.commit.lower()))
    return current, stale


def latest(*times: datetime | None) -> datetime | None:
    """The latest of the known times (None: none known)."""
    known = [t for t in times if t is not None]
    return max(known) if known else None


def teams_to_ask(rules: ApprovalRules, login: str) -> list[str]:
    """The named teams whose membership could make ``login`` count: none for a login named directly
    or a bot (a bot counts only where named exactly)."""
    key = login.casefold()
    if key in rules.logins or key.endswith(BOT_SUFFIX):
        return []
    return sorted(rules.teams)


def read_approvals(
    source: ReviewSource,
    rules: ApprovalRules,
    *,
    number: int,
    author: str,
    head: str,
    base_changed_at: datetime | None = None,
) -> ApprovalsRead:
    """The approving reviews of pull request ``number`` on ``head``, as the core takes them;
    ``base_changed_at``: the last base change the front door heard of itself (v3.9.1)."""
    try:
        current, stale = split_approved(source.reviews(number), head)
        approvals = tuple(_approval(source, rules, review, author) for review in current)
        if any(a.login.casefold() != author.casefold() for a in approvals):  # one could count
            base_changed_at = latest(base_changed_at, source.base_changed_at(number))
        unknown = _unknown_teams(source, rules, approvals)
        permission = source.permission(author) if author.casefold() in rules.own_pull_requests else None
    except (PublishError, GateError) as exc:
        return unreadable(head, str(exc), author)
    before = tuple(
        Approver(a.login, a.commit.lower()) for a in approvals if before_base_change(a, base_changed_at)
    )
    seen = ApprovalsSeen(
        head=head,
        stale=tuple(stale),
        unknown_teams=unknown,
        stale_base=before,
        base_changed_at=base_changed_at if before else None,
    )
    return ApprovalsRead(approvals, author, head, seen, base_changed_at, permission)


def _unknown_teams(
    source: ReviewSource, rules: ApprovalRules, approvals: Sequence[Approval]
) -> tuple[str, ...]:
    """The named teams that do not exist (or this token cannot see), asked only when some approver
    was not found in any of them: such a team approves nothing, and the check says so."""
    if not rules.teams or all(a.teams or a.login.casefold() in rules.logins for a in approvals):
        return ()
    return tuple(team for team in sorted(rules.teams) if not source.team_exists(team))


def unreadable(head: str, why: str, author: str = "") -> ApprovalsRead:
    """No approvals (they could not be read), and the check says why."""
    return ApprovalsRead(None, author, head, ApprovalsSeen(head=head, unreadable=why))


def _approval(source: ReviewSource, rules: ApprovalRules, review: Review, author: str) -> Approval:
    if review.login.casefold() == author.casefold():  # never counts: no need to ask about them
        return Approval(review.login, review.commit, submitted_at=review.submitted_at)
    teams = tuple(
        team for team in teams_to_ask(rules, review.login) if source.active_member(team, review.login)
    )
    permission = source.permission(review.login)
    return Approval(review.login, review.commit, teams, permission, review.submitted_at)


def parent_rules(git: Git, parent: str) -> ApprovalRules | None:
    """The parent's ``[approvals]`` table (None: none, or a policy the judgement reports as broken)."""
    from oracle_gate.oracle_files import read_oracle

    try:
        return read_oracle(git, parent).policy.approvals
    except GateError:
        return None


def request_fields(read: ApprovalsRead | None, *, pr_head: bool = True) -> dict[str, Any]:
    """``CheckRequest``'s approval fields: the head an approval must name is the pull request's head
    (the judged head is GitHub's test merge). ``pr_head=False`` where the head commit may be absent
    from a shallow checkout: the caller sets ``Evidence.approved_head`` to ``read.head`` itself."""
    if read is None:
        return {}
    fields: dict[str, Any] = {
        "approvals": read.approvals,
        "author": read.author,
        "base_changed_at": read.base_changed_at,
        "author_permission": read.author_permission,
        "queued": read.queued,
        "approvals_seen": read.seen,
    }
    if pr_head:
        fields["pr_head"] = read.head
    return fields
