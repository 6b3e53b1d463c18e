"""The score's decision (SCORING.md 4-5) on plain values: every reason, the severity order, and
the rule that a run that could not report never scores ``pass_clean``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from oracle_gate.judge.freeze import Freeze, FreezeEntry
from oracle_gate.judge.verdict import Outcome
from oracle_gate.score.decide import (
    HeadRun,
    ParentRun,
    decide,
    from_diff_verdict,
    live_tests,
    parametrization_leaks,
    plugin_difference,
)

PLUGINS = {"pytest-cov": "7.1.0", "oracle-gate": "0.1.0"}
PARENT = ParentRun(
    outcomes={"t.py::a": "passed", "t.py::b": "passed", "t.py::s": "skipped", "h/test_h.py::h": "passed"},
    plugins=PLUGINS,
)
LIVE = frozenset(PARENT.outcomes)
HARNESS = frozenset({"h/test_h.py::h"})


def run(label: str = "first", **changes: str) -> HeadRun:
    outcomes = {**PARENT.outcomes, **changes}
    return HeadRun(
        label, outcomes={k: v for k, v in outcomes.items() if v != "-"}, plugins=PLUGINS, harness=HARNESS
    )


def two(**changes: str) -> tuple[HeadRun, HeadRun]:
    return run("first", **changes), run("second", **changes)


def test_the_same_outcomes_in_both_runs_pass_clean() -> None:
    score = decide(PARENT, LIVE, two())
    assert (score.score, score.codes) == (Outcome.PASS_CLEAN, ["live_tests_passed"])


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"t.py::a": "-"}, "live_test_missing"),
        ({"t.py::a": "skipped"}, "live_test_skipped"),
        ({"t.py::a": "xfailed"}, "live_test_skipped"),
        ({"t.py::a": "failed"}, "tests_failed"),
        ({"t.py::a": "error"}, "tests_failed"),
        ({"new.py::n": "failed"}, "tests_failed"),
        ({"h/test_h.py::h": "failed"}, "harness_failed"),
    ],
)
def test_each_fail_reason(changes: dict[str, str], code: str) -> None:
    score = decide(PARENT, LIVE, two(**changes))
    assert (score.score, score.codes) == (Outcome.FAIL, [code])


def test_a_test_the_parent_skipped_may_stay_skipped() -> None:
    assert decide(PARENT, LIVE, two(**{"t.py::s": "skipped"})).score == Outcome.PASS_CLEAN


def test_a_different_outcome_in_the_second_run_is_not_replayable_with_both_outcomes() -> None:
    first, second = run("first"), run("second", **{"new.py::n": "passed"})
    first = HeadRun("first", outcomes={**first.outcomes, "new.py::n": "skipped"}, plugins=PLUGINS)
    score = decide(PARENT, LIVE, (first, second))
    assert (score.score, score.codes) == (Outcome.UNSCORED, ["not_replayable"])
    assert "new.py::n: skipped then passed" in score.reasons[0].detail


def test_a_plugin_added_removed_or_at_another_version_changes_the_runner_config() -> None:
    for plugins in ({**PLUGINS, "evil": "1"}, {"pytest-cov": "7.1.0"}, {**PLUGINS, "pytest-cov": "7.0"}):
        runs = tuple(HeadRun(r.label, outcomes=r.outcomes, plugins=plugins, harness=HARNESS) for r in two())
        score = decide(PARENT, LIVE, runs)
        assert (score.score, score.codes) == (Outcome.FAIL, ["runner_config_changed"])
    assert plugin_difference(PLUGINS, {**PLUGINS, "evil": "1"}) == ["evil 1 added"]


def test_a_harness_failure_does_not_count_the_tree_tests_it_stopped_as_missing() -> None:
    stopped = HeadRun(
        "first", outcomes={"h/test_h.py::h": "failed"}, plugins=PLUGINS, harness=HARNESS, harness_stopped=True
    )
    score = decide(PARENT, LIVE, (stopped,))
    assert score.codes == ["harness_failed"]
    assert "not run" in score.reasons[0].detail


def test_a_leak_stops_the_score() -> None:
    leaked = HeadRun("first", plugins=PLUGINS, leaked=("t.py::p[new]",))
    score = decide(PARENT, LIVE, (leaked,))
    assert (score.score, score.codes) == (Outcome.FAIL, ["freeze_leaked"])


def test_a_run_that_could_not_report_is_never_pass_clean() -> None:
    broken = HeadRun("second", problem="the wall-clock limit was reached; the run was killed")
    score = decide(PARENT, LIVE, (run("first"), broken))
    assert (score.score, score.codes) == (Outcome.UNSCORED, ["scoring_incomplete"])
    assert decide(PARENT, LIVE, ()).score == Outcome.UNSCORED


def test_nothing_to_compare_is_not_a_pass() -> None:
    score = decide(PARENT, frozenset(), two())
    assert (score.score, score.codes) == (Outcome.UNSCORED, ["scoring_incomplete"])


def test_a_single_complete_run_still_compares_but_one_run_is_not_a_replay() -> None:
    # decide() compares what it is given; the verify stage demands two runs (test_score_verify.py).
    assert decide(PARENT, LIVE, (run("first", **{"t.py::a": "-"}),)).codes == ["live_test_missing"]


def test_the_diff_verdict_is_the_score_when_it_is_not_pass_clean() -> None:
    score = from_diff_verdict(Outcome.UNSCORED, [("no_added_lines", "nothing added")])
    assert (score.score, score.codes) == (Outcome.UNSCORED, ["no_added_lines"])


def test_live_tests_leave_out_frozen_tests_and_deleted_or_renamed_files() -> None:
    freeze = Freeze((FreezeEntry(0, "t.py::b", "flaky", None),))
    live = live_tests(["t.py::a", "t.py::b", "gone.py::x"], freeze.is_frozen, ["gone.py"])
    assert live == {"t.py::a"}


def test_a_frozen_parametrized_test_under_a_new_id_leaks() -> None:
    assert parametrization_leaks(
        ["t.py::p[1]"], ["t.py::p[11]", "t.py::p[2]"], ["t.py::p[1]", "t.py::p[2]"]
    ) == ["t.py::p[11]"]
    assert parametrization_leaks(["t.py::p[1]"], ["t.py::p[2]"], ["t.py::p[1]", "t.py::p[2]"]) == []
    assert parametrization_leaks(["t.py::p"], ["t.py::p[3]"], []) == []  # not a parametrized entry
    # A case added beside the frozen one, which still matches: not a leak.
    assert (
        parametrization_leaks(["t.py::p[1]"], ["t.py::p[1]", "t.py::p[2]", "t.py::p[3]"], ["t.py::p[1]"])
        == []
    )


@pytest.mark.parametrize("name", ["decide.py", "verify.py"])
def test_the_decision_modules_do_no_io(name: str) -> None:
    path = Path(__file__).resolve().parents[2] / "gate" / "score" / name
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    io = {
        "os",
        "io",
        "subprocess",
        "socket",
        "pathlib",
        "shutil",
        "tempfile",
        "sqlite3",
        "oracle_gate.score.run",
    }
    assert not names & io
