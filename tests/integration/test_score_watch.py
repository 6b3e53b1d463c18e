"""SCORING.md v2 on real runs: the scoring run watches what head's code does (issue 30).

Each test is an attack that scored ``pass_clean`` before the watch: a plugin registered from the tree
(2.1), a module namespace rebound at run time (2.2), the outcome recorder rewritten from inside the
run (2.3). The parent is the one :mod:`tests.integration.test_score_run` measures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle_gate.judge.verdict import Outcome
from tests.integration.test_map_drift import TESTS, make_first, map_of
from tests.integration.test_score_run import CALC, Parent, parent, score_forced
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

__all__ = ["parent"]  # the module-scoped fixture of test_score_run, measured once for this module

EVIL_HOOKS = """\
import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        report.outcome = "passed"
    return report
"""


def test_a_plugin_set_through_globals_in_a_test_module_changes_the_runner_config(parent: Parent) -> None:
    repo = parent.branch("tree-plugin")
    repo.write("src/calc.py", CALC.replace("return a + b", "return a - b"))  # breaks test_add
    repo.write("tests/evil_hooks.py", EVIL_HOOKS)
    repo.write(
        "tests/test_more.py",
        'globals()["pytest_" + "plugins"] = ["evil_hooks"]\n\n\ndef test_x():\n    pass\n',
    )
    result = score_forced(parent, repo.commit("a plugin the plugin set never saw"))
    assert result.score.score == Outcome.FAIL
    changed = next(r for r in result.score.reasons if r.code == "runner_config_changed")
    assert "tree:tests/evil_hooks.py" in changed.detail


FORGE_THROUGH_GC = """

import gc as _gc


def _forge():
    for obj in _gc.get_objects():
        if type(obj).__name__ == "OutcomeLog":
            real = obj.document

            def document(real=real):
                doc = real()
                doc["outcomes"] = {test: "passed" for test in doc["outcomes"]}
                return doc

            obj.document = document


_forge()
"""


def test_an_outcome_recorder_rewritten_through_gc_is_a_tampered_score(parent: Parent) -> None:
    repo = parent.branch("forge-outcomes")
    repo.write("src/calc.py", CALC.replace("return a + b", "return a - b") + FORGE_THROUGH_GC)
    result = score_forced(parent, repo.commit("rewrites the recorder"))
    assert result.score.score == Outcome.FAIL
    first = result.runs[0]
    assert first.outcomes["tests/test_calc.py::test_add"] == "passed"  # the recorder was rewritten
    tampered = next(r for r in result.score.reasons if r.code == "score_tampered")
    assert "tests/test_calc.py::test_add" in tampered.tests
    assert "recorder passed, witness failed" in tampered.detail


SCRUB_AT_EXIT = """

import atexit as _atexit
import glob as _glob
import os as _os
import sqlite3 as _sqlite3


def _scrub():
    # wherever the collector writes: its own variable (ORACLE_GATE_DATA) or coverage.py's
    found = [_os.environ.get(v) for v in ("ORACLE_GATE_DATA", "COVERAGE_FILE")]
    for name in [n for stem in filter(None, found) for n in _glob.glob(stem + "*")]:
        db = _sqlite3.connect(name)
        frozen = "select id from context where context like '%test_jitter%'"
        calc = "select id from file where path like '%calc.py'"
        db.execute(f"delete from line_bits where context_id in ({frozen}) and file_id in ({calc})")
        db.commit()
        db.close()


_atexit.register(_scrub)
"""


def test_a_map_rewritten_after_the_collector_finished_is_no_map(tmp_path: Path) -> None:
    """v2 2.5: a merged test deletes the frozen test's rows of one file at exit; ``map`` names the file."""
    repo = Repo(tmp_path / "repo")
    first = make_first(repo)
    before = map_of(repo, first, tmp_path / "first.coverage")
    assert before.returncode == 0, before.stderr
    repo.write("tests/test_calc.py", TESTS + SCRUB_AT_EXIT)
    second = repo.commit("a merged test scrubs the frozen test's rows at exit")
    previous = f"{tmp_path / 'first.coverage'}.manifest.json"
    out = tmp_path / "second.coverage"
    proc = map_of(repo, second, out, "--repeat", "2", "--previous", previous, "--fail-on-drift")
    assert proc.returncode == 3, proc.stderr
    assert "the data changed after the collector finished writing it" in proc.stderr
    assert "raw.coverage" in proc.stderr  # the file is named
    assert not out.exists()


SHAKER = """\
def add(a, b):
    return a + b


def jitter(x):
    return x * 2 + 1


class Shaker:
    def shake(self, x):
        return -x
"""
SHAKER_TESTS = """\
from calc import Shaker, add, jitter


def test_add():
    assert add(1, 2) == 3


def test_jitter():
    assert jitter(1) == 3
    assert Shaker().shake(1) == -1
"""
FROZEN_JITTER = "tests/test_calc.py::test_jitter"


@pytest.fixture(scope="module")
def shaker(tmp_path_factory: pytest.TempPathFactory) -> Parent:
    """A parent whose ``jitter`` and ``Shaker.shake`` only the frozen test observes."""
    root = tmp_path_factory.mktemp("rebinding")
    repo = Repo(root / "repo")
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    repo.write("src/calc.py", SHAKER)
    repo.write("tests/test_calc.py", SHAKER_TESTS)
    first = repo.commit("calc")
    entry = {"nodeid": FROZEN_JITTER, "reason": "jitter", "bound_sha": first}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    sha = repo.commit("freeze jitter")
    out = root / "maps" / "parent.coverage"
    done = run_cli("map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), env=clean_env())
    assert done.returncode == 0, done.stderr
    return Parent(repo, sha, out)


FAST = "\n\ndef _fast(x):\n    return 0\n\n\n"
SPELLINGS = {
    "import-module-name": FAST + "import importlib\n\nimportlib.import_module(__name__).jitter = _fast\n",
    "globals-in-a-list": FAST + "[globals()][0]['jit' + 'ter'] = _fast\n",
    "globals-from-a-function": FAST + "def _ns():\n    return globals()\n\n\n_ns()['jitter'] = _fast\n",
    "a-method-of-a-class-in-the-file": "\n\nShaker.shake = lambda self, x: 0\n",
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_frozen_only_definition_rebound_at_run_time_is_a_freeze_overlap(
    shaker: Parent, spelling: str
) -> None:
    """v2 2.2: the namespace watch sees each spelling; the rebound definition's parent lines are
    touched, so the recomputed diff verdict says what it says of an edit of it."""
    repo = shaker.branch(spelling)
    repo.write("src/calc.py", SHAKER + SPELLINGS[spelling])
    result = score_forced(shaker, repo.commit(spelling))
    assert result.score.score != Outcome.PASS_CLEAN
    assert "dynamic_rebinding" in result.score.codes
    assert "freeze_overlap" in result.score.codes
    rebinding = next(r for r in result.score.reasons if r.code == "dynamic_rebinding")
    assert "calc." + ("Shaker.shake" if "method" in spelling else "jitter") in rebinding.detail


def test_import_with_a_computed_name_from_a_test_module_is_seen_at_the_end_of_collection(
    shaker: Parent,
) -> None:
    repo = shaker.branch("computed-import")
    repo.write("tests/test_more.py", "__import__('ca' + 'lc').jitter = abs\n\n\ndef test_more():\n    pass\n")
    result = score_forced(shaker, repo.commit("computed import"))
    rebinding = next(r for r in result.score.reasons if r.code == "dynamic_rebinding")
    assert "calc.jitter (src/calc.py) at the end of collection" in rebinding.detail
    assert "freeze_overlap" in result.score.codes


def test_monkeypatching_that_tests_undo_and_a_clean_change_raise_nothing(shaker: Parent) -> None:
    repo = shaker.branch("undone")
    repo.write(
        "tests/test_more.py",
        "import calc\n\n\ndef test_more(monkeypatch):\n"
        "    monkeypatch.setattr(calc, 'jitter', abs)\n    monkeypatch.setattr(calc.Shaker, 'shake', abs)\n",
    )
    repo.write("src/calc.py", SHAKER.replace("return a + b", "return b + a"))
    result = score_forced(shaker, repo.commit("patches undone"))
    assert result.score.codes == ["live_tests_passed"]
    assert all(not run.rebound for run in result.runs)
