"""``oracle-gate demo``: the gate on a small example, end to end, offline.

Builds a repository with a retry module, live tests, one flaky test frozen in
``freeze.json`` and a locked fixture; measures its per-test coverage for real
with coverage.py (one dynamic context per test, as ``--cov-context=test``
writes them); then judges three changes and prints each verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.check import CheckRequest, run_check
from oracle_gate.commands.output import emit
from oracle_gate.judge.verdict import Outcome
from oracle_gate.render.formats import format_verdict
from oracle_gate.render.verdict_json import to_json

RETRY_PY = '''\
"""Retry with exponential backoff and jitter."""
import random


def backoff_delays(base, factor, attempts):
    delays = []
    delay = base
    for _ in range(attempts):
        delays.append(delay)
        delay = delay * factor
    return delays


def jittered(delay, jitter, rng):
    spread = delay * jitter
    low = delay - spread
    high = delay + spread
    return rng.uniform(low, high)


def retry(action, attempts, base=0.0, factor=2.0, sleep=lambda s: None):
    last_error = None
    for delay in backoff_delays(base, factor, attempts):
        try:
            return action()
        except Exception as error:  # retry any failure
            last_error = error
            sleep(delay)
    raise last_error
'''

TEST_RETRY_PY = """\
import json
import pathlib
import random

from retry import backoff_delays, jittered, retry

CORPUS = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "retry_corpus.json").read_text())


def test_delays_grow():
    assert backoff_delays(1.0, 2.0, 4) == [1.0, 2.0, 4.0, 8.0]


def test_delays_from_corpus():
    for case in CORPUS:
        assert backoff_delays(case["base"], case["factor"], case["attempts"]) == case["delays"]


def test_retry_succeeds_after_failures():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise ValueError("not yet")
        return "ok"

    assert retry(flaky, attempts=5) == "ok"


def test_retry_gives_up():
    def broken():
        raise ValueError("never")

    try:
        retry(broken, attempts=2)
    except ValueError:
        return
    raise AssertionError("retry should give up")


def test_backoff_under_jitter():
    rng = random.Random(7)
    value = jittered(10.0, 0.5, rng)
    assert 5.0 <= value <= 15.0
"""

PYPROJECT_TOML = """\
[tool.pytest.ini_options]
pythonpath = ["src", "tests"]
"""

CORPUS_JSON = '[{"base": 1.0, "factor": 3.0, "attempts": 3, "delays": [1.0, 3.0, 9.0]}]\n'
FROZEN_TEST = "tests/test_retry.py::test_backoff_under_jitter"

# Runs the test functions under coverage.py, one dynamic context per test,
# named as pytest-cov's --cov-context=test names them ("<nodeid>|run").
MEASURE_PY = """\
import importlib, inspect, sys
import coverage

cov = coverage.Coverage(data_file=sys.argv[1], source=["src", "tests"])
cov.start()
sys.path[:0] = ["src", "tests"]
module = importlib.import_module("test_retry")
failed = 0
for name, func in inspect.getmembers(module, inspect.isfunction):
    if name.startswith("test_"):
        cov.switch_context(f"tests/test_retry.py::{name}|run")
        try:
            func()
        except Exception as error:
            failed += 1
            print(f"FAILED tests/test_retry.py::{name}: {error!r}")
cov.switch_context("")
cov.stop()
cov.save()
sys.exit(1 if failed else 0)
"""


@dataclass(frozen=True)
class Scenario:
    title: str
    branch: str
    expected: Outcome
    edit: Callable[[Path], None]


def _replace(path: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        target = root / path
        text = target.read_text()
        if old not in text:
            raise RuntimeError(f"demo edit: {old!r} not in {path}")
        target.write_text(text.replace(old, new, 1))

    return edit


def _write(path: str, text: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        (root / path).write_text(text)

    return edit


SCENARIOS = (
    Scenario(
        "1. a fix observed by live tests",
        "observed-fix",
        Outcome.PASS_CLEAN,
        _replace(
            "src/retry.py",
            "        delay = delay * factor\n",
            "        delay = min(delay * factor, 3600.0)\n",
        ),
    ),
    Scenario(
        "2. a change that lives only under the frozen test",
        "jitter-tweak",
        Outcome.UNSCORED,
        _replace("src/retry.py", "    spread = delay * jitter\n", "    spread = delay * jitter * 0.5\n"),
    ),
    Scenario(
        "3. a change that edits the flake freeze",
        "unfreeze",
        Outcome.FAIL,
        _write("freeze.json", '{"schema": 1, "frozen": []}\n'),
    ),
)


class DemoRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        self.env.update(
            GIT_AUTHOR_NAME="Oracle Gate demo",
            GIT_AUTHOR_EMAIL="demo@example.invalid",
            GIT_COMMITTER_NAME="Oracle Gate demo",
            GIT_COMMITTER_EMAIL="demo@example.invalid",
            GIT_AUTHOR_DATE="2025-01-01T00:00:00Z",
            GIT_COMMITTER_DATE="2025-01-01T00:00:00Z",
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
        )

    def git(self, *args: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.root, env=self.env, capture_output=True, text=True, check=True
        )
        return proc.stdout.strip()

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")


def build_parent(repo: DemoRepo) -> str:
    repo.git("init", "-q", "-b", "main")
    repo.write("src/retry.py", RETRY_PY)
    repo.write("tests/test_retry.py", TEST_RETRY_PY)
    repo.write("fixtures/retry_corpus.json", CORPUS_JSON)
    repo.write("pyproject.toml", PYPROJECT_TOML)
    first = repo.commit("retry module and tests")
    repo.write(
        "freeze.json",
        json.dumps(
            {
                "schema": 1,
                "frozen": [
                    {
                        "nodeid": FROZEN_TEST,
                        "reason": "flaky: timing-dependent jitter on shared CI runners",
                        "bound_sha": first[:12],
                    }
                ],
            },
            indent=2,
        )
        + "\n",
    )
    digest = hashlib.sha256(CORPUS_JSON.encode()).hexdigest()
    repo.write(
        "fixture_lock.json",
        json.dumps(
            {"paths": ["fixtures/retry_corpus.json"], "sha256": {"fixtures/retry_corpus.json": digest}},
            indent=2,
        )
        + "\n",
    )
    return repo.commit("oracle: freeze the flaky jitter test, lock the fixture")


def measure(repo: DemoRepo, out: Path) -> None:
    env = dict(repo.env, COVERAGE_CORE="ctrace", PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE_PY, str(out)],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"measuring the demo's coverage failed:\n{proc.stdout}{proc.stderr}")


def run_demo(keep: Path | None = None, fmt: str = "text") -> int:
    if keep is not None:
        # Absolute: the coverage is measured from inside the example repository, so a relative
        # DIR would put the map under the repository instead (every verdict then came out wrong).
        keep = keep.resolve()
        keep.mkdir(parents=True, exist_ok=True)
        return _demo_in(keep, fmt)
    with tempfile.TemporaryDirectory(prefix="oracle-gate-demo-") as tmp:
        return _demo_in(Path(tmp), fmt)


def _demo_in(workdir: Path, fmt: str) -> int:
    """Text and markdown go to standard output with the narration; with ``json`` standard output is
    one JSON document (each scenario's title, expected verdict and contract verdict) and the
    narration goes to standard error."""

    def narrate(text: str) -> None:
        print(text, file=sys.stderr if fmt == "json" else sys.stdout)

    repo = DemoRepo(workdir / "repo")
    repo.root.mkdir()
    parent = build_parent(repo)
    coverage_file = workdir / "parent.coverage"
    measure(repo, coverage_file)
    narrate(
        textwrap.dedent(f"""\
        Oracle Gate demo
          example repository: {repo.root}
          parent {parent[:12]}: src/retry.py, 5 tests, 1 frozen ({FROZEN_TEST}),
          fixtures/retry_corpus.json locked by sha256
          per-test coverage of the parent measured with coverage.py: {coverage_file}
        """)
    )
    surprises = 0
    documents = []
    for scenario in SCENARIOS:
        repo.git("checkout", "-q", "-b", scenario.branch, parent)
        scenario.edit(repo.root)
        head = repo.commit(scenario.title)
        verdict = run_check(
            CheckRequest(repo=repo.root, base=parent, head=head, coverage=coverage_file, coverage_sha=parent)
        )
        narrate(f"== {scenario.title} (git diff {parent[:7]} {head[:7]})")
        if fmt == "json":
            documents.append(
                {"scenario": scenario.title, "expected": scenario.expected, "result": to_json(verdict)}
            )
        else:
            text = format_verdict(verdict, fmt)
            emit(text + "\n", fmt=fmt)
        if verdict.verdict != scenario.expected:
            surprises += 1
            narrate(f"!! expected {scenario.expected}, got {verdict.verdict}\n")
    if fmt == "json":
        print(json.dumps(documents, indent=2))
    narrate(
        "All three verdicts came out as expected."
        if not surprises
        else f"{surprises} verdict(s) differed from what the demo expects."
    )
    return 0 if not surprises else 1
