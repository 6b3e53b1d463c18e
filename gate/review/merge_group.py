"""Contract v3.9.2: a merge group judged with the approvals of its pull request, on that pull
request's head, in both front doors.

GitHub names a merge group's branch ``gh-readonly-queue/<base>/pr-<number>-<parent sha>``: the
queue entry of pull request ``<number>``, stacked on ``<parent sha>`` (the base's tip, or the entry
ahead of it). The group's approvals are carried only where the gate can check whose change the group
is: the entry sits on the group's base itself (a group of one pull request), and the group's tree
is exactly that pull request's head (as ``pulls/get`` gives it now: a push takes it out of the
queue) merged onto the base. Anything else (an entry stacked on others, a tree that differs, a name
that is not the queue's) carries no approval and says why, as approvals that could not be read do:
the verdict is judged without them (fail closed; queue an approved oracle change alone).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from oracle_gate.errors import GateError, PublishError
from oracle_gate.git import Git
from oracle_gate.judge.approvals import ApprovalRules
from oracle_gate.review.approvals import ApprovalsRead, ReviewSource, read_approvals, unreadable

_ENTRY = re.compile(
    r"refs/heads/gh-readonly-queue/.+/pr-(?P<number>[1-9][0-9]{0,9})-(?P<parent>[0-9a-f]{40})"
)


@dataclass(frozen=True)
class QueueEntry:
    """The pull request a merge group's branch names, and the commit its entry is stacked on."""

    number: int
    parent: str


@dataclass(frozen=True)
class QueuedPull:
    """What ``pulls/get`` says of the queued pull request now."""

    head: str
    author: str


def queue_entry(head_ref: str) -> QueueEntry | None:
    """The entry ``merge_group.head_ref`` names (None: not a queue branch GitHub names)."""
    found = _ENTRY.fullmatch(head_ref)
    return None if found is None else QueueEntry(int(found["number"]), found["parent"])


def group_approvals(
    git: Git,
    source: ReviewSource,
    rules: ApprovalRules | None,
    *,
    head_ref: str,
    base_sha: str,
    head_sha: str,
    pull: Callable[[int], QueuedPull],
    fetch_head: Callable[[int], None],
) -> ApprovalsRead | None:
    """The approvals the group carries (None: the base's policy names no approvers), or why none.
    ``pull(number)`` asks ``pulls/get``; ``fetch_head(number)`` brings ``refs/pull/<number>/head``."""
    if rules is None:
        return None
    entry = queue_entry(head_ref)
    if entry is None:
        return unreadable(head_sha, f"the merge group's branch {head_ref} names no queued pull request")
    if entry.parent != base_sha.lower():
        return unreadable(
            head_sha,
            f"the merge group holds more than pull request #{entry.number} (its entry is stacked on "
            f"{entry.parent[:12]}, not on the base {base_sha[:12]}): approvals are carried only for a "
            "group of one pull request; queue an approved oracle change alone",
        )
    try:
        queued = pull(entry.number)
        fetch_head(entry.number)
        why = _not_the_pull(git, base_sha, queued.head, head_sha)
    except (GateError, PublishError) as exc:
        return unreadable(head_sha, f"pull request #{entry.number} of the merge group: {exc}")
    if why:
        return unreadable(head_sha, f"the merge group is not pull request #{entry.number}'s change: {why}")
    return read_approvals(source, rules, number=entry.number, author=queued.author, head=queued.head)


def _not_the_pull(git: Git, base: str, pull_head: str, group_head: str) -> str:
    """Why the group's tree is not ``pull_head`` merged onto ``base`` (empty: it is)."""
    if not git.has_commit(pull_head):
        return f"its head {pull_head[:12]} could not be fetched"
    merged = git.run(["merge-tree", "--write-tree", base, pull_head], ok_codes=(0, 1))
    if merged.returncode != 0:
        return f"its head {pull_head[:12]} does not merge onto the base without conflicts"
    tree = merged.stdout.decode().split("\n", 1)[0].strip()
    group_tree = git.run(["rev-parse", "--verify", "--end-of-options", f"{group_head}^{{tree}}"])
    if tree != group_tree.stdout.decode().strip():
        return f"the group's tree is not its head {pull_head[:12]} merged onto the base"
    return ""
