"""What the judgement asks of a front door (typing.Protocol ports) and the values it hands back.

Each port is one kind of thing the door has and the sequence does not: GitHub's pull requests
(:class:`Pulls`), a look at the test merge in a repository (:class:`MergeLook`), the parent's map
(:class:`ParentMaps`), a judge under the door's limits (:class:`Judge`), and the two write sides
(:class:`Checks`, :class:`Comments`). Fakes of these make the sequence's unit tests (milliseconds),
and the same fakes behind both doors' adapters are the parity rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from oracle_gate.git import Git
from oracle_gate.github.defaults import CommentMode
from oracle_gate.github.pulls import PullInfo
from oracle_gate.github.values import (
    CheckContent,
    CheckResult,
    CheckTarget,
    CommentResult,
    StickyComment,
)
from oracle_gate.judge.approvals import ApprovalRules
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.verdict import Verdict
from oracle_gate.review.approvals import ApprovalsRead, ReviewSource
from oracle_gate.review.freshness import Sighting

# -- what is asked -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PullRequestAsked:
    """A pull request to judge: ``head`` and ``base_ref`` when the event says them (else ``pulls/get``
    is asked), ``base_changed_at`` the base change the door heard of itself (v3.9.1)."""

    number: int
    head: str | None = None
    base_ref: str | None = None
    base_changed_at: datetime | None = None


@dataclass(frozen=True)
class MergeGroupAsked:
    """A merge queue's group: its commit ``head_sha`` on ``head_ref``, built on ``base_sha`` of
    ``base_ref`` (a branch name, ``refs/heads/`` already removed)."""

    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str | None  # None: not known (then not an allowed base)


Asked = PullRequestAsked | MergeGroupAsked


# -- the parent's map --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParentMap:
    """The parent's map as the door has it: ``manifest`` (with ``coverage_sha``, the digest the door
    was told to expect), or why there is none. ``refused``: a map the door was given but may not
    use (:mod:`oracle_gate.action.map_trust`), the problems saying why; ``missing``: the door's own
    words for no map (the bot's store), None when the core's own reason says enough; ``waiting``:
    the map may still come (the pull request is judged again when it does)."""

    manifest: Path | None = None
    coverage_sha: str | None = None
    refused: tuple[Problem, ...] = ()
    missing: str | None = None
    waiting: bool = False

    @property
    def usable(self) -> Path | None:
        """The map to read, None when there is none or it was refused."""
        return None if self.refused else self.manifest


@dataclass(frozen=True)
class Facts:
    """Everything one judgement is asked, picklable (the bot sends it to a child process)."""

    repo: Path
    parent: str
    merge: str
    parent_map: ParentMap
    approvals: ApprovalsRead | None = None
    extra_protected: tuple[str, ...] = ()
    allow_failing_parent: bool = False


# -- the ports ---------------------------------------------------------------------------------------


class Pulls(Protocol):
    """GitHub's pull requests (``pulls/get`` and what the approvals and commands read)."""

    def pull_request(self, number: int) -> PullInfo: ...

    def commit_parents(self, sha: str) -> tuple[str, ...]: ...

    def review_reader(self) -> ReviewSource: ...

    def permission_of(self, login: str) -> str: ...


class MergeLook(Protocol):
    """The door's repository: looks at a pull request's test merge (one look each call, for
    :func:`oracle_gate.review.freshness.fresh_merge`), brings a merge group's commits, and a queued
    pull request's head (v3.9.2). ``git`` holds every commit a look brought; what the sequence asks
    of it goes through :meth:`approval_rules` and :meth:`changed_bytes` (both doors:
    :class:`oracle_gate.judgement.repository.GitAnswers`), so the sequence's tests fake no git."""

    @property
    def git(self) -> Git: ...

    @property
    def repo(self) -> Path: ...

    def approval_rules(self, parent: str) -> ApprovalRules | None:
        """The parent's ``[approvals]`` table (None: none, or a policy the judgement reports broken)."""
        ...

    def changed_bytes(self, parent: str, merge: str) -> int:
        """Both sides of every changed file, asked of git before anything is read (TRUST.md 8)."""
        ...

    @property
    def looks(self) -> int:
        """How many looks a fresh merge gets (1 for a merge that cannot change: the Action's event's)."""
        ...

    def look(self, number: int, head: str) -> Sighting: ...

    def group_commits(self, group: MergeGroupAsked) -> tuple[str, str]:
        """(merge, parent): the group's commit and its base, present with their history."""
        ...

    def fetch_pull_head(self, number: int) -> None: ...


class ParentMaps(Protocol):
    def find(self, parent: str) -> ParentMap:
        """The parent's map, or why there is none (never raises for a map that is just not there)."""
        ...


class Judge(Protocol):
    def judge(self, facts: Facts) -> Verdict:
        """The verdict on ``facts`` under the door's limits (a limit reached is a verdict)."""
        ...


class Checks(Protocol):
    """The check runs (over :class:`oracle_gate.github.checks.Checks`, where a :class:`CheckTarget`
    is defined)."""

    def publish(self, content: CheckContent, target: CheckTarget) -> CheckResult:
        """Post the check (never raises: what was not posted is in the result)."""
        ...


class Comments(Protocol):
    """The comments (over :class:`oracle_gate.github.comments.Comments`)."""

    def sticky(self, pr_number: int, comment: StickyComment | None) -> CommentResult:
        """Create or update the sticky comment (never raises: a failure is in the result)."""
        ...

    def reply(self, issue_number: int, body: str) -> int | None:
        """A plain comment; its id, None when it could not be posted."""
        ...

    def react(self, issue_number: int, comment_id: int, reaction: str) -> None:
        """A reaction on a command's comment (a failure is only logged)."""
        ...


# -- the door's settings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """The shared settings one judgement runs under (:mod:`oracle_gate.review.settings`)."""

    check_name: str
    allowed_bases: Sequence[str] = ()
    default_branch: str | None = None
    max_changed_bytes: int | None = None  # None: no budget (both doors have one)
    merge_wait: float = 0.0
    max_annotations: int = 50
    comment: CommentMode = CommentMode.ALWAYS
    extra_protected: tuple[str, ...] = ()
    allow_failing_parent: bool = False


# -- what is handed back -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """A verdict on ``merge`` against ``parent``; the check goes on ``head`` under ``check_name``."""

    verdict: Verdict
    parent: str
    merge: str
    head: str
    check_name: str
    number: int | None  # None: a merge group (no comment)
    parent_map: ParentMap = field(default_factory=ParentMap)
    approvals: ApprovalsRead | None = None
    seconds: float = 0.0

    @property
    def had_map(self) -> bool:
        return self.parent_map.usable is not None


@dataclass(frozen=True)
class NotJudged:
    """No verdict could be made (a stale merge, a missing commit, git failing): a ``failure`` check
    on ``head`` says why; ``head`` None: not even the head is known (nothing can be posted)."""

    why: str
    head: str | None
    check_name: str
    number: int | None = None


@dataclass(frozen=True)
class Superseded:
    """The pull request moved on (its head is not the one asked about): a newer event judges it."""

    why: str


Judgement = Judged | NotJudged | Superseded
