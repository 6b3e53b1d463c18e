"""Diff mutation in ``oracle-gate score`` (SCORING.md 2.4, issue 30): executed is not checked.

One parent is measured once with ``oracle-gate map``; each test makes a head on a branch of it and
scores it for real (two pytest runs, then one process per mutant). The attacks are the issue's: a
real bug beside a weakened, renamed, early-returning or deleted test while another live test still
executes the line, and a module-level table entry read only by a frozen test (it runs at import,
so no test "observes" it). A line a live test checks is never ``unchecked_line``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.judge.verdict import Outcome
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

CALC = """\
TABLE = {
    "one": 1,
    "two": 2,
}


def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def lookup(name):
    return TABLE[name]
"""
ADD_TESTS = """\
from calc import add


def test_add():
    assert add(1, 2) == 3
"""
TESTS = """\
from calc import add, lookup, mul


def test_add_runs():
    add(5, 5)


def test_mul():
    assert mul(2, 3) == 6


def test_lookup_one():
    assert lookup("one") == 1
"""
FROZEN = """\
from calc import lookup


def test_lookup_two():
    assert lookup("two") == 2
"""
# What the change does to tests/test_add.py (the only test that checks add) beside the bug; the
# diff verdict is pass_clean each time because test_add_runs, live and unedited, observes the line.
# (Renaming or deleting the test function alone is live_test_missing already: the file stays.)
WEAKENINGS: dict[str, dict[str, str | None]] = {
    "weakened": {"tests/test_add.py": ADD_TESTS.replace("assert add(1, 2) == 3", "add(1, 2)")},
    "early return": {
        "tests/test_add.py": ADD_TESTS.replace("def test_add():\n", "def test_add():\n    return\n")
    },
    "file renamed": {"tests/test_add.py": None, "tests/test_sum.py": ADD_TESTS.replace("assert add", "add")},
    "file deleted": {"tests/test_add.py": None},
}


class Parent:
    def __init__(self, repo: Repo, sha: str, coverage: Path) -> None:
        self.repo, self.sha, self.coverage = repo, sha, coverage

    def head(self, name: str, files: dict[str, str | None]) -> str:
        self.repo.git("checkout", "-q", "-B", name, self.sha)
        for path, text in files.items():
            if text is None:
                self.repo.git("rm", "-q", path)
            else:
                self.repo.write(path, text)
        return self.repo.commit(name)


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Parent:
    root = tmp_path_factory.mktemp("mutation")
    repo = Repo(root / "repo")
    repo.write("src/calc.py", CALC)
    repo.write("tests/test_calc.py", TESTS)
    repo.write("tests/test_add.py", ADD_TESTS)
    repo.write("tests/test_frozen.py", FROZEN)
    frozen = repo.commit("before the freeze")
    entry = {"nodeid": "tests/test_frozen.py::test_lookup_two", "reason": "the oracle", "bound_sha": frozen}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}))
    sha = repo.commit("parent")
    out = root / "maps" / "parent.coverage"
    done = run_cli("map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), env=clean_env())
    assert done.returncode == 0, done.stderr
    return Parent(repo, sha, out)


def score(parent: Parent, head: str, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "score.json"
    args = ["score", "--repo", str(parent.repo.root), "--base", parent.sha, "--head", head]
    args += ["--coverage", str(parent.coverage), "--score-json", str(out), "--format", "json"]
    done = run_cli(*args, env=clean_env())
    assert out.is_file(), done.stderr
    return done.returncode, json.loads(out.read_text())


def unchecked(doc: dict[str, Any]) -> list[str]:
    return [r["detail"] for r in doc["reasons"] if r["code"] == "unchecked_line"]


@pytest.mark.parametrize("how", sorted(WEAKENINGS))
def test_a_bug_beside_a_weakened_test_is_an_unchecked_line(parent: Parent, how: str, tmp_path: Path) -> None:
    bug = CALC.replace("return a + b", "return a - b")
    head = parent.head(f"weak-{how.replace(' ', '-')}", {"src/calc.py": bug, **WEAKENINGS[how]})
    status, doc = score(parent, head, tmp_path)
    assert doc["score"] == Outcome.PASS_CLEAN.value, doc["reasons"]  # mode "report": listed, score unchanged
    assert status == 0
    details = unchecked(doc)
    assert len(details) == 1, json.dumps(doc.get("mutation"))
    assert details[0].startswith("src/calc.py:8: `a - b → a + b` survived")
    counts = doc["mutation"]["counts"]
    assert counts == {"made": 1, "killed": 0, "survived": 1, "arid": 0, "no_mutant": 0, "not_run": 0}
    survivor = doc["mutation"]["mutants"][0]
    assert survivor["tests"] == ["tests/test_calc.py::test_add_runs"]


def test_a_table_entry_read_only_by_a_frozen_test_is_an_unchecked_line(
    parent: Parent, tmp_path: Path
) -> None:
    head = parent.head("table", {"src/calc.py": CALC.replace('"two": 2,', '"two": 22,')})
    _status, doc = score(parent, head, tmp_path)
    assert doc["score"] == Outcome.PASS_CLEAN.value, doc["reasons"]
    details = unchecked(doc)
    assert len(details) == 1, doc["reasons"]
    assert details[0].startswith("src/calc.py:3: `'two' → ''` survived")
    survivor = doc["mutation"]["mutants"][0]
    assert "tests/test_calc.py::test_lookup_one" in survivor["tests"]  # it runs a line of the file
    assert "tests/test_frozen.py::test_lookup_two" not in survivor["tests"]


def test_lines_a_live_test_checks_are_never_unchecked(parent: Parent, tmp_path: Path) -> None:
    calc = CALC.replace("return a * b", "return b * a").replace('"one": 1,', '"one": 1,  # the first')
    head = parent.head("checked", {"src/calc.py": calc})
    status, doc = score(parent, head, tmp_path)
    assert (status, doc["score"]) == (0, Outcome.PASS_CLEAN.value), doc["reasons"]
    assert unchecked(doc) == []
    counts = doc["mutation"]["counts"]
    assert (counts["made"], counts["killed"], counts["survived"]) == (2, 2, 0), doc["mutation"]


def test_mode_unscored_makes_a_survivor_unscored(parent: Parent, tmp_path: Path) -> None:
    parent.repo.git("checkout", "-q", "-B", "mode-base", parent.sha)
    parent.repo.write("oracle-gate.toml", '[mutation]\nmode = "unscored"\n')
    base = parent.repo.commit("policy: mutation unscored")
    out = tmp_path / "base.coverage"
    done = run_cli("map", "--repo", str(parent.repo.root), "--sha", base, "--out", str(out), env=clean_env())
    assert done.returncode == 0, done.stderr
    other = Parent(parent.repo, base, out)
    bug = CALC.replace("return a + b", "return a - b")
    head = other.head("mode-head", {"src/calc.py": bug, **WEAKENINGS["weakened"]})
    status, doc = score(other, head, tmp_path)
    assert (status, doc["score"]) == (2, Outcome.UNSCORED.value), doc["reasons"]
    assert [r["code"] for r in doc["reasons"]] == ["unchecked_line"]


def test_score_verify_rebuilds_the_survivors_and_rejects_a_report_that_hides_them(
    parent: Parent, tmp_path: Path
) -> None:
    bug = CALC.replace("return a + b", "return a - b")
    head = parent.head("verify", {"src/calc.py": bug, **WEAKENINGS["weakened"]})
    _status, doc = score(parent, head, tmp_path)
    verify = ["score-verify", "--repo", str(parent.repo.root), "--base", parent.sha, "--head", head]
    verify += ["--coverage", str(parent.coverage), "--format", "json"]
    report = tmp_path / "uploaded.json"
    report.write_text(json.dumps(doc))
    done = run_cli(*verify, "--report", str(report), env=clean_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "unchecked_line" in done.stdout
    hidden = {**doc, "reasons": [r for r in doc["reasons"] if r["code"] != "unchecked_line"]}
    del hidden["mutation"]
    report.write_text(json.dumps(hidden))
    done = run_cli(*verify, "--report", str(report), env=clean_env())
    assert done.returncode == 2, done.stdout + done.stderr
    assert "score_report_rejected" in done.stdout
    assert "no diff mutation report" in done.stdout
