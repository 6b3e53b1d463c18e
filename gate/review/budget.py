"""The size of a change, asked of git before anything of it is read (TRUST.md invariant 8).

Judging holds both sides of every changed file in memory (about nine times the changed bytes), so
the bot refuses to read a change past its budget (setting ``max-changed-bytes``): the core then
makes the verdict ``unscored`` (:func:`oracle_gate.judge.withheld.change_too_large`). Only object sizes
are asked (``git cat-file --batch-check``); no blob is read here.
"""

from __future__ import annotations

from oracle_gate.git import Git

GITLINK = "160000"  # a submodule's commit: no blob to read


def changed_bytes(git: Git, parent: str, head: str) -> int:
    """The bytes of both sides of every file changed from ``parent`` to ``head``."""
    shas = {
        sha
        for change in git.changes(parent, head)
        for sha, mode in ((change.old_sha, change.old_mode), (change.new_sha, change.new_mode))
        if sha and mode != GITLINK
    }
    return sum(size or 0 for size in git.sizes(sorted(shas)))
