"""What contract v2's read-side work costs on a large change, and the memory of one 100 MB file pair.

1. A change touching 200 Python files of 2,000 lines each (every 20th line edited, a function
   added at the end): the read side and the verdict are run in a child process, with the v2
   read-side work (module-shadowing candidates asked of the parent tree, symlink resolution
   through head, the parent's addopts) and without it (``read_changes(v2_reads=False)``, no
   links, no addopts), interleaved; wall time and peak RSS (the child and its git children).
2. The real CLI on one 100 MB file changed into another 100 MB file: v2 judges it without a diff
   (sizes first, lines streamed), so peak memory stays bounded by the blob cap, not the change.

    .venv/bin/python bench/v2_change.py [--runs 5] [--keep DIR]

Figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILES = 200
LINES = 2_000
BIG_BYTES = 100 * 1024 * 1024

DRIVER = """
import sys
from pathlib import Path
from oracle_gate.check import read_addopts, read_changes, read_links
from oracle_gate.git import Git
from oracle_gate.judge.freeze import Freeze
from oracle_gate.judge.lock import FixtureLock
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.policy import Policy
from oracle_gate.judge.verdict import Evidence, Provenance, evaluate

repo, parent, head, v2 = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
git = Git(Path(repo))
changes = read_changes(git, parent, head, v2_reads=v2)
verdict = evaluate(
    Evidence(
        changes=changes, policy=Policy(), freeze=Freeze(), lock=FixtureLock(), locked_blobs={},
        coverage=ParentCoverage(observers={}, digest="0" * 64), protocol=Provenance(),
        addopts=read_addopts(git, parent) if v2 else "",
        links=read_links(git, head, changes) if v2 else {},
    )
)
print(verdict.verdict, verdict.touched_count)
"""


def git(repo: Path, *args: str) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    proc = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def module(index: int, edited: bool) -> str:
    out = []
    for n in range(1, LINES + 1):
        if n % 4 == 1:
            out.append(f"def f{index}_{n}(x):")
        elif edited and n % 20 == 2:
            out.append(f"    return x - {n}  # edited")
        else:
            out.append(f"    return x + {n}" if n % 4 == 2 else "")
    if edited:
        out += ["def added(x):", "    return x"]
    return "\n".join(out) + "\n"


def build_large_change(root: Path) -> tuple[Path, str, str]:
    repo = root / "large"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for i in range(FILES):
        (repo / "src" / f"m{i:03d}.py").parent.mkdir(exist_ok=True)
        (repo / "src" / f"m{i:03d}.py").write_text(module(i, edited=False))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "parent")
    parent = git(repo, "rev-parse", "HEAD")
    for i in range(FILES):
        (repo / "src" / f"m{i:03d}.py").write_text(module(i, edited=True))
    git(repo, "commit", "-q", "-am", "head")
    return repo, parent, git(repo, "rev-parse", "HEAD")


def build_big_pair(root: Path) -> tuple[Path, str, str]:
    repo = root / "big"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    line = b"x" * 63 + b"\n"
    (repo / "big.txt").write_bytes(line * (BIG_BYTES // len(line)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "parent")
    parent = git(repo, "rev-parse", "HEAD")
    (repo / "big.txt").write_bytes(b"y" * 63 + b"\n" + line * (BIG_BYTES // len(line) - 1))
    git(repo, "commit", "-q", "-am", "head")
    return repo, parent, git(repo, "rev-parse", "HEAD")


def measure(cmd: list[str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in bytes of the process and its children, first stdout line)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1, 2):
        raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {err.decode()[-500:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return elapsed, peak, (out.decode().splitlines() or [""])[0]


def one_child(cmd: list[str]) -> tuple[float, int, str]:
    """measure() in a fresh interpreter, so RUSAGE_CHILDREN holds this run alone."""
    code = (
        "import sys, json; sys.path.insert(0, 'bench'); from v2_change import measure; "
        f"print(json.dumps(measure({cmd!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, text=True).stdout
    elapsed, peak, first = json.loads(out)
    return float(elapsed), int(peak), str(first)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build in this directory and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="oracle-gate-v2-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        repo, parent, head = build_large_change(root)
        results: dict[str, list[tuple[float, int, str]]] = {"with v2": [], "without v2": []}
        for _ in range(args.runs):
            for label, flag in (("with v2", "1"), ("without v2", "0")):
                cmd = [sys.executable, "-c", DRIVER, str(repo), parent, head, flag]
                results[label].append(one_child(cmd))
        print(f"change: {FILES} Python files x {LINES} lines, every 20th line edited, a function added")
        print(f"{'':>11} {'median s':>9} {'min s':>7} {'peak MB':>8}  verdict, touched lines")
        for label, runs in results.items():
            print(
                f"{label:>11} {statistics.median(r[0] for r in runs):>9.3f} {min(r[0] for r in runs):>7.3f} "
                f"{max(r[1] for r in runs) / 2**20:>8.1f}  {runs[0][2]}"
            )
        repo, parent, head = build_big_pair(root)
        cli = [
            sys.executable,
            "-m",
            "oracle_gate",
            "check",
            "--repo",
            str(repo),
            "--base",
            parent,
            "--head",
            head,
        ]
        elapsed, peak, _ = one_child([*cli, "--format", "json", "--output", os.devnull])
        size = BIG_BYTES // 2**20
        print(f"\none {size} MB file pair through the CLI: {elapsed:.2f} s, peak {peak / 2**20:.1f} MB")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
