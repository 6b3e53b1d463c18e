"""The one sequence both front doors walk (TRUST.md invariant 11): :func:`judge`, :func:`post`,
:func:`answer` and :func:`explain`.

A pull request: its head (the event's, else ``pulls/get``) and base; the check's name for that base
(:mod:`oracle_gate.review.bases`); GitHub's test merge, judged only when fresh
(:mod:`oracle_gate.review.freshness`: a stale merge is never judged, a head that moved meanwhile is
:class:`~oracle_gate.judgement.ports.Superseded`); the approvals when the parent's policy names
approvers (:mod:`oracle_gate.review.approvals`, an unreadable answer said, never "none"); the size of
the change (over ``max-changed-bytes`` it is not read, nor any map looked for); the parent's map, or
why there is none; the verdict from the door's :class:`~oracle_gate.judgement.ports.Judge`. A merge
group: its commit against its base with the approvals it carries (:mod:`oracle_gate.review.merge_group`).

:func:`judge` never posts: the door may still refuse to (the bot, a newer event queued) or show the
verdict elsewhere (the Action's outputs). :func:`post` posts the check, then the sticky comment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from oracle_gate import __version__
from oracle_gate.errors import GateError, PublishError
from oracle_gate.github.content import (
    check_content,
    error_check,
    explain_reply,
    not_computed_reply,
    reply_text,
    sticky_comment,
)
from oracle_gate.github.pulls import PullInfo
from oracle_gate.github.values import CheckTarget, CommentAction, CommentResult, PublishResult
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judge.withheld import change_too_large
from oracle_gate.judgement import stale
from oracle_gate.judgement.ports import (
    Asked,
    Checks,
    Comments,
    Facts,
    Judge,
    Judged,
    Judgement,
    MergeGroupAsked,
    MergeLook,
    NotJudged,
    ParentMap,
    ParentMaps,
    PullRequestAsked,
    Pulls,
    Rules,
    Superseded,
)
from oracle_gate.review.approvals import ApprovalsRead, read_approvals, unreadable
from oracle_gate.review.bases import allowed_bases, check_name_for_base
from oracle_gate.review.commands import Command, may_command, reaction_for, refusal
from oracle_gate.review.freshness import fresh_merge
from oracle_gate.review.merge_group import QueuedPull, group_approvals


def _quiet(line: str) -> None:
    """The default note: say nothing."""


@dataclass
class Door:
    """One front door's ports and rules: what :func:`judge`, :func:`post` and :func:`answer` need."""

    pulls: Pulls
    look: MergeLook
    maps: ParentMaps
    judge: Judge
    checks: Checks
    comments: Comments
    rules: Rules
    sleep: Callable[[float], object] = time.sleep
    note: Callable[[str], None] = _quiet  # a line for the door's log
    clock: Callable[[], float] = time.monotonic
    on_head: Callable[[str], None] = _quiet  # told the head as soon as it is known (the Action's crash note)
    _pulls_seen: dict[int, PullInfo] = field(default_factory=dict)

    def pull(self, number: int) -> PullInfo:
        """``pulls/get`` of ``number``, asked once per door (raises PublishError)."""
        if number not in self._pulls_seen:
            self._pulls_seen[number] = self.pulls.pull_request(number)
        return self._pulls_seen[number]


# -- judge -------------------------------------------------------------------------------------------


def check_name(rules: Rules, base: str | None) -> str:
    """The required check's name for an allowed base, ``<name> (base: <branch>)`` for any other."""
    return check_name_for_base(
        rules.check_name, base, allowed_bases(rules.allowed_bases, rules.default_branch)
    )


def judge(door: Door, asked: Asked) -> Judgement:
    """The judgement of a pull request or a merge group; posts nothing."""
    if isinstance(asked, MergeGroupAsked):
        return _judge_group(door, asked)
    return _judge_pull(door, asked)


def _judge_pull(door: Door, asked: PullRequestAsked) -> Judgement:
    number, rules = asked.number, door.rules
    try:
        head = asked.head or door.pull(number).head_sha
    except PublishError as exc:
        return NotJudged(
            f"cannot learn the head commit of pull request #{number}: {exc}", None, rules.check_name, number
        )
    door.on_head(head)
    try:
        base = asked.base_ref or door.pull(number).base_ref
    except PublishError as exc:
        why = f"cannot learn the base branch of pull request #{number}: {exc}"
        return NotJudged(why, head, check_name(rules, None), number)
    name = check_name(rules, base)
    if name != rules.check_name:
        door.note(
            f"base {base!r} is not an allowed base: the verdict is posted as {name!r}, not as the "
            f"required check {rules.check_name!r}"
        )
    try:
        seen = fresh_merge(
            lambda: door.look.look(number, head),
            door.sleep,
            wait=rules.merge_wait,
            looks=door.look.looks,
            note=door.note,
        )
        if seen.head != head:
            return Superseded(f"the pull request's head moved to {seen.head} while waiting, from {head}")
        parent, merge = seen.first_parent or "", seen.merge or ""
        door.note(
            f"judging pull request #{number}: test merge {merge[:12]} against its first parent "
            f"{parent[:12]} (head {head[:12]})"
        )
        approvals = _pull_approvals(door, number, parent, head, asked.base_changed_at)
        return _judged(
            door, parent=parent, merge=merge, head=head, name=name, number=number, approvals=approvals
        )
    except GateError as exc:
        return NotJudged(str(exc), head, name, number)


def _judge_group(door: Door, group: MergeGroupAsked) -> Judgement:
    door.on_head(group.head_sha)
    name = check_name(door.rules, group.base_ref)
    try:
        merge, parent = door.look.group_commits(group)
        door.note(
            f"judging the merge queue's commit {merge[:12]} against its base {parent[:12]} ({group.base_ref})"
        )
        approvals = _group_approvals(door, group, parent, merge)
        return _judged(
            door, parent=parent, merge=merge, head=group.head_sha, name=name, number=None, approvals=approvals
        )
    except GateError as exc:
        return NotJudged(str(exc), group.head_sha, name)


def _pull_approvals(
    door: Door, number: int, parent: str, head: str, base_changed_at: datetime | None
) -> ApprovalsRead | None:
    """v3.5: the approvals through the API when the parent's policy names approvers."""
    rules = door.look.approval_rules(parent)
    if rules is None:
        return None
    try:
        author = door.pull(number).author
    except PublishError as exc:  # never "no approvals", silently: judged without them, and said so
        read = unreadable(head, str(exc))
    else:
        read = read_approvals(
            door.pulls.review_reader(),
            rules,
            number=number,
            author=author,
            head=head,
            base_changed_at=base_changed_at,
        )
    if read.seen.unreadable:
        door.note(f"the approvals could not be read: {read.seen.unreadable}")
    return read


def _group_approvals(door: Door, group: MergeGroupAsked, parent: str, merge: str) -> ApprovalsRead | None:
    """v3.9.2: the approvals of each pull request of the group, on its own head."""

    def pull(number: int) -> QueuedPull:
        info = door.pull(number)
        return QueuedPull(info.head_sha, info.author, info.base_ref)

    rules = door.look.approval_rules(parent)
    if rules is None:  # nothing of the group is asked
        return None
    read = group_approvals(
        door.look.git,
        door.pulls.review_reader(),
        rules,
        head_ref=group.head_ref,
        base_sha=parent,
        head_sha=merge,
        pull=pull,
        fetch_head=door.look.fetch_pull_head,
    )
    if read is not None and read.seen.unreadable:
        door.note(f"the merge group carries no approvals: {read.seen.unreadable}")
    return read


def _judged(
    door: Door,
    *,
    parent: str,
    merge: str,
    head: str,
    name: str,
    number: int | None,
    approvals: ApprovalsRead | None,
) -> Judged:
    """The verdict of ``merge`` against ``parent``: a change over the byte budget is not read and no
    map is looked for (the Action would build one); else the parent's map and the door's judge."""
    rules = door.rules
    started = door.clock()
    too_large = _too_large(door.look, parent, merge, rules.max_changed_bytes)
    if too_large is not None:
        door.note(f"the change is over max-changed-bytes ({rules.max_changed_bytes}): not read")
        return Judged(too_large, parent, merge, head, name, number, ParentMap(), approvals)
    found = door.maps.find(parent)
    facts = Facts(
        repo=door.look.repo,
        parent=parent,
        merge=merge,
        parent_map=found,
        approvals=approvals,
        extra_protected=rules.extra_protected,
        allow_failing_parent=rules.allow_failing_parent,
    )
    verdict = door.judge.judge(facts)
    return Judged(verdict, parent, merge, head, name, number, found, approvals, door.clock() - started)


def _too_large(look: MergeLook, parent: str, merge: str, budget: int | None) -> Verdict | None:
    if budget is None:
        return None
    size = look.changed_bytes(parent, merge)
    return change_too_large(parent, merge, size, budget, __version__) if size > budget else None


# -- post --------------------------------------------------------------------------------------------


SKIPPED = CommentResult(CommentAction.SKIPPED)


def post(
    door: Door,
    judgement: Judgement,
    *,
    external_id: str | None = None,
    details_url: str | None = None,
    earlier: stale.Earlier | None = None,
) -> PublishResult | None:
    """Post ``judgement``: a verdict's check on the head, then its sticky comment (a pull request's
    only); ``earlier``, the last verdict on an older parent, marks an unscored check stale. No
    verdict: a ``failure`` check saying why. Superseded, or no head known: nothing (None)."""
    if isinstance(judgement, Superseded) or judgement.head is None:
        return None
    if isinstance(judgement, NotJudged):
        target = CheckTarget(judgement.head, judgement.check_name, external_id, details_url)
        return PublishResult(door.checks.publish(error_check(judgement.why), target), SKIPPED)
    content = check_content(judgement.verdict, door.rules.max_annotations)
    if earlier is not None and not judgement.had_map and stale.is_stale(earlier, judgement.parent, content):
        content = stale.stale_check(content, earlier, judgement.parent)
    target = CheckTarget(judgement.head, judgement.check_name, external_id, details_url)
    check = door.checks.publish(content, target)
    if judgement.number is None:
        return PublishResult(check, SKIPPED)
    comment = door.comments.sticky(judgement.number, sticky_comment(judgement.verdict, door.rules.comment))
    return PublishResult(check, comment)


def post_moved(door: Door, earlier: stale.Earlier, parent: str, target: CheckTarget) -> PublishResult:
    """The default branch moved to ``parent`` under a verdict made on ``earlier.parent``: its check
    is replaced at once by a stale one (TRUST.md 6: an old parent's success never stands as current)."""
    return PublishResult(door.checks.publish(stale.moved_check(earlier, parent), target), SKIPPED)


# -- commands ----------------------------------------------------------------------------------------


class Answer(StrEnum):
    RERUN = "rerun"  # judge and post again
    EXPLAIN = "explain"  # judge and reply (:func:`explain`), no check
    REFUSED = "refused"  # the commenter may not command: nothing changes
    UNKNOWN = "unknown"  # the commenter's permission could not be learned: nothing changes


@dataclass(frozen=True)
class Answered:
    answer: Answer
    said: str  # the line for the door's log
    error: PublishError | None = None  # UNKNOWN: what the API said (the bot retries a transient one)


def answer(door: Door, command: Command, *, user: str, pr_number: int, comment_id: int | None) -> Answered:
    """``/oracle-gate <command>`` by ``user``: their permission is learned first, the comment gets
    the one reaction both doors give, and only then does the command act."""
    try:
        permission = door.pulls.permission_of(user)
    except PublishError as exc:
        why = f"cannot check the permission of {user} for /oracle-gate {command}: {exc}"
        return Answered(Answer.UNKNOWN, why, exc)
    permitted = may_command(permission)
    if comment_id is not None:
        door.comments.react(pr_number, comment_id, reaction_for(permitted))
    if not permitted:
        return Answered(Answer.REFUSED, refusal(user, command, permission))
    said = f"/oracle-gate {command} by {user} ({permission}) on #{pr_number}"
    return Answered(Answer.RERUN if command == Command.RERUN else Answer.EXPLAIN, said)


@dataclass(frozen=True)
class Explained:
    comment_id: int | None
    truncated: bool = False


def explain(door: Door, judgement: Judgement, pr_number: int) -> Explained | None:
    """``explain``'s reply: every reason and the full overlap listing, or why there is no verdict;
    no check (that is what ``rerun`` is for). Superseded: no reply."""
    if isinstance(judgement, Superseded):
        return None
    if isinstance(judgement, NotJudged):
        return Explained(door.comments.reply(pr_number, reply_text(not_computed_reply(judgement.why))))
    body, truncated = explain_reply(judgement.verdict)
    return Explained(door.comments.reply(pr_number, reply_text(body)), truncated)
