"""``oracle-gate score`` on real temporary repositories with real pytest runs (SCORING.md).

One parent is measured once per module with ``oracle-gate map`` (its manifest records the outcomes
and the plugin set); every test makes its own head on a branch of it and scores it.

Several attacks below are judged with the diff verdict forced to ``pass_clean``
(:func:`score_forced`): they are exactly the changes a later contract's static rules may already
fail (VERDICT.md v3.1 names some skip spellings), and what these tests check is that the *run*
catches them whatever the diff verdict says, which is the scoring run's point: at run time every
dynamic skip is "a live test the parent ran did not pass", whatever its spelling.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from oracle_gate.check import CheckRequest, run_check
from oracle_gate.judge.verdict import Outcome
from oracle_gate.score.decide import ScoreResult
from oracle_gate.score.run import RunSetup, ScoreRequest, run_env, run_score
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

CALC = """\
CASES = [1, 2]


def add(a, b):
    return a + b


def mul(a, b):
    return a * b
"""
TESTS = """\
import pytest

from calc import CASES, add, mul


def test_add():
    assert add(1, 2) == 3


def test_mul():
    assert mul(2, 3) == 6


@pytest.mark.parametrize("n", CASES)
def test_case(n):
    assert mul(n, 1) == n
"""
HARNESS = """\
from calc import add


def test_harness():
    assert add(0, 0) == 0
"""
FREEZE = {
    "schema": 1,
    "frozen": [{"nodeid": "tests/test_calc.py::test_case[1]", "reason": "flaky on the runners"}],
}


class Parent:
    def __init__(self, repo: Repo, sha: str, coverage: Path) -> None:
        self.repo, self.sha, self.coverage = repo, sha, coverage

    def branch(self, name: str) -> Repo:
        self.repo.git("checkout", "-q", "-B", name, self.sha)
        return self.repo


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Parent:
    root = tmp_path_factory.mktemp("score")
    repo = Repo(root / "repo")
    repo.write("src/calc.py", CALC)
    repo.write("tests/test_calc.py", TESTS)
    repo.write("harness/test_harness.py", HARNESS)
    frozen = repo.commit("before the freeze")
    entry = {**FREEZE["frozen"][0], "bound_sha": frozen}  # type: ignore[index]
    repo.write("freeze.json", json.dumps({**FREEZE, "frozen": [entry]}))
    sha = repo.commit("parent")
    out = root / "maps" / "parent.coverage"
    done = run_cli("map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), env=clean_env())
    assert done.returncode == 0, done.stderr
    return Parent(repo, sha, out)


def score(parent: Parent, head: str, tmp_path: Path) -> tuple[int, dict[str, object]]:
    """The command as a user runs it; its exit status and score.json."""
    out = tmp_path / "score.json"
    args = ["score", "--repo", str(parent.repo.root), "--base", parent.sha, "--head", head]
    args += ["--coverage", str(parent.coverage), "--score-json", str(out), "--format", "json"]
    done = run_cli(*args, env=clean_env())
    assert out.is_file(), done.stderr
    doc = json.loads(out.read_text())
    assert json.loads(done.stdout) == doc
    return done.returncode, doc


def score_forced(parent: Parent, head: str) -> ScoreResult:
    """The run's judgement with the diff verdict forced to ``pass_clean`` (see the module's docstring)."""
    request = CheckRequest(repo=parent.repo.root, base=parent.sha, head=head, coverage=parent.coverage)
    verdict = replace(run_check(request), verdict=Outcome.PASS_CLEAN, reasons=())
    return run_score(
        ScoreRequest(repo=parent.repo.root, base=parent.sha, head=head, coverage=parent.coverage),
        judged=verdict,
    )


def codes(doc: dict[str, object]) -> list[str]:
    reasons = doc["reasons"]
    assert isinstance(reasons, list)
    return [r["code"] for r in reasons]


def test_the_parent_manifest_records_outcomes_plugins_and_python(parent: Parent) -> None:
    doc = json.loads(Path(str(parent.coverage) + ".manifest.json").read_text())
    assert doc["outcomes"] == {
        "harness/test_harness.py::test_harness": "passed",
        "tests/test_calc.py::test_add": "passed",
        "tests/test_calc.py::test_case[1]": "passed",
        "tests/test_calc.py::test_case[2]": "passed",
        "tests/test_calc.py::test_mul": "passed",
    }
    names = {p["name"]: p["version"] for p in doc["pytest_plugins"]}
    assert names["pytest-cov"] == "7.1.0"
    assert any("oracle-gate" in name and version for name, version in names.items())  # the gate's own
    assert doc["python_version"] == ".".join(map(str, sys.version_info[:3]))


def test_the_test_runs_get_no_secret_and_no_gate_settings_from_the_caller(tmp_path: Path) -> None:
    setup = RunSetup(tmp_path, tmp_path, sys.executable, ["harness/**"], None, tmp_path / "ids.json", 0.0)
    caller = {"PATH": "/bin", "GITHUB_TOKEN": "t", "ORACLE_GATE_WEBHOOK_SECRET": "s", "APP_PRIVATE_KEY": "k"}
    caller |= {
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "o",
        "PYTEST_ADDOPTS": "-p evil",
        "AWS_SECRET_ACCESS_KEY": "a",
    }
    first, second = (run_env(setup, index, tmp_path / "r", caller) for index in (0, 1))
    assert first["PATH"] == "/bin"
    assert not set(caller) - {"PATH"} & set(first)
    assert (first["TZ"], first["LC_ALL"]) == ("UTC", "C.UTF-8")
    assert first["PYTHONHASHSEED"] != second["PYTHONHASHSEED"]
    assert (first["ORACLE_GATE_SCORE_REVERSE"], second["ORACLE_GATE_SCORE_REVERSE"]) == ("0", "1")


def test_a_clean_change_passes_both_runs(parent: Parent, tmp_path: Path) -> None:
    repo = parent.branch("clean")
    repo.write("src/calc.py", CALC.replace("return a + b", "return b + a"))
    head = repo.commit("clean")
    status, doc = score(parent, head, tmp_path)
    assert (status, doc["score"], codes(doc)) == (0, "pass_clean", ["live_tests_passed"])
    # The trusted stage accepts the report it can check, and rejects it altered or about another head.
    report = tmp_path / "score.json"
    verify = ["score-verify", "--report", str(report), "--repo", str(parent.repo.root), "--base", parent.sha]
    verify += ["--coverage", str(parent.coverage), "--format", "json"]
    accepted = run_cli(*verify, "--head", head, env=clean_env())
    assert (accepted.returncode, json.loads(accepted.stdout)["score"]) == (0, "pass_clean"), accepted.stderr
    other = run_cli(*verify, "--head", repo.commit("another head"), env=clean_env())
    assert json.loads(other.stdout)["reasons"][0]["code"] == "score_report_rejected"
    altered = json.loads(report.read_text())
    altered["runs"][1]["outcomes"]["tests/test_calc.py::test_add"] = "skipped"
    report.write_text(json.dumps(altered))
    forged = run_cli(*verify, "--head", head, env=clean_env())
    assert (forged.returncode, json.loads(forged.stdout)["score"]) == (2, "unscored")
    report.unlink()  # stage 1 uploaded nothing: unscored, never an error that could read as a pass
    missing = run_cli(*verify, "--head", head, env=clean_env())
    assert (missing.returncode, json.loads(missing.stdout)["reasons"][0]["code"]) == (
        2,
        "score_report_rejected",
    )
    runs = doc["runs"]
    assert isinstance(runs, list)
    assert [r["label"] for r in runs] == ["first", "second"]
    for run in runs:
        assert "tests/test_calc.py::test_case[1]" not in run["outcomes"]  # frozen: not collected
        assert run["outcomes"]["tests/test_calc.py::test_add"] == "passed"
    assert doc["parent"] == parent.sha
    assert doc["diff_verdict"]["verdict"] == "pass_clean"  # type: ignore[index]


@pytest.mark.parametrize(
    "spelling",
    [
        "    import pytest\n    getattr(pytest, 'sk' + 'ip')('not today')\n",
        "    import pytest\n    raise pytest.skip.Exception('not today')\n",
        "    from _pytest.outcomes import skip as x\n    x('not today')\n",
    ],
    ids=["getattr", "skip-exception", "outcomes-alias"],
)
def test_each_dynamic_skip_spelling_is_a_skipped_live_test(parent: Parent, spelling: str) -> None:
    repo = parent.branch("skip")
    repo.write("src/calc.py", CALC.replace("def mul(a, b):\n", "def mul(a, b):\n" + spelling))
    result = score_forced(parent, repo.commit("skip"))
    assert result.score.score == Outcome.FAIL
    skipped = next(r for r in result.score.reasons if r.code == "live_test_skipped")
    assert "tests/test_calc.py::test_mul" in skipped.tests
    assert "not today" in skipped.detail


def test_a_test_module_that_cannot_be_imported_is_a_missing_live_test(parent: Parent, tmp_path: Path) -> None:
    repo = parent.branch("uncollectable")
    repo.write("src/calc.py", CALC + "\nif __name__ == 'calc':\n    raise ImportError('gone')\n")
    status, doc = score(parent, repo.commit("raises at import"), tmp_path)
    assert status == 1
    assert "live_test_missing" in codes(doc)
    missing = next(r for r in doc["reasons"] if r["code"] == "live_test_missing")  # type: ignore[attr-defined]
    assert "tests/test_calc.py::test_add" in missing["tests"]


def test_an_order_dependent_test_is_not_replayable(parent: Parent) -> None:
    repo = parent.branch("order")
    repo.write(
        "tests/test_order.py",
        "SEEN = []\n\n\ndef test_first():\n    SEEN.append(1)\n\n\ndef test_second():\n    assert SEEN\n",
    )
    result = score_forced(parent, repo.commit("order"))
    replay = next(r for r in result.score.reasons if r.code == "not_replayable")
    assert replay.tests == ("tests/test_order.py::test_second",)
    assert "passed then failed" in replay.detail  # both outcomes reported
    assert [run.label for run in result.runs] == ["first", "second"]


def test_a_plugin_arriving_through_an_entry_point_changes_the_runner_config(parent: Parent) -> None:
    """A distribution on the run's ``sys.path`` (here the checkout's root, which ``python -m pytest``
    puts first) with a ``pytest11`` entry point: pytest loads it like any installed dependency's."""
    repo = parent.branch("plugin")
    repo.write("sneaky_dep-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: sneaky-dep\nVersion: 1.0\n")
    repo.write("sneaky_dep-1.0.dist-info/entry_points.txt", "[pytest11]\nsneaky = sneaky_plugin\n")
    repo.write("sneaky_plugin.py", "def pytest_configure(config):\n    config.sneaky = True\n")
    result = score_forced(parent, repo.commit("plugin"))
    changed = next(r for r in result.score.reasons if r.code == "runner_config_changed")
    assert "sneaky-dep 1.0 added" in changed.detail
    assert result.score.score == Outcome.FAIL


def test_head_code_cannot_replace_pytest_or_forge_the_run_report(parent: Parent) -> None:
    """A root ``pytest.py`` would be what ``python -m pytest`` runs if the checkout came first on
    ``sys.path``; and code of the change runs in the test process, where it can append to the
    plugin's report. The runner starts Python with ``-P`` and counts the report's finish events."""
    repo = parent.branch("forge")
    forged = json.dumps({"event": "finish", "outcomes": {}, "plugins": []})
    repo.write("pytest.py", "raise SystemExit('head replaced pytest')\n")
    repo.write(
        "src/calc.py",
        CALC + "\nimport atexit, os\n\n"
        "_path = os.environ.get('ORACLE_GATE_SCORE_REPORT') or next(\n"
        "    (v for k, v in os.environ.items() if k.endswith('_REPORT')), None)\n"
        f"atexit.register(lambda: _path and open(_path, 'a').write({forged!r} + '\\n'))\n",
    )
    result = score_forced(parent, repo.commit("forge"))
    assert result.score.score == Outcome.PASS_CLEAN  # the real run: the forgery found no report path
    repo.write(
        "src/calc.py",
        CALC + "\nimport gc, atexit\n\n"
        "def _forge():\n"
        "    for obj in gc.get_objects():\n"
        "        if type(obj).__name__ == 'ScorePlugin':\n"
        f"            open(obj.report, 'a').write({forged!r} + '\\n')\n\n"
        "atexit.register(_forge)\n",
    )
    result = score_forced(parent, repo.commit("forge through the plugin object"))
    assert result.score.codes == ["scoring_incomplete"]
    assert "finish events" in result.score.reasons[0].detail


def test_a_frozen_test_under_a_new_parameter_id_leaks_the_freeze(parent: Parent) -> None:
    repo = parent.branch("leak")
    repo.write("src/calc.py", CALC.replace("CASES = [1, 2]", "CASES = [11, 2]"))
    result = score_forced(parent, repo.commit("new ids"))
    assert result.score.codes == ["freeze_leaked"]
    assert result.score.reasons[0].tests == ("tests/test_calc.py::test_case[11]",)
    assert len(result.runs) == 1
    assert not result.runs[0].outcomes  # stopped before any test ran
    # A case added beside the frozen one (which the freeze still matches) is no leak.
    repo.write("src/calc.py", CALC.replace("CASES = [1, 2]", "CASES = [1, 2, 3]"))
    added = score_forced(parent, repo.commit("a new case"))
    assert added.score.codes == ["live_tests_passed"]
    assert added.runs[0].outcomes["tests/test_calc.py::test_case[3]"] == "passed"


def test_a_failing_harness_stops_before_the_tree_tests(parent: Parent) -> None:
    repo = parent.branch("harness")
    repo.write("src/calc.py", CALC.replace("return a + b", "return a + b if (a, b) != (0, 0) else 1"))
    result = score_forced(parent, repo.commit("breaks the harness"))
    assert result.score.codes == ["harness_failed"]
    (run,) = result.runs
    assert run.harness_stopped
    assert set(run.outcomes) == {"harness/test_harness.py::test_harness"}  # no tree test ran


def test_a_diff_verdict_that_is_not_pass_clean_runs_nothing(parent: Parent, tmp_path: Path) -> None:
    marker = tmp_path / "head-code-ran"
    repo = parent.branch("unscored")
    # Only deletions (no added line): the diff verdict is unscored; head's code would leave a marker.
    repo.write("src/calc.py", CALC.replace("\n\ndef mul(a, b):\n    return a * b\n", "\n"))
    repo.write("tests/test_calc.py", TESTS.replace("\n\ndef test_mul():\n    assert mul(2, 3) == 6\n", ""))
    status, doc = score(parent, repo.commit("deletes only"), tmp_path)
    assert (status, doc["score"], doc["runs"]) == (2, "unscored", [])
    assert codes(doc) == ["no_added_lines"]
    repo = parent.branch("fails")
    repo.write("harness/test_harness.py", HARNESS + f"\nopen({str(marker)!r}, 'w').close()\n")
    status, doc = score(parent, repo.commit("edits the harness"), tmp_path)
    assert (status, doc["score"], doc["runs"]) == (1, "fail", [])
    assert not marker.exists()


def test_a_src_layout_package_is_imported_from_the_tree_not_an_installed_copy(tmp_path: Path) -> None:
    """As ``map`` measured the parent (``src/`` first on the path): a project whose package is also
    installed under its name (iniconfig, which pytest itself needs, is the real case) is scored on its
    own code; the score's runs imported the installed copy, collected nothing and said ``fail``."""
    repo = Repo(tmp_path / "repo")
    repo.write(PACKAGE, TREE_PACKAGE)
    repo.write("tests/test_parse.py", TREE_TESTS)
    sha = repo.commit("parent")
    out = tmp_path / "maps" / "parent.coverage"
    done = run_cli("map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), env=clean_env())
    assert done.returncode == 0, done.stderr
    repo.write(PACKAGE, TREE_PACKAGE.replace("text.split()", "text.split()  # ok"))
    head = repo.commit("an honest comment")
    result = tmp_path / "score.json"
    args = ["score", "--repo", str(repo.root), "--base", sha, "--head", head, "--coverage", str(out)]
    scored = run_cli(*args, "--score-json", str(result), env=clean_env())
    doc = json.loads(result.read_text())
    assert (scored.returncode, doc["score"]) == (0, "pass_clean"), doc["reasons"]


PACKAGE = "src/markdown_it/__init__.py"  # installed here too, as markdown-it-py
TREE_PACKAGE = 'SOURCE = "tree"\n\n\ndef parse(text):\n    return text.split()\n'
TREE_TESTS = """import markdown_it


def test_the_trees_package():
    assert markdown_it.SOURCE == "tree"
    assert markdown_it.parse("a b") == ["a", "b"]
"""
