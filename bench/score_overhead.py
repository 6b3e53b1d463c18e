"""What the scoring run costs, against running the same suite twice without it (target <= 1.15x),
and what SCORING.md v2's watches (2.1 every plugin, 2.2 module namespaces, 2.3 the second witness,
2.5 the sealed map) cost against the gate without them (target <= 1.10x).

For each suite (the generated one of bench/map_overhead.py, 24 modules and 360 tests, and optionally
real sdist suites, the same ones map_overhead materializes) in a git repository: the parent is
mapped once (``oracle-gate map``), head changes one line of one module, and then, interleaved round
by round so that a noisy shared machine hurts all alike:

* ``plain``  ``python -m pytest -q -p no:cacheprovider`` in the checkout (one run; the target
  compares with two of them, since the score runs the suite twice);
* ``score``  ``oracle-gate score`` (diff verdict, a fresh worktree, two runs with the gate's
  plugin: freeze filter, ordering, per-test seeding, outcome recording, and the v2 watches);
* ``map``  ``oracle-gate map`` of head (with the seal: one SHA-256 of the data file);
* ``score-base`` and ``map-base``  the same ``score`` and ``map`` with the gate of ``--baseline``
  (default ``main``: the gate before the watches), exported with ``git archive`` and put first on
  ``PYTHONPATH``.

CPU is user+system time of the whole process tree (``os.wait4``). Every ratio is the median over
rounds of that round's ``score / (2 x plain)``, with its spread; the watches' ratios are
``score / score-base`` and ``map / map-base``. The score's own word and reason codes are printed
per suite: on an unchanged real suite anything but ``live_tests_passed`` from a watch
(``dynamic_rebinding``, ``score_tampered``, ``runner_config_changed``) is a false positive.

Then the sandbox's start-up cost:
``bwrap`` around ``true`` and around ``python -c pass``, against the same commands bare (wall time,
median of ``--repeat`` x 4). Figures are printed, never asserted::

    .venv/bin/python bench/score_overhead.py [--repeat 5] [--suites generated,more-itertools]
        [--baseline main]

``itsdangerous`` (the corpus' package, 2.2.0) and ``attrs`` (bench/map_real.py's) are suites too:
their extra test dependencies (``freezegun``; ``cloudpickle``, ``Pympler``) are installed with pip
into the benchmark's cache (``--target``) and put on ``PYTHONPATH``, and attrs' ``src`` goes first
there (the gate's own tools install attrs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from map_overhead import REAL, Sample, build_suite, git_env, real_suite  # noqa: E402

from oracle_gate.score.sandbox import Limits, run_sandboxed  # noqa: E402

REAL.setdefault("itsdangerous", ("itsdangerous==2.2.0", "testpaths = tests\n"))
REAL.setdefault("attrs", ("attrs==26.1.0", "addopts = -p no:randomly\ntestpaths = tests\n"))
EXTRA = {
    "itsdangerous": ("freezegun==1.5.5", "python-dateutil==2.9.0.post0", "six==1.17.0"),
    "attrs": ("cloudpickle==3.1.1", "Pympler==1.1"),
}
# The checkout's own package first (relative: each run's working directory is its checkout), where an
# installed copy would shadow it (attrs is a dependency of the gate's own test tools).
FIRST = {"attrs": "src"}


def run_measured(cmd: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    """map_overhead's, but the score's exit 2 (unscored) is a figure too, not a failure."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if code not in (0, 1, 2):
        tail = output.decode(errors="replace")[-3000:]
        raise SystemExit(f"benchmark command failed ({code}): {' '.join(cmd)}\n{tail}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def baseline_gate(rev: str, tmp: Path, repo: Path = ROOT) -> Path:
    """The gate of ``rev`` as an importable ``oracle_gate`` package; the directory to put on PYTHONPATH."""
    out = tmp / "baseline"
    out.mkdir()
    archive = subprocess.run(
        ["git", "archive", rev, "gate"], cwd=repo, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    (out / "pkgs").mkdir()
    (out / "pkgs" / "oracle_gate").symlink_to(out / "gate")
    return out / "pkgs"


def extra_path(name: str, cache: Path, py: Path) -> str | None:
    """A ``pip install --target`` of the suite's extra test dependencies (cached), or None."""
    if name not in EXTRA:
        return None
    target = cache / f"extra-{name}"
    if not target.is_dir():
        pip = [str(py), "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), *EXTRA[name]]
        subprocess.run(pip, check=True, capture_output=True)
    return str(target)


def with_path(env: dict[str, str], *paths: str | None) -> dict[str, str]:
    """``env`` with ``paths`` first on ``PYTHONPATH`` (before what it held)."""
    joined = os.pathsep.join(p for p in (*paths, env.get("PYTHONPATH")) if p)
    return {**env, "PYTHONPATH": joined} if joined else dict(env)


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


def bench_suite(name: str, tmp: Path, repeat: int, baseline: Path) -> None:
    py = Path(sys.executable)
    root = tmp / name / "repo"
    root.parent.mkdir(parents=True)
    cache = tmp / "cache"
    tests = build_suite(root, 24, 15) if name == "generated" else real_suite(name, root, cache, py)
    maps = tmp / name / "maps"
    extra = extra_path(name, cache, py)
    env = with_path(git_env(), FIRST.get(name), extra)
    base_env = with_path(git_env(), FIRST.get(name), str(baseline), extra)

    def map_to(out: Path) -> list[str]:
        return [str(py), "-m", "oracle_gate", "map", "--repo", str(root), "--sha", "HEAD", "--out", str(out)]

    mapped = run_measured(map_to(maps / "parent.coverage"), root, env)
    run_measured(map_to(maps / "base" / "parent.coverage"), root, base_env)  # the baseline's manifest
    parent, head = make_head(root, name)
    plain = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider"]

    def score(coverage: Path, out: Path) -> list[str]:
        return [
            *(str(py), "-m", "oracle_gate", "score", "--repo", str(root), "--base", parent, "--head", head),
            *("--coverage", str(coverage), "--score-json", str(out)),
        ]

    commands = {
        "plain": (plain, env),
        "score": (score(maps / "parent.coverage", tmp / name / "score.json"), env),
        "score-base": (score(maps / "base" / "parent.coverage", tmp / name / "base.json"), base_env),
        "map": (map_to(maps / "again.coverage"), env),
        "map-base": (map_to(maps / "base" / "again.coverage"), base_env),
    }
    run_measured(plain, root, env)  # warm-up: bytecode of the checkout and the venv, the disk
    samples: dict[str, list[Sample]] = {key: [] for key in commands}
    for _ in range(repeat):
        for key, (command, command_env) in commands.items():
            samples[key].append(run_measured(command, root, command_env))
    print(f"\n{name}: {tests} tests (map: {mapped.cpu:.2f} s CPU)")
    for key, values in samples.items():
        cpu = statistics.median(v.cpu for v in values)
        wall = statistics.median(v.wall for v in values)
        print(f"  {key:10} CPU {cpu:6.2f} s  wall {wall:6.2f} s")
    print_ratio("score / (2 x plain)", samples["score"], samples["plain"], 2, "1.15x")
    print_ratio("score / score-base", samples["score"], samples["score-base"], 1, "1.10x")
    print_ratio("map / map-base", samples["map"], samples["map-base"], 1, "1.10x")
    print_score(tmp / name / "score.json")


def print_ratio(label: str, over: list[Sample], under: list[Sample], times: int, target: str) -> None:
    cpu = [o.cpu / (times * u.cpu) for o, u in zip(over, under, strict=True)]
    wall = [o.wall / (times * u.wall) for o, u in zip(over, under, strict=True)]
    print(
        f"  {label}: CPU {statistics.median(cpu):.2f}x ({min(cpu):.2f}-{max(cpu):.2f}),"
        f" wall {statistics.median(wall):.2f}x  (target CPU <= {target})"
    )


def print_score(path: Path) -> None:
    """The score's word and reason codes, and what the namespace watch found (2.2's false positives)."""
    doc = json.loads(path.read_text())
    codes = ", ".join(r["code"] for r in doc["reasons"])
    rebound = [e for run in doc["runs"] for e in run.get("rebound") or []]
    plugins = [
        p["name"] for p in (doc.get("plugins") or {}).get("head") or [] if p["name"].startswith("tree:")
    ]
    ran = len(doc["runs"][0]["outcomes"]) if doc["runs"] else 0
    print(
        f"  score: {doc['score']} ({codes}); tests run: {ran}; rebound: {len(rebound)};"
        f" tree plugins: {plugins or 'none'}"
    )
    for entry in rebound[:10]:
        print(f"    rebound: {entry['module']}.{entry['name']} at {entry['when']}: {entry['what']}")


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
        "--suites",
        default="generated",
        help="comma-separated: generated, more-itertools, pyparsing, itsdangerous",
    )
    parser.add_argument("--no-sandbox", action="store_true", help="skip the sandbox's start-up figures")
    parser.add_argument("--baseline", default="main", help="the gate to compare the watches with (a git rev)")
    parser.add_argument("--baseline-repo", type=Path, default=ROOT, help="the repository --baseline is of")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-score-") as tmp:
        baseline = baseline_gate(args.baseline, Path(tmp), args.baseline_repo)
        for name in args.suites.split(","):
            bench_suite(name.strip(), Path(tmp), args.repeat, baseline)
    if not args.no_sandbox:
        bench_sandbox(args.repeat)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
