"""Contract v3.9.2: a merge group judged with the approvals of each pull request in it, on that pull
request's head, in both front doors.

GitHub names a merge group's branch ``gh-readonly-queue/<base>/pr-<number>-<parent sha>``: the
queue entry of pull request ``<number>``, stacked on ``<parent sha>`` (the base's tip, or the entry
ahead of it). Approvals are carried only where the gate can check whose change each entry is:

- a group of one pull request (its entry sits on the base): the group's tree is exactly that pull
  request's head (as ``pulls/get`` gives it now: a push takes it out of the queue) merged onto the
  base; its approvals are passed as a pull request's are;
- a group of several: the group's first-parent chain from its head down to the base is walked, one
  queue commit per entry (at most :data:`MAX_ENTRIES`); the last is the entry the branch names, and
  its parent must be the ``<parent sha>`` the branch names. An earlier entry's pull request number
  is read from its queue commit's subject as GitHub writes it (``Merge pull request #N from …`` or
  ``… (#N)``), but only as a candidate: nothing a pull request writes is trusted, because each
  entry's tree must be exactly that pull request's head now merged onto the entry before it. Each
  pull request's approvals are then read on its own head, and the core (:func:`oracle_gate.judge.
  approvals.queue_makers`) approves the group's oracle change only when every pull request whose
  entry makes one has enough approvers of its own.

Anything else (a chain that does not lead to the base, an entry that names no pull request, a tree
that differs, the same pull request twice, approvals that could not be read) carries no approval
and says why, as approvals that could not be read do: the verdict is judged without them (fail
closed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from oracle_gate.errors import GateError, PublishError
from oracle_gate.git import Git
from oracle_gate.judge.approvals import ApprovalRules, ApprovalsSeen, QueuedApprovals
from oracle_gate.review.approvals import ApprovalsRead, ReviewSource, read_approvals, unreadable

#: GitHub's merge queue builds groups of at most 100 pull requests.
MAX_ENTRIES = 100

_ENTRY = re.compile(
    r"refs/heads/gh-readonly-queue/(?P<base>.+)/pr-(?P<number>[1-9][0-9]{0,9})-(?P<parent>[0-9a-f]{40})"
)
_SUBJECT_NUMBER = re.compile(
    r"Merge pull request #(?P<merge>[1-9][0-9]{0,9}) .*|.*\(#(?P<squash>[1-9][0-9]{0,9})\)"
)


@dataclass(frozen=True)
class QueueEntry:
    """The pull request a merge group's branch names, and the commit its entry is stacked on."""

    number: int
    parent: str
    base: str = ""  # the base branch's name


@dataclass(frozen=True)
class QueuedPull:
    """What ``pulls/get`` says of the queued pull request now."""

    head: str
    author: str
    base: str = ""  # the base branch's name


def queue_entry(head_ref: str) -> QueueEntry | None:
    """The entry ``merge_group.head_ref`` names (None: not a queue branch GitHub names)."""
    found = _ENTRY.fullmatch(head_ref)
    return None if found is None else QueueEntry(int(found["number"]), found["parent"], found["base"])


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
        return _stacked_approvals(
            git, source, rules, entry, base_sha=base_sha, head_sha=head_sha, pull=pull, fetch_head=fetch_head
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


@dataclass(frozen=True)
class Step:
    """One queue entry of a group's first-parent chain: its commit and the commit it is stacked on."""

    parent: str
    commit: str


def queue_steps(git: Git, base: str, head: str) -> tuple[list[Step], str]:
    """The group's first-parent chain from ``base`` (exclusive) to ``head``, oldest first, or why it
    is not a chain of queue entries on the base."""
    listed = git.run(
        ["log", "--first-parent", f"--max-count={MAX_ENTRIES + 1}", "--format=%H %P", head, f"^{base}"]
    )
    steps: list[Step] = []
    for line in reversed(listed.stdout.decode().splitlines()):
        commit, *parents = line.split()
        steps.append(Step(parents[0] if parents else "", commit))
    if len(steps) > MAX_ENTRIES:
        return [], f"its history holds more than {MAX_ENTRIES} entries above the base"
    expected = base.lower()
    for step in steps:
        if step.parent != expected:
            return [], f"its first-parent history from {head[:12]} does not lead to the base {base[:12]}"
        expected = step.commit
    if not steps or expected != head.lower():
        return [], f"its head {head[:12]} is not above the base {base[:12]}"
    return steps, ""


def subject_number(git: Git, commit: str) -> int | None:
    """The pull request number a queue commit's subject names as GitHub writes it (a candidate only:
    the entry's tree decides)."""
    subject = git.run(["log", "-1", "--format=%s", commit]).stdout.decode().strip()
    found = _SUBJECT_NUMBER.fullmatch(subject)
    if found is None:
        return None
    return int(found["merge"] or found["squash"])


def entry_numbers(git: Git, steps: list[Step], entry: QueueEntry) -> tuple[list[int], str]:
    """The candidate pull request of each entry, or why some entry names none."""
    if steps[-1].parent != entry.parent:
        return [], (
            f"the branch names the entry ahead as {entry.parent[:12]}, but the group's head is stacked "
            f"on {steps[-1].parent[:12]}"
        )
    numbers: list[int] = []
    for step in steps[:-1]:
        number = subject_number(git, step.commit)
        if number is None:
            return [], f"its entry {step.commit[:12]} names no pull request"
        numbers.append(number)
    numbers.append(entry.number)
    if len(set(numbers)) != len(numbers):
        return [], "it names the same pull request twice"
    return numbers, ""


def _stacked_approvals(
    git: Git,
    source: ReviewSource,
    rules: ApprovalRules,
    entry: QueueEntry,
    *,
    base_sha: str,
    head_sha: str,
    pull: Callable[[int], QueuedPull],
    fetch_head: Callable[[int], None],
) -> ApprovalsRead:
    """v3.9.2 for a group of several pull requests: each entry attributed and checked, each pull
    request's approvals read on its own head (the core decides which of them must approve)."""
    try:
        steps, why = queue_steps(git, base_sha, head_sha)
        numbers, why = entry_numbers(git, steps, entry) if not why else ([], why)
    except GateError as exc:
        return unreadable(head_sha, f"the merge group's history could not be read: {exc}")
    if why:
        return unreadable(head_sha, f"the merge group's entries cannot be attributed: {why}")
    queued: list[QueuedApprovals] = []
    reads: list[ApprovalsRead] = []
    for number, step in zip(numbers, steps, strict=True):
        try:
            pulled = pull(number)
            fetch_head(number)
            why = _not_the_pull(git, step.parent, pulled.head, step.commit)
            if not why and pulled.base != entry.base:
                why = f"it targets {pulled.base!r}, not the group's base {entry.base!r}"
            paths = changed_paths(git, step) if not why else frozenset()
        except (GateError, PublishError) as exc:
            return unreadable(head_sha, f"pull request #{number} of the merge group: {exc}")
        if why:
            return unreadable(
                head_sha,
                f"the merge group's entry {step.commit[:12]} is not pull request #{number}'s change: {why}",
            )
        read = read_approvals(source, rules, number=number, author=pulled.author, head=pulled.head)
        if read.approvals is None:
            return unreadable(head_sha, f"pull request #{number} of the merge group: {read.seen.unreadable}")
        reads.append(read)
        queued.append(
            QueuedApprovals(
                number, pulled.author, pulled.head, read.approvals, paths,
                read.base_changed_at, read.author_permission,
            )
        )  # fmt: skip
    last = reads[-1]
    seen = ApprovalsSeen(
        head=last.head,
        stale=tuple(a for r in reads for a in r.seen.stale),
        stale_base=tuple(a for r in reads for a in r.seen.stale_base),
        base_changed_at=last.seen.base_changed_at,
        unknown_teams=tuple(sorted({t for r in reads for t in r.seen.unknown_teams})),
    )
    return ApprovalsRead((), last.author, last.head, seen, queued=tuple(queued))


def changed_paths(git: Git, step: Step) -> frozenset[str]:
    """The paths one entry changed (a rename as its two sides)."""
    listed = git.run(["diff", "--no-renames", "--name-only", "-z", step.parent, step.commit, "--"])
    return frozenset(p for p in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if p)
