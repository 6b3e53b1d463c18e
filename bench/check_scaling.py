"""How `oracle-gate check` scales with the size of the parent coverage map.

Builds two synthetic parents -- 5,000 tests over 1,000 files and 50,000 tests
over 10,000 files -- each with a real coverage.py data file (test contexts,
absolute measured paths as a CI runner writes them) and the same 3-file
change, then times the real CLI on both, interleaved, and prints wall time,
peak memory (max RSS of the gate and its git children) and the ratio.

Every file is observed by about the same number of tests at both sizes (each
test covers 4 files), so the ratio isolates what the *size* of the map costs:
the gate should read only the touched files' rows. Each map has the manifest
``oracle-gate map`` writes (with ``tests_ran``, every test id) and the parent a
freeze of ``FROZEN`` entries, as in real use: the freeze-visibility check must not
grow with the map either. ``--bare`` measures the data file alone (no manifest,
no freeze), as issue 13 first measured it; ``--no-manifest`` keeps the freeze and drops the
manifest, as a pytest-cov map from a project's own CI is given (``--coverage-sha``): freeze
visibility must then ask the data file itself which tests ran (issue 19: target ratio <= 1.15).

    .venv/bin/python bench/check_scaling.py [--runs 7] [--keep DIR] [--bare | --no-manifest]

Figures are printed, not asserted. Targets (issue 13): ratio <= 1.1, the
50,000-test check at most 0.15 s and 40 MB peak (``check`` reads the map with sqlite3 and never
imports coverage.py, whose import alone costs about 0.14 s).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import coverage
from coverage import CoverageData

from oracle_gate.maps.reader.manifest import MANIFEST_SUFFIX, Manifest

FILES_PER_TEST = 4
LINES_PER_FILE = 40
TOUCHED = 3
FROZEN = 20  # freeze entries of the parent
MEASURED_ROOT = "/home/runner/work/project/project"  # where a CI runner would have measured


@dataclass(frozen=True)
class Size:
    tests: int
    files: int


@dataclass(frozen=True)
class Case:
    size: Size
    repo: Path
    coverage: Path
    parent: str
    head: str


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def module_text(index: int) -> str:
    body = [f'"""Module {index}."""', ""]
    for fn in range(LINES_PER_FILE // 4):
        body += [f"def f{fn}(x):", f"    y = x + {fn}", f"    return y * {index}", ""]
    return "\n".join(body) + "\n"


def build_case(
    root: Path, size: Size, rng: random.Random, *, bare: bool = False, manifest: bool = True
) -> Case:
    repo = root / f"repo-{size.tests}"
    src = repo / "src" / "pkg"
    src.mkdir(parents=True)
    paths = [f"src/pkg/m{i:05d}.py" for i in range(size.files)]
    for i, path in enumerate(paths):
        (repo / path).write_text(module_text(i))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "modules")
    if not bare:
        (repo / "freeze.json").write_text(freeze_text(size.tests, git(repo, "rev-parse", "HEAD"), rng))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "parent")
    parent = git(repo, "rev-parse", "HEAD")
    coverage = root / f"coverage-{size.tests}.sqlite"
    write_map(coverage, paths, size.tests, rng)
    if not bare and manifest:
        write_manifest(coverage, parent, size.tests)
    for path in paths[:TOUCHED]:  # the 3-file change
        text = (repo / path).read_text().replace("    y = x + 1\n", "    y = x + 100\n", 1)
        (repo / path).write_text(text)
    git(repo, "commit", "-q", "-am", "change")
    return Case(size, repo, coverage, parent, git(repo, "rev-parse", "HEAD"))


def test_id(t: int) -> str:
    return f"tests/test_t{t // 50:04d}.py::test_{t}"


def freeze_text(tests: int, bound: str, rng: random.Random) -> str:
    """``FROZEN`` entries, every one matching tests the map saw run: most name a test, a few a module."""
    nodeids = [test_id(t) for t in rng.sample(range(tests), FROZEN - 3)]
    nodeids += [f"tests/test_t{rng.randrange(tests // 50):04d}.py" for _ in range(3)]
    frozen = [{"nodeid": n, "reason": "flaky on shared runners", "bound_sha": bound[:12]} for n in nodeids]
    return json.dumps({"schema": 1, "frozen": frozen}, indent=2) + "\n"


def write_manifest(data: Path, sha: str, tests: int) -> None:
    """The manifest ``oracle-gate map`` writes beside the data: bound to ``sha``, every test id listed."""
    manifest = Manifest(
        path=data.with_name(data.name + MANIFEST_SUFFIX),
        data=data,
        sha=sha,
        data_sha256=hashlib.sha256(data.read_bytes()).hexdigest(),
        coverage_version=coverage.__version__,
        command=("python", "-m", "pytest"),
        tests=tests,
        exit_status=0,
        tests_ran=tuple(sorted(test_id(t) for t in range(tests))),
    )
    manifest.path.write_text(json.dumps(manifest.to_document(), indent=1) + "\n")


def write_map(out: Path, paths: list[str], tests: int, rng: random.Random) -> None:
    data = CoverageData(basename=str(out))
    all_lines = list(range(1, LINES_PER_FILE + 1))
    for t in range(tests):
        data.set_context(f"{test_id(t)}|run")
        chosen = rng.sample(paths, FILES_PER_TEST)
        data.add_lines({f"{MEASURED_ROOT}/{p}": rng.sample(all_lines, 12) for p in chosen})
    data.write()


FLOORS = {
    # what no check can go below, timed in the same rounds: the interpreter, and importing the CLI
    "python": [sys.executable, "-c", "pass"],
    "import": [sys.executable, "-c", "import oracle_gate.cli, oracle_gate.check"],
}


def bench_env(hwm: Path, gate_dir: Path | None) -> dict[str, str]:
    """The environment of one run; ``gate_dir`` (a folder holding another ``gate`` package) goes first."""
    env = {**os.environ, "BENCH_HWM": str(hwm)}
    if gate_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(gate_dir), env.get("PYTHONPATH", "")]))
    return env


def run_floor(cmd: list[str]) -> tuple[float, int, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, _usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, 0, os.waitstatus_to_exitcode(status)


# Runs ``python -m MODULE ARGS`` and, at exit, writes the process's own peak RSS (VmHWM) to
# $BENCH_HWM. wait4's ru_maxrss cannot be used: a child's includes the RSS of the process it was forked
# from (this benchmark's, ~29 MB, whatever the child does).
HWM_WRAPPER = """\
import atexit, os, runpy, sys
def _hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            open(os.environ['BENCH_HWM'], 'w').write(line.split()[1])
atexit.register(_hwm)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)
"""


def run_once(case: Case, gate_dir: Path | None = None) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in bytes, exit status) of one real CLI run."""
    cmd = [
        sys.executable,
        "-c",
        HWM_WRAPPER,
        # A --compare folder may hold a gate from before the import package was named oracle_gate.
        "gate" if gate_dir is not None and (gate_dir / "gate").is_dir() else "oracle_gate",
        "check",
        "--repo",
        str(case.repo),
        "--base",
        case.parent,
        "--head",
        case.head,
        "--coverage",
        str(case.coverage),
        "--coverage-sha",
        case.parent,
        "--format",
        "json",
        "--output",
        os.devnull,
    ]
    hwm = case.repo.parent / "hwm.txt"
    hwm.unlink(missing_ok=True)
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=bench_env(hwm, gate_dir),
        cwd=case.repo.parent,  # not the checkout this runs from: '-c' puts the cwd first on sys.path
    )
    _, status, _usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, int(hwm.read_text()) * 1024, proc.returncode


def print_table(
    cases: list[Case],
    results: dict[int, list[tuple[float, int, int]]],
    floors: dict[str, list[tuple[float, int, int]]],
    compared: dict[int, list[tuple[float, int, int]]],
) -> dict[int, float]:
    """The table of medians, minima and peaks; returns the median wall time by size."""
    print(f"\n{'tests':>7} {'files':>7} {'median s':>9} {'min s':>7} {'peak MB':>8} {'exit':>5}")
    medians = {}
    for case in cases:
        runs = results[case.size.tests]
        medians[case.size.tests] = statistics.median(r[0] for r in runs)
        print(
            f"{case.size.tests:>7} {case.size.files:>7} {medians[case.size.tests]:>9.3f} "
            f"{min(r[0] for r in runs):>7.3f} {max(r[1] for r in runs) / 2**20:>8.1f} "
            f"{','.join(sorted({str(r[2]) for r in runs})):>5}"
        )
    for name, runs in floors.items():
        print(
            f"{'floor':>7} {name:>7} {statistics.median(r[0] for r in runs):>9.3f} "
            f"{min(r[0] for r in runs):>7.3f} {'-':>8}"
        )
    for tests, runs in compared.items():
        if runs:
            print(
                f"{tests:>7} {'compare':>7} {statistics.median(r[0] for r in runs):>9.3f} "
                f"{min(r[0] for r in runs):>7.3f} {max(r[1] for r in runs) / 2**20:>8.1f} "
                f"{','.join(sorted({str(r[2]) for r in runs})):>5}"
            )
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build in this directory and keep it")
    parser.add_argument(
        "--bare",
        action="store_true",
        help="the data file alone (no manifest, no freeze), as issue 13 first measured it",
    )
    parser.add_argument(
        "--no-manifest",
        action="store_true",
        help="the freeze but no manifest: freeze visibility reads the data file (a pytest-cov map)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="DIR",
        help="also time the gate package found in DIR (e.g. 'git archive BASE gate | tar -x -C DIR'), "
        "interleaved with this one",
    )
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="oracle-gate-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        rng = random.Random(20261129)
        cases = []
        for size in (Size(5_000, 1_000), Size(50_000, 10_000)):
            start = time.perf_counter()
            cases.append(build_case(root, size, rng, bare=args.bare, manifest=not args.no_manifest))
            megabytes = cases[-1].coverage.stat().st_size / 1e6
            print(
                f"built {size.tests:>6} tests x {size.files:>6} files "
                f"(map {megabytes:.1f} MB) in {time.perf_counter() - start:.1f} s"
            )
        results: dict[int, list[tuple[float, int, int]]] = {c.size.tests: [] for c in cases}
        for case in cases:  # warm the page cache once
            run_once(case)
        floors: dict[str, list[tuple[float, int, int]]] = {name: [] for name in FLOORS}
        compared: dict[int, list[tuple[float, int, int]]] = {c.size.tests: [] for c in cases}
        for _ in range(args.runs):
            for case in cases:  # interleaved, so noise hits both sizes alike
                results[case.size.tests].append(run_once(case))
            for name, cmd in FLOORS.items():
                floors[name].append(run_floor(cmd))
            if args.compare is not None:
                for case in cases:
                    compared[case.size.tests].append(run_once(case, args.compare))
        medians = print_table(cases, results, floors, compared)
        ratio = medians[50_000] / medians[5_000]
        print(f"\nratio 50,000 / 5,000 tests (median wall time): {ratio:.2f}  (target <= 1.1)")
        print(
            f"targets at 50,000 tests: <= 0.150 s, <= 40 MB; load average {os.getloadavg()[0]:.2f} at the end"
        )
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
