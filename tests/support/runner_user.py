"""What the runner's user (the workspace's owner, not root) does after the Docker action ran.

../shared/spec/TRUST.md invariant 10: what the action writes into the workspace is readable by
that user afterwards and leaves no root-owned state that breaks later steps. The checks here run
real commands as that uid: the fork-safe stage 1 copies verdict.json; a later step commits, and
``git gc`` packs the refs the action fetched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.project import OTHER_UID


def as_runner_user(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run ``args`` in ``cwd`` as OTHER_UID (no supplementary groups), with a clean environment."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LC_ALL": "C",
        "GIT_AUTHOR_NAME": "runner",
        "GIT_AUTHOR_EMAIL": "runner@example.invalid",
        "GIT_COMMITTER_NAME": "runner",
        "GIT_COMMITTER_EMAIL": "runner@example.invalid",
    }
    return subprocess.run(
        args,
        cwd=cwd,
        env=env,
        user=OTHER_UID,
        group=OTHER_UID,
        extra_groups=[],
        capture_output=True,
        text=True,
        check=False,
    )


def foreign_entries(root: Path) -> list[str]:
    """Paths under ``root`` (itself included) not owned by OTHER_UID."""
    found = [] if root.lstat().st_uid == OTHER_UID else ["."]
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath, name)
            if path.lstat().st_uid != OTHER_UID:
                found.append(str(path.relative_to(root)))
    return sorted(found)


def assert_usable_by_runner_user(workspace: Path, *, private_ref: str | None = None) -> None:
    """verdict.json can be read and copied, and the repository used, by the runner's user."""
    home = Path(tempfile.mkdtemp(prefix="runner-home-"))  # under /tmp: reachable by that user
    os.chown(home, OTHER_UID, OTHER_UID)
    try:
        _check(workspace, home, private_ref)
    finally:
        shutil.rmtree(home)


def _let_reach(path: Path) -> None:
    """pytest's temporary folders are 0700 (and a pytest session starting meanwhile resets
    /tmp/pytest-of-root to 0700): let the runner's user traverse them, again before each command."""
    for parent in path.parents:
        mode = parent.stat().st_mode
        if not mode & 0o001:
            parent.chmod(mode | 0o001)


def _check(workspace: Path, home: Path, private_ref: str | None) -> None:
    def ok(*args: str) -> str:
        _let_reach(workspace)
        proc = as_runner_user(list(args), workspace, home)
        assert proc.returncode == 0, f"as uid {OTHER_UID}: {' '.join(args)}: {proc.stderr.strip()}"
        return proc.stdout

    ok("cp", "verdict.json", str(home / "verdict-copy.json"))  # the fork-safe stage 1
    assert (workspace / "verdict.json").stat().st_mode & 0o044 == 0o044, "verdict.json: not world-readable"
    assert foreign_entries(workspace / ".git") == [], "root-owned state left in .git"
    ok("git", "status", "--porcelain")
    ok("git", "commit", "--quiet", "--allow-empty", "-m", "a later step commits")
    if private_ref is not None:
        ok("git", "update-ref", "-d", private_ref)
    ok("git", "gc", "--quiet", "--prune=now")
    ok("git", "fsck", "--no-progress")
