"""How resolving a changed symlink scales with the depth of its target (issue 27, TRUST 8).

A pull request may add links whose targets have thousands of segments (the target cap is 4,096
bytes, so about 2,000 one-letter segments). The resolver walks such a target one segment at a time
through head's tree; each step asks ``HeadTree.lookup``. Before issue 27 a lookup rebuilt every
prefix of its path, so one 2,000-segment target took about 22 s (cubic in the depth); now each lookup
walks the path's segments once.

Builds a real repository whose head adds one link per depth, and times ``read_links`` (the read
side ``check`` runs) on each, in this process:

    .venv/bin/python bench/link_depth.py [--depths 250,500,1000,2000] [--runs 3]

Figures are printed, not asserted: seconds per depth and the ratio between successive depths
(about 2 for linear work per lookup over a walk of ``depth`` steps would be 4: quadratic overall in
the depth is what the resolver's own path joins cost; cubic was 8).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from oracle_gate.check import read_changes, read_links
from oracle_gate.git import Git


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout


def repository_with_link(root: Path, depth: int) -> tuple[Path, str, str]:
    """A repository whose head adds ``link`` pointing ``depth`` segments into a missing tree."""
    repo = root / f"depth-{depth}"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "README").write_text("x\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "parent")
    parent = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "link").symlink_to("/".join(["a"] * depth))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "head")
    return repo, parent, _git(repo, "rev-parse", "HEAD").strip()


def seconds_to_resolve(repo: Path, parent: str, head: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        git = Git(repo)
        changes = read_changes(git, parent, head)
        start = time.perf_counter()
        resolved = read_links(git, head, changes)
        best = min(best, time.perf_counter() - start)
        assert "link" in resolved
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="250,500,1000,2000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        previous: float | None = None
        print(f"{'depth':>6} {'seconds':>9} {'ratio to previous':>18}")
        for depth in depths:
            repo, parent, head = repository_with_link(Path(tmp), depth)
            seconds = seconds_to_resolve(repo, parent, head, args.runs)
            ratio = f"{seconds / previous:.2f}" if previous else "-"
            print(f"{depth:>6} {seconds:>9.4f} {ratio:>18}")
            previous = seconds


if __name__ == "__main__":
    main()
