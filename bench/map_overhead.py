"""What building a parent map costs, against running the same suite without coverage.

For each suite — a generated one (24 modules, 360 tests) and real ones materialized from PyPI sdists
(``pip download --no-binary :all: --no-deps``, cached; default more-itertools and pyparsing) — in a
git repository, it runs, interleaved round by round so that a noisy shared machine hurts all alike:

* ``plain``    ``python -m pytest -q -p no:cacheprovider`` in the checkout
* ``cov``      the same with ``--cov --cov-context=test --cov-report=`` (pytest-cov, ``ctrace``)
* ``cov-fresh`` ``cov`` in a fresh ``git worktree`` of the same commit, made (and removed) outside
  the timing: pytest-cov as CI runs it, in a fresh checkout whose bytecode is not compiled yet
* ``map-cov``  ``oracle-gate map`` with ``ORACLE_GATE_COLLECTOR=coverage.py`` (pytest-cov, ctrace)
* ``map-st``   ``oracle-gate map`` with its ``settrace`` collector (coverage.py's C tracer driven by
  the gate, contexts switched in memory: the default on 3.11)
* ``map-mon``  ``oracle-gate map`` with its ``sys.monitoring`` collector (3.12+, the default there; on
  3.11 it would fall back to coverage.py, and is left out)
* ``map-base`` with ``--baseline PYTHON`` (e.g. the bench venv of another commit, built by an
  earlier run): that interpreter's ``map-cov``, in the same rounds, for a before/after comparison

``--suites wide`` adds a generated suite of about a million test-line pairs, for the memory target
(peak RSS of ``map-mon`` at most ``plain`` + 30 MB).

Fairness: everything runs in one venv (built once, cached) holding requirements/test.txt and the gate
installed *without* ``-e`` (an editable gate's plugin lies outside site-packages and would be
measured); ``plain`` and ``cov`` run warm (bytecode cached by a warm-up round, as a developer's runs
are), the map pays what it really pays (a fresh worktree each time). ``cov-fresh`` is the comparison for
that: the map's worktree is fresh by design (``../shared/spec/TRUST.md``: never the caller's
working tree, never its bytecode), as a CI checkout is for pytest-cov; ``map-cov`` against ``cov``
adds compiling the project's modules and pytest's rewriting of its test modules to what the gate
itself costs, ``map-cov`` against ``cov-fresh`` is what the gate costs. "Warm" needs Python to write
bytecode: ``PYTHONDONTWRITEBYTECODE`` (set in some sandboxes and CI images) would make every run
compile everything, pytest's rewriting of every plugin module (hypothesis, anyio, ...) included, at
every start, so the commands run without it unless ``--bytecode env`` keeps the caller's
environment (then every mode runs cold and ``cov-fresh`` equals ``cov``). CPU is user+system time of the
whole process tree (``os.wait4``), memory the peak RSS of its largest process. Every ratio is the
median over rounds of that round's ratio to ``plain``, with its spread (min-max); the load average is
printed before and after. Figures are printed, never asserted::

    .venv/bin/python bench/map_overhead.py [--python python3.12] [--repeat 5] [--suites generated,...]
                                           [--bytecode warm|env] [--baseline PYTHON] [--modes cov,map-st]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test suite's way of finding python3.12 (a pyenv shim too)

from tests.support.py312 import python312  # noqa: E402

REAL = {
    # name: (requirement, pytest options committed as the suite's configuration)
    "more-itertools": ("more-itertools==11.2.1", "addopts = -p no:randomly\ntestpaths = tests\n"),
    "pyparsing": (
        "pyparsing==3.3.3",
        "addopts = --ignore=tests/test_diagram.py --ignore=tests/test_matplotlib_cases.py "
        "--ignore=tests/test_examples.py\ntestpaths = tests\n",
    ),
}
COMMANDS = ("plain", "cov", "cov-fresh", "map-cov", "map-st", "map-mon")
NO_BYTECODE = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")  # dropped unless --bytecode env

MODULE = '''\
"""Generated module {i}."""


def checksum_{i}(values):
    total = 0
    for index, value in enumerate(values):
        if index % 3 == 0:
            total += value * {k}
        elif index % 3 == 1:
            total -= value
        else:
            total ^= value
    return total


def window_{i}(values, size):
    out = []
    for start in range(0, max(len(values) - size + 1, 0)):
        chunk = values[start : start + size]
        out.append(sum(chunk) / size)
    return out


class Counter{i}:
    def __init__(self):
        self.seen = {{}}

    def add(self, word):
        self.seen[word] = self.seen.get(word, 0) + 1
        return self.seen[word]

    def top(self, n):
        return sorted(self.seen.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
'''

TEST_HEAD = """\
import pytest

from mod_{i} import Counter{i}, checksum_{i}, window_{i}

DATA = list(range(300))
"""

TEST_FUNC = """

def test_checksum_{j}():
    assert isinstance(checksum_{i}(DATA[{j}:]), int)
"""

TEST_PARAM = """

@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
def test_window(size):
    assert len(window_{i}(DATA[:50], size)) == 51 - size
"""

TEST_CLASS = """

class TestCounter:
    def test_add(self):
        c = Counter{i}()
        for word in "the quick brown fox jumps over the lazy dog the end".split():
            c.add(word)
        assert c.top(1) == [("the", 3)]

    def test_empty(self):
        assert Counter{i}().top(3) == []
"""


def build_suite(root: Path, modules: int, per_module: int) -> int:
    """Write the suite and commit it; returns the number of tests."""
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    plain = max(per_module - 7, 1)  # 5 parametrized cases and 2 methods make up the rest
    for i in range(modules):
        (root / "src" / f"mod_{i}.py").write_text(MODULE.format(i=i, k=i % 7 + 2))
        body = TEST_HEAD.format(i=i) + "".join(TEST_FUNC.format(i=i, j=j) for j in range(plain))
        (root / "tests" / f"test_mod_{i}.py").write_text(
            body + TEST_PARAM.format(i=i) + TEST_CLASS.format(i=i)
        )
    env = git_env()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "generated suite"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return modules * (plain + 7)


def build_wide_suite(root: Path, tests: int = 2000, modules: int = 20, lines: int = 250) -> int:
    """About a million test-line pairs: each test runs two straight-line functions of ``lines`` lines."""
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    for m in range(modules):
        body = "".join(f"    x = x + {k}\n" for k in range(lines))
        (root / "src" / f"wide_{m}.py").write_text(f"def f(x):\n{body}    return x\n")
    per_file = 50
    for t in range(0, tests, per_file):
        text = "".join(
            f"\n\ndef test_{i}():\n    import wide_{i % modules}, wide_{(i + 1) % modules}\n"
            f"    assert wide_{i % modules}.f(0) + wide_{(i + 1) % modules}.f(0) > 0\n"
            for i in range(t, min(t + per_file, tests))
        )
        (root / "tests" / f"test_wide_{t // per_file}.py").write_text(text)
    env = git_env()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "wide suite"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return tests


def git_env(bytecode: str = "env") -> dict[str, str]:
    """The environment every command runs in; ``bytecode="warm"``: without what stops Python from
    writing (or finding) bytecode beside the sources."""
    drop = ("GIT_", "COVERAGE_", "PYTEST_", *(NO_BYTECODE if bytecode == "warm" else ()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    rss_mb: float


def run_measured(cmd: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    """Run ``cmd``; wall time, CPU of the process tree, peak RSS of its largest process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):  # 1: some of the suite's own tests fail here, in every mode
        tail = output.decode(errors="replace")[-3000:]
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{tail}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def bench_venv(python: str, cache: Path) -> Path:
    """A cached venv with requirements/test.txt and this checkout's gate, installed without -e."""
    digest = hashlib.sha256((ROOT / "requirements" / "test.txt").read_bytes())
    for path in [*sorted((ROOT / "gate").rglob("*.py")), ROOT / "pyproject.toml"]:
        digest.update(path.read_bytes())
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True, check=False
    )
    digest.update(version.stdout.encode())
    home = cache / f"venv-{digest.hexdigest()[:16]}"
    if (home / ".complete").is_file():
        return home / "bin" / "python"
    shutil.rmtree(home, ignore_errors=True)
    py = str(home / "bin" / "python")
    requirements = ROOT / "requirements" / "test.txt"
    for step in (
        [python, "-m", "venv", str(home)],
        [py, "-m", "pip", "install", "-q", "--no-deps", "--require-hashes", "-r", str(requirements)],
        [py, "-m", "pip", "install", "-q", "--no-deps", str(ROOT)],
    ):
        subprocess.run(step, check=True, capture_output=True)
    (home / ".complete").touch()
    return home / "bin" / "python"


def real_suite(name: str, root: Path, cache: Path, py: Path) -> int:
    """The sdist of ``name`` extracted into a fresh git repository; returns its test count."""
    requirement, options = REAL[name]
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    stem = requirement.replace("==", "-").replace("-", "_").lower()
    found = [p for p in sdists.glob("*.tar.gz") if p.name.lower().replace("-", "_").startswith(stem)]
    if not found:
        subprocess.run(
            [
                str(py),
                "-m",
                "pip",
                "download",
                "-q",
                "--no-binary",
                ":all:",
                "--no-deps",
                requirement,
                "-d",
                str(sdists),
            ],
            check=True,
            capture_output=True,
        )
        found = [p for p in sdists.glob("*.tar.gz") if p.name.lower().replace("-", "_").startswith(stem)]
    with tarfile.open(found[0]) as tar:
        tar.extractall(root.parent / "extract", filter="data")
    shutil.move(next((root.parent / "extract").iterdir()), root)
    (root / "pytest.ini").write_text(f"[pytest]\n{options}")
    env = git_env()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", name]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    listed = subprocess.run(
        [str(py), "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider"],
        check=False,
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    return sum(1 for line in listed.stdout.splitlines() if "::" in line)


def test_line_pairs(path: Path) -> int:
    """How many (test phase, line) pairs a map holds."""
    from coverage import CoverageData

    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    pairs = 0
    for name in data.measured_files():
        for contexts in data.contexts_by_lineno(name).values():
            pairs += sum(1 for c in contexts if c)
    data.close()
    return pairs


def commands_for(
    py: Path, root: Path, out: Path, bytecode: str = "warm"
) -> dict[str, tuple[list[str], dict[str, str]]]:
    env = git_env(bytecode)
    pytest = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    gate_map = [str(py), "-m", "oracle_gate", "map", "--repo", str(root), "--sha", "HEAD", "--out"]
    return {
        "plain": (pytest, env),
        "cov": (
            [*pytest, "--cov", "--cov-context=test", "--cov-report="],
            dict(env, COVERAGE_FILE=str(out.with_name("cov.coverage")), COVERAGE_CORE="ctrace"),
        ),
        "cov-fresh": (
            [*pytest, "--cov", "--cov-context=test", "--cov-report="],
            dict(env, COVERAGE_FILE=str(out.with_name("fresh.coverage")), COVERAGE_CORE="ctrace"),
        ),
        "map-cov": (
            [*gate_map, str(out.with_name("ctrace.coverage"))],
            dict(env, ORACLE_GATE_COLLECTOR="coverage.py"),
        ),
        "map-st": (
            [*gate_map, str(out.with_name("settrace.coverage"))],
            dict(env, ORACLE_GATE_COLLECTOR="settrace"),
        ),
        "map-mon": (
            [*gate_map, str(out.with_name("sysmon.coverage"))],
            dict(env, ORACLE_GATE_COLLECTOR="auto"),
        ),
    }


def run_fresh(cmd: list[str], root: Path, env: dict[str, str], where: Path) -> Sample:
    """``cmd`` in a fresh detached worktree of ``root``'s HEAD, made and removed outside the timing."""
    git = ["git", "-C", str(root), "worktree"]
    subprocess.run([*git, "add", "-q", "--detach", str(where), "HEAD"], env=git_env(), check=True)
    try:
        return run_measured(cmd, where, env)
    finally:
        subprocess.run([*git, "remove", "--force", str(where)], env=git_env(), check=True)


def modes(py: Path) -> tuple[str, ...]:
    """``map-mon`` only where ``sys.monitoring`` exists (3.12+)."""
    version = subprocess.run(
        [str(py), "-c", "import sys; print(sys.version_info >= (3, 12))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return COMMANDS if version.stdout.strip() == "True" else tuple(c for c in COMMANDS if c != "map-mon")


def bench_suite(
    name: str,
    py: Path,
    tmp: Path,
    cache: Path,
    repeat: int,
    *,
    bytecode: str = "warm",
    base: Path | None = None,
    only: set[str] | None = None,
) -> None:
    root = tmp / name / "repo"
    root.parent.mkdir(parents=True)
    if name == "generated":
        tests = build_suite(root, 24, 15)
    elif name == "wide":
        tests = build_wide_suite(root)
    else:
        tests = real_suite(name, root, cache, py)
    out = tmp / name / "maps" / "x.coverage"
    out.parent.mkdir()
    commands = commands_for(py, root, out, bytecode)
    run = modes(py)
    if base is not None:
        (tmp / name / "maps-base").mkdir()
        commands["map-base"] = commands_for(base, root, tmp / name / "maps-base" / "x.coverage", bytecode)[
            "map-cov"
        ]
        run = (*run, "map-base")
    if only is not None:
        run = tuple(c for c in run if c in only)
    for c in run:  # warm-up: bytecode of the checkout and the venv, the disk
        run_measured(commands[c][0], root, commands[c][1])
    samples: dict[str, list[Sample]] = {c: [] for c in run}
    for _ in range(repeat):
        for c in run:
            cmd, env = commands[c]
            if c == "cov-fresh":
                samples[c].append(run_fresh(cmd, root, env, tmp / name / "fresh"))
            else:
                samples[c].append(run_measured(cmd, root, env))
    collector_map = "sysmon" if "map-mon" in run else "settrace" if "map-st" in run else "ctrace"
    mapped = out.with_name(f"{collector_map}.coverage")
    pairs = test_line_pairs(mapped) if mapped.is_file() else 0  # no map mode ran
    report(name, tests, pairs, samples)


def report(name: str, tests: int, pairs: int, samples: dict[str, list[Sample]]) -> None:
    plain = samples["plain"]
    print(f"\n## {name}: {tests} tests collected; the collector's map holds {pairs:,} test-phase/line pairs")
    print(f"{'mode':>9} {'wall s':>7} {'cpu s':>7} {'rss MB':>7}  {'cpu/plain':>17}  {'wall/plain':>17}")
    for c, mine in samples.items():
        cpu = [m.cpu / p.cpu for m, p in zip(mine, plain, strict=True)]
        wall = [m.wall / p.wall for m, p in zip(mine, plain, strict=True)]
        wall_s, cpu_s = statistics.median(m.wall for m in mine), statistics.median(m.cpu for m in mine)
        rss = max(m.rss_mb for m in mine)
        print(f"{c:>9} {wall_s:7.2f} {cpu_s:7.2f} {rss:7.1f}  {spread(cpu):>17}  {spread(wall):>17}")


def spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--python",
        help="the interpreter to build the venv from (default: python3.12 on PATH, through pyenv too)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--baseline", type=Path, metavar="PYTHON", help="also run map-cov with this venv's python"
    )
    parser.add_argument(
        "--bytecode",
        choices=("warm", "env"),
        default="warm",
        help="warm: run without PYTHONDONTWRITEBYTECODE/PYTHONPYCACHEPREFIX (the default); env: as set here",
    )
    parser.add_argument("--suites", default="generated,more-itertools,pyparsing")
    parser.add_argument(
        "--modes",
        help=f"only these of {','.join(COMMANDS)} (plain always runs: every ratio is to it); default all",
    )
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "oracle-gate-bench-cache")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    python = args.python or python312()
    if python is None:
        raise SystemExit("python3.12 is not on PATH (nor in pyenv): give --python")
    py = bench_venv(python, args.cache)
    version = subprocess.run(
        [str(py), "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"python {version.stdout.strip()} ({py}); {args.repeat} interleaved rounds after a warm-up")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    kept = [k for k in NO_BYTECODE if k in os.environ and args.bytecode == "env"]
    print(f"bytecode: {args.bytecode}" + (f" (kept: {', '.join(kept)})" if kept else ""))
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-") as tmp:
        for name in args.suites.split(","):
            bench_suite(
                name,
                py,
                Path(tmp),
                args.cache,
                args.repeat,
                bytecode=args.bytecode,
                base=args.baseline,
                only=set(args.modes.split(",")) | {"plain"} if args.modes else None,
            )
            print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
