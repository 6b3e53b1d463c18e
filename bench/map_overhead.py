"""What building a parent map costs, against running the same suite without coverage.

Generates a real suite (default: 24 modules, 360 tests, plain functions with
loops, parametrized cases, a class per file) in a temporary git repository,
then times, interleaved so that a noisy shared machine hurts all three alike:

* ``plain``  ``python -m pytest -q -p no:cacheprovider`` in the checkout
* ``cov``    the same with ``--cov --cov-context=test --cov-report=`` (pytest-cov alone)
* ``map``    ``oracle-gate map --sha HEAD --out ...`` (worktree, contexts, manifest)

and prints every timing, the medians and the ratios. Figures are printed,
never asserted::

    .venv/bin/python bench/map_overhead.py [--modules 24] [--tests-per-module 15] [--repeat 5]
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


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "COVERAGE_", "PYTEST_"))}
    env.update(
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(
            f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
        )
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modules", type=int, default=24)
    parser.add_argument("--tests-per-module", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="oracle-gate-bench-") as tmp:
        root, out = Path(tmp) / "suite", Path(tmp) / "maps" / "parent.coverage"
        tests = build_suite(root, args.modules, args.tests_per_module)
        env = git_env()
        pytest = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        commands = {
            "plain": pytest,
            "cov": [*pytest, "--cov", "--cov-context=test", "--cov-report="],
            "map": [py, "-m", "gate", "map", "--repo", str(root), "--sha", "HEAD", "--out", str(out)],
        }
        cov_env = dict(env, COVERAGE_FILE=str(Path(tmp) / "cov.coverage"), COVERAGE_CORE="ctrace")
        envs = {"plain": env, "cov": cov_env, "map": env}
        times: dict[str, list[float]] = {name: [] for name in commands}
        for name, cmd in commands.items():  # warm-up: imports, bytecode caches of the tools, the disk
            timed(cmd, root, envs[name])
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, root, envs[name]))
        version = sys.version.split()[0]
        print(f"suite: {args.modules} modules, {tests} tests; python {version}; {args.repeat} rounds")
        print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end")
        for name, cmd in commands.items():
            runs = ", ".join(f"{t:.2f}" for t in times[name])
            median, best = statistics.median(times[name]), min(times[name])
            print(f"{name:>5}: median {median:6.2f}s  min {best:6.2f}s  [{runs}]")
            print(f"       {' '.join(cmd[1:])}")
        plain, cov, built = (statistics.median(times[name]) for name in ("plain", "cov", "map"))
        print(f"ratio map/plain (medians): {built / plain:.2f}")
        print(f"ratio cov/plain (medians): {cov / plain:.2f}")
        print(f"ratio map/cov   (medians): {built / cov:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
