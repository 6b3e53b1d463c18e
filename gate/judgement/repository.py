"""What the sequence asks of a door's git repository, answered alike in both doors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from oracle_gate.git import Git
from oracle_gate.judge.approvals import ApprovalRules
from oracle_gate.review.approvals import parent_rules
from oracle_gate.review.budget import changed_bytes


class GitAnswers:
    """The git half of a :class:`~oracle_gate.judgement.ports.MergeLook` (both doors' looks extend it).

    ``git`` is a repository, or how to open one (the bot's mirror: opened on first use, inside the
    judgement, so a mirror that cannot be opened is a judgement not made, said on the check)."""

    def __init__(self, git: Git | Callable[[], Git]) -> None:
        self._open: Callable[[], Git] = (lambda: git) if isinstance(git, Git) else git
        self._git: Git | None = None

    @property
    def git(self) -> Git:
        if self._git is None:
            self._git = self._open()
        return self._git

    @property
    def repo(self) -> Path:
        return self.git.repo

    def approval_rules(self, parent: str) -> ApprovalRules | None:
        return parent_rules(self.git, parent)

    def changed_bytes(self, parent: str, merge: str) -> int:
        return changed_bytes(self.git, parent, merge)
