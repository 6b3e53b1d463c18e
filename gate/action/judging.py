"""The verdict of a pull request: its test merge judged against its first parent with the parent's map.

The map is ``coverage-file`` (refused when the pull request itself supplied it), else one built
with ``coverage-command`` on the parent, else none (the core then reports ``oracle_incomplete``).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import tempfile
from pathlib import Path

from gate import files
from gate.action.context import Context
from gate.action.events import PullRequestRef
from gate.action.merge_commit import Commits, MergeFinder
from gate.check import CheckRequest, run_check
from gate.errors import UsageError
from gate.judge.verdict import Verdict
from gate.maps.read import MANIFEST_SUFFIX


def judge_pull_request(ctx: Context, pr: PullRequestRef, head_sha: str, *, use_event_sha: bool) -> Verdict:
    """The verdict of the test-merge commit against its first parent. Raises GateError."""
    finder = MergeFinder(ctx.config, ctx.git, ctx.log, ctx.sleep, ctx.publisher)
    commits = finder.commits(pr, head_sha, use_event_sha=use_event_sha)
    ctx.log.line(
        f"oracle-gate: judging pull request #{pr.number}: test merge {commits.merge[:12]} against its "
        f"first parent {commits.parent[:12]} (head {head_sha[:12]})"
    )
    with tempfile.TemporaryDirectory(prefix="oracle-gate-action-") as tmp:
        coverage = parent_map(ctx, commits, Path(tmp))
        request = CheckRequest(
            repo=ctx.config.repo_dir,
            base=commits.parent,
            head=commits.merge,
            coverage=coverage,
            coverage_sha=ctx.config.coverage_sha if ctx.config.coverage_file else None,
            extra_protected=ctx.config.protected,
            allow_failing_parent=ctx.config.allow_failing_parent,
        )
        return run_check(request, ctx.git)


def parent_map(ctx: Context, commits: Commits, scratch: Path) -> Path | None:
    """The parent's map: ``coverage-file``, else one built with ``coverage-command``, else none."""
    config = ctx.config
    if config.coverage_file:
        path = config.repo_dir / config.coverage_file
        for candidate in (path, path.with_name(path.name + MANIFEST_SUFFIX)):
            refuse_if_from_change(ctx, candidate, commits)
        return path
    if config.coverage_command:
        try:
            argv = shlex.split(config.coverage_command)
        except ValueError as exc:
            raise UsageError(f"input 'coverage-command' cannot be split into words: {exc}") from exc
        ctx.log.line(f"oracle-gate: building the parent's map with: {shlex.join(argv)}")
        result = ctx.map_builder(ctx.git, commits.parent, scratch / "parent.coverage", argv)
        ctx.log.line(
            f"oracle-gate: mapped {result.tests} test(s) of {commits.parent[:12]} in {result.seconds:.1f}s"
        )
        return result.manifest
    return None


def refuse_if_from_change(ctx: Context, path: Path, commits: Commits) -> None:
    """Under ``pull_request`` the workspace is the pull request's checkout: a map file there that
    is exactly the pull request's own version of a tracked file (or a symlink the change made,
    or one resolving to such a file) came from the change, not from the workflow, and would let
    a change vouch for itself."""
    for rel, on_disk in as_git_sees(path, ctx.config.repo_dir):
        head_blob = ctx.git.read_blob(commits.merge, f"./{rel}")
        if (
            head_blob is None
            or on_disk != head_blob
            or ctx.git.read_blob(commits.parent, f"./{rel}") == head_blob
        ):
            continue
        raise UsageError(
            f"coverage file {rel} is the pull request's own version of that file, not a map made by "
            "the workflow; refusing to let the change supply its own map"
        )


def as_git_sees(path: Path, repo_dir: Path) -> list[tuple[str, bytes]]:
    """``path`` as repo-relative paths with the bytes git would store there: the symlink itself
    (its target) when it is one, and the file it resolves to. Paths outside the repository and
    absent files are left out (the core reports a missing map)."""
    repo = Path(os.path.abspath(repo_dir))
    named = Path(os.path.abspath(path))
    views: list[tuple[str | None, bytes]] = []
    if named.is_symlink():
        views.append((_inside(named, repo), os.readlink(named).encode("utf-8", "surrogateescape")))
    with contextlib.suppress(OSError):  # absent: the core reports the missing map
        data = files.read_bounded(named, files.MAX_MAP_BYTES)  # refused: a device, a FIFO, too large
        views.append((_inside(named.resolve(), repo.resolve()), data))
    return [(rel, data) for rel, data in views if rel is not None]


def _inside(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None
