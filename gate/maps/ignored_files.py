"""``map --copy-ignored PATH``: files the build writes and git ignores, copied into the map's worktree.

A fresh ``git worktree`` of the parent has only tracked files. A version file written at build time
(``_version.py`` from hatch-vcs or setuptools-scm) is git-ignored, so the package fails to import
there, or a test of it fails only under ``map``, and the map is flagged. Two ways out were possible:

* install the worktree (``pip install -e``) so the build backend writes the file again: that runs
  the parent's build backend (arbitrary code, build dependencies from the network) in the user's
  environment and re-points that environment's install of the project to a directory about to be
  deleted;
* copy the named files from the checkout ``map`` runs from: offline, instant, and exactly the files
  named enter the worktree. This is what ``map`` does.

A named path must be relative, inside the repository, a regular file (no symlink), ignored by git
in the checkout, and not a file of the commit measured: copying may add what the build would have
written, never replace what the parent contains. Anything else is a usage error naming the path.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from oracle_gate.errors import UsageError
from oracle_gate.git import Git


def copy_ignored(git: Git, sha: str, tree: Path, paths: Sequence[str]) -> list[str]:
    """Copy each of ``paths`` from ``git``'s checkout into ``tree``; returns them (checked first, all)."""
    wanted = [_relative(p) for p in paths]
    if not wanted:
        return []
    tracked = git.existing_files(sha, wanted)
    ignored = _ignored(git, wanted)
    for rel in wanted:
        source = git.repo / rel
        if rel in tracked:
            raise UsageError(
                f"--copy-ignored {rel}: the commit measured has this file; only what git ignores is copied"
            )
        if source.is_symlink() or not source.is_file():
            raise UsageError(f"--copy-ignored {rel}: no such regular file in {git.repo}")
        if rel not in ignored:
            raise UsageError(
                f"--copy-ignored {rel}: git does not ignore it in {git.repo} (commit it, or ignore it)"
            )
    root = tree.resolve()
    for rel in wanted:
        target = tree / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(root) or target.is_symlink():
            raise UsageError(f"--copy-ignored {rel}: the commit measured links this path out of its worktree")
        shutil.copyfile(git.repo / rel, target)
    return wanted


def _relative(path: str) -> str:
    pure = PurePosixPath(path.replace("\\", "/"))
    if not path or pure.is_absolute() or ".." in pure.parts or str(pure) in ("", "."):
        raise UsageError(f"--copy-ignored {path!r}: give a path relative to the repository, inside it")
    return str(pure)


def _ignored(git: Git, paths: Sequence[str]) -> set[str]:
    """Those of ``paths`` that git ignores in the checkout (``git check-ignore``; exit 1: none)."""
    payload = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    out = git.run(["check-ignore", "-z", "--stdin"], stdin=payload, ok_codes=(0, 1)).stdout
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}


_NO_MODULE = r"No module named '([A-Za-z_][\w.]*)'"


def ignored_module_cause(git: Git, sha: str, tail: str) -> str | None:
    """The run failed because a module whose file git ignores is missing from the map's worktree (a
    ``_version.py`` that setuptools-scm or hatch-vcs writes at build time): one clause naming the file
    and ``--copy-ignored``, or None. The file is looked for where the module would be, at the top of
    the repository and under ``src/``; it must be ignored by git and not a file of the commit."""
    missing = re.search(_NO_MODULE, tail)
    if missing is None:
        return None
    module = missing.group(1)
    stem = module.replace(".", "/")
    candidates = [f"{base}{stem}{end}" for base in ("", "src/") for end in (".py", "/__init__.py")]
    ignored, tracked = _ignored(git, candidates), git.existing_files(sha, candidates)
    for rel in candidates:
        if rel in ignored and rel not in tracked:
            first = (
                ""
                if (git.repo / rel).is_file()
                else "build it in the checkout (e.g. pip install -e .), then "
            )
            return (
                f"the tests cannot import {module}: {rel} is ignored by git (a file the build writes), so "
                f"the map's worktree of the commit does not have it; {first}pass --copy-ignored {rel}"
            )
    return None
