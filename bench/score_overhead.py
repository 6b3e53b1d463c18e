"""What the scoring run costs, against running the same suite twice without it (target <= 1.15x).

For each suite (the generated one of bench/map_overhead.py, 24 modules and 360 tests, and optionally
real sdist suites, the same ones map_overhead materializes) in a git repository: the parent is
mapped once (``oracle-gate map``), head changes one line of one module, and then, interleaved round
by round so that a noisy shared machine hurts all alike:

* ``plain``  ``python -m pytest -q -p no:cacheprovider`` in the checkout (one run; the target
  compares with two of them, since the score runs the suite twice);
* ``score``  ``oracle-gate score`` (diff verdict, a fresh worktree, two runs with the gate's
  plugin: freeze filter, ordering, per-test seeding, outcome recording).

CPU is user+system time of the whole process tree (``os.wait4``). Every ratio is the median over
rounds of that round's ``score / (2 x plain)``, with its spread. Then the sandbox's start-up cost:
``bwrap`` around ``true`` and around ``python -c pass``, against the same commands bare (wall time,
median of ``--repeat`` x 4). Figures are printed, never asserted::

    .venv/bin/python bench/score_overhead.py [--repeat 5] [--suites generated,more-itertools]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from map_overhead import Sample, build_suite, git_env, real_suite, run_measured  # noqa: E402

from oracle_gate.score.sandbox import Limits, run_sandboxed  # noqa: E402


def make_head(root: Path, suite: str) -> tuple[str, str]:
    """Commit a one-line change to a module every test file imports; (parent, head)."""
    env = git_env()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True
        ).stdout

    parent = git("rev-parse", "HEAD").strip()
    if suite == "generated":
        module = root / "src" / "mod_0.py"
        module.write_text(module.read_text().replace("total ^= value", "total = total ^ value"))
    else:
        target = next(
            p for p in sorted(root.rglob("*.py")) if "test" not in p.name and p.stat().st_size > 200
        )
        target.write_text(target.read_text() + "\n# a comment added by the benchmark\n_BENCH = 1\n")
    git("commit", "-qam", "head")
    return parent, git("rev-parse", "HEAD").strip()


def bench_suite(name: str, tmp: Path, repeat: int) -> None:
    py = Path(sys.executable)
    root = tmp / name / "repo"
    root.parent.mkdir(parents=True)
    tests = build_suite(root, 24, 15) if name == "generated" else real_suite(name, root, tmp / "cache", py)
    maps = tmp / name / "maps"
    env = git_env()
    mapped = run_measured(
        [
            str(py),
            "-m",
            "oracle_gate",
            "map",
            "--repo",
            str(root),
            "--sha",
            "HEAD",
            "--out",
            str(maps / "parent.coverage"),
        ],
        root,
        env,
    )
    parent, head = make_head(root, name)
    plain = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    score = [
        str(py),
        "-m",
        "oracle_gate",
        "score",
        "--repo",
        str(root),
        "--base",
        parent,
        "--head",
        head,
        "--coverage",
        str(maps / "parent.coverage"),
        "--score-json",
        str(tmp / name / "score.json"),
    ]
    run_measured(plain, root, env)  # warm-up: bytecode of the checkout and the venv, the disk
    samples: dict[str, list[Sample]] = {"plain": [], "score": []}
    for _ in range(repeat):
        samples["plain"].append(run_measured(plain, root, env))
        samples["score"].append(run_measured(score, root, env))
    ratios = [s.cpu / (2 * p.cpu) for p, s in zip(samples["plain"], samples["score"], strict=True)]
    walls = [s.wall / (2 * p.wall) for p, s in zip(samples["plain"], samples["score"], strict=True)]
    print(f"\n{name}: {tests} tests (map: {mapped.cpu:.2f} s CPU)")
    for key, values in samples.items():
        cpu = statistics.median(v.cpu for v in values)
        wall = statistics.median(v.wall for v in values)
        print(f"  {key:6} CPU {cpu:6.2f} s  wall {wall:6.2f} s")
    print(
        f"  score / (2 x plain): CPU {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}),"
        f" wall {statistics.median(walls):.2f}x  (target CPU <= 1.15x)"
    )


def bench_sandbox(repeat: int) -> None:
    print("\nsandbox start-up (wall, median):")
    for label, command in (("true", ["true"]), ("python -c pass", [sys.executable, "-c", "pass"])):
        bare, boxed = [], []
        for _ in range(repeat * 4):
            started = time.perf_counter()
            subprocess.run(command, check=True)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            done = run_sandboxed(command, Limits(wall_seconds=60))
            boxed.append(time.perf_counter() - started)
            assert done.exit_status == 0, done.stderr
        b, s = statistics.median(bare) * 1000, statistics.median(boxed) * 1000
        print(f"  {label:15} bare {b:7.1f} ms  in bwrap {s:7.1f} ms  (+{s - b:.1f} ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--suites", default="generated", help="comma-separated: generated, more-itertools, pyparsing"
    )
    parser.add_argument("--no-sandbox", action="store_true", help="skip the sandbox's start-up figures")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-score-") as tmp:
        for name in args.suites.split(","):
            bench_suite(name.strip(), Path(tmp), args.repeat)
    if not args.no_sandbox:
        bench_sandbox(args.repeat)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
