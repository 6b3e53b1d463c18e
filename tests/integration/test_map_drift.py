"""``oracle-gate map --previous MANIFEST [--fail-on-drift]``: drift between two real maps of one branch.

Two commits of a real repository are mapped with real pytest runs; the second one's frozen test
stops reaching most of the code it observed (the source under it changed, its own file did not),
and a live test stops being collected while its file stays."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.in_process import run_cli
from tests.support.repo import Repo

JITTER = """\
def add(a, b):
    return a + b


def jitter(x, deep=True):
    if not deep:
        return x * 2 + 1
    y = x * 2
    y = y + 0
    y = y * 1
    y = y - 0
    y = y + 1
    return y
"""

TESTS = (
    "from calc import add, jitter\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_jitter():\n    assert jitter(1) == 3\n\n\n"
    "def test_gone():\n    assert add(0, 0) == 0\n"
)
FROZEN = "tests/test_calc.py::test_jitter"


def make_first(repo: Repo) -> str:
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    repo.write("src/calc.py", JITTER)
    repo.write("tests/test_calc.py", TESTS)
    first = repo.commit("calc")
    entry = {"nodeid": FROZEN, "reason": "jitter", "bound_sha": first}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    return repo.commit("freeze jitter")


def map_of(repo: Repo, sha: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli("map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), *extra)


def drifted(repo: Repo) -> str:
    """The frozen test's code path shrinks (jitter no longer goes deep); test_gone is no longer a test."""
    repo.write("src/calc.py", JITTER.replace("deep=True", "deep=False"))
    repo.write("pytest.ini", "[pytest]\npythonpath = src\npython_functions = test_add test_jitter\n")
    return repo.commit("drift")


def test_drift_is_reported_and_fails_the_map_only_when_asked(repo: Repo, tmp_path: Path) -> None:
    first = make_first(repo)
    before = tmp_path / "maps" / "first.coverage"
    assert map_of(repo, first, before).returncode == 0
    second = drifted(repo)
    previous = before.with_name("first.coverage.manifest.json")

    told = map_of(repo, second, tmp_path / "maps" / "second.coverage", "--previous", str(previous))
    assert told.returncode == 0, told.stderr
    assert f"drift: frozen test {FROZEN} observes" in told.stderr
    assert "drift: live test tests/test_calc.py::test_gone ran for the map of" in told.stderr

    failed = map_of(
        repo, second, tmp_path / "maps" / "third.coverage", "--previous", str(previous), "--fail-on-drift"
    )
    assert failed.returncode == 1, failed.stderr
    assert (tmp_path / "maps" / "third.coverage").is_file()  # the map is written, and flagged by the status


def test_no_drift_says_so(repo: Repo, tmp_path: Path) -> None:
    first = make_first(repo)
    before = tmp_path / "first.coverage"
    assert map_of(repo, first, before).returncode == 0
    repo.write("README.md", "docs only\n")
    second = repo.commit("docs")
    again = map_of(
        repo, second, tmp_path / "second.coverage", "--previous", f"{before}.manifest.json", "--fail-on-drift"
    )
    assert again.returncode == 0, again.stderr
    assert f"no drift since the map of {first[:12]}" in again.stderr


def test_drift_that_cannot_be_computed_fails_closed_with_fail_on_drift(repo: Repo, tmp_path: Path) -> None:
    first = make_first(repo)
    bogus = tmp_path / "previous.manifest.json"
    bogus.write_text("{not json")
    proc = map_of(repo, first, tmp_path / "m.coverage", "--previous", str(bogus), "--fail-on-drift")
    assert proc.returncode == 1
    assert f"error: cannot compare with the previous map: {bogus}: unreadable map manifest" in proc.stderr
    lenient = map_of(repo, first, tmp_path / "n.coverage", "--previous", str(bogus))
    assert lenient.returncode == 0
    assert "warning: cannot compare with the previous map" in lenient.stderr


def test_fail_on_drift_needs_previous(repo: Repo, tmp_path: Path) -> None:
    proc = map_of(repo, make_first(repo), tmp_path / "m.coverage", "--fail-on-drift")
    assert proc.returncode == 3
    assert "--fail-on-drift needs --previous MANIFEST" in proc.stderr


def test_help_and_docs_say_what_fail_on_drift_does(repo: Repo, tmp_path: Path) -> None:
    """``--help`` said drift "makes the map flagged"; the docs say the drifted map is written and used.
    The code: exit 1, the manifest unflagged (``tests_passed`` true), so ``check`` uses it (issue 28)."""
    first = make_first(repo)
    before = tmp_path / "first.coverage"
    assert map_of(repo, first, before).returncode == 0
    second = drifted(repo)
    out = tmp_path / "second.coverage"
    assert (
        map_of(repo, second, out, "--previous", f"{before}.manifest.json", "--fail-on-drift").returncode == 1
    )

    assert json.loads(out.with_name(out.name + ".manifest.json").read_text())["tests_passed"] is True
    text = " ".join(run_cli("map", "--help").stdout.split())
    assert (
        "drift (or drift that cannot be computed) makes the exit status 1; the map is still written and "
        "not flagged" in text
    )
    assert "makes the map flagged" not in text
    docs = " ".join((Path(__file__).parents[2] / "docs" / "coverage-maps.md").read_text().split())
    assert "With it, drift makes the exit status 1 (the map is still written" in docs
