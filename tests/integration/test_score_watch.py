"""SCORING.md v2 on real runs: the scoring run watches what head's code does (issue 30).

Each test is an attack that scored ``pass_clean`` before the watch: a plugin registered from the tree
(2.1), a module namespace rebound at run time (2.2), the outcome recorder rewritten from inside the
run (2.3). The parent is the one :mod:`tests.integration.test_score_run` measures.
"""

from __future__ import annotations

from pathlib import Path

from oracle_gate.judge.verdict import Outcome
from tests.integration.test_map_drift import TESTS, make_first, map_of
from tests.integration.test_score_run import CALC, Parent, parent, score_forced
from tests.support.repo import Repo

__all__ = ["parent"]  # the module-scoped fixture, measured once for this module

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
    for name in _glob.glob(_os.environ.get("COVERAGE_FILE", ".coverage") + "*"):
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
