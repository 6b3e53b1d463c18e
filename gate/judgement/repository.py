"""What the sequence asks of a door's git repository, answered alike in both doors."""

from __future__ import annotations

from pathlib import Path

from oracle_gate.git import Git
from oracle_gate.judge.approvals import ApprovalRules
from oracle_gate.review.approvals import parent_rules
from oracle_gate.review.budget import changed_bytes


class GitAnswers:
    """The git half of a :class:`~oracle_gate.judgement.ports.MergeLook` (both doors' looks extend it)."""

    def __init__(self, git: Git) -> None:
        self._git = git

    @property
    def git(self) -> Git:
        return self._git

    @property
    def repo(self) -> Path:
        return self._git.repo

    def approval_rules(self, parent: str) -> ApprovalRules | None:
        return parent_rules(self._git, parent)

    def changed_bytes(self, parent: str, merge: str) -> int:
        return changed_bytes(self._git, parent, merge)
