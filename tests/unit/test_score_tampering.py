"""SCORING.md v2, 2.3: a run's recorder, its second witness and the process's exit status must agree
(oracle_gate.score.tampering, oracle_gate.score.witness, the decision's ``score_tampered``)."""

from __future__ import annotations

import json

from oracle_gate.judge.verdict import Outcome
from oracle_gate.score.decide import HeadRun, ParentRun, decide
from oracle_gate.score.tampering import Witnessed, disagreements
from oracle_gate.score.witness import witnessed_outcomes

PASSED = {"t.py::a": "passed", "t.py::b": "passed"}


def lines(*events: dict[str, object]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def phase(nodeid: str, when: str, result: str) -> dict[str, object]:
    return {
        "n": nodeid,
        "w": when,
        "p": result == "passed",
        "f": result == "failed",
        "s": result == "skipped",
    }


def test_the_witness_folds_phases_as_the_recorder_does() -> None:
    data = lines(
        phase("t.py::a", "setup", "passed"),
        phase("t.py::a", "call", "failed"),
        phase("t.py::a", "teardown", "passed"),
        phase("t.py::b", "setup", "skipped"),
        {"exit": 1},
    )
    assert witnessed_outcomes(data) == ({"t.py::a": "failed", "t.py::b": "skipped"}, 1, 0)
    assert witnessed_outcomes(data + b"not json\n" + lines({"exit": 0}))[1:] == (-1, 1)


def test_agreeing_witnesses_say_nothing_and_each_disagreement_is_named() -> None:
    assert disagreements(PASSED, 0, Witnessed(PASSED, 0, 0)) == ([], [])
    forged = {**PASSED, "t.py::a": "failed"}
    phrases, tests = disagreements(PASSED, 1, Witnessed(forged, 1, 1))
    assert tests == ["t.py::a"]
    assert "recorder passed, witness failed" in phrases[0]
    phrases, _ = disagreements(PASSED, 0, Witnessed(PASSED, 0, 1))
    assert any("exit statuses differ" in p for p in phrases)
    assert disagreements(PASSED, 1, Witnessed(PASSED, 1, 1)) == ([], [])  # --cov-fail-under, say
    phrases, tests = disagreements(forged, 0, Witnessed(forged, 0, 0))
    assert phrases == ["pytest exited 0, but 1 test(s) failed"]
    assert tests == ["t.py::a"]


def test_a_tampered_run_fails_the_score() -> None:
    parent = ParentRun(PASSED, {})
    honest = HeadRun("first", PASSED, exit_status=0, witnessed=Witnessed(PASSED, 0, 0))
    lied = HeadRun(
        "second", PASSED, exit_status=0, witnessed=Witnessed({**PASSED, "t.py::b": "failed"}, 1, 1)
    )
    assert decide(parent, frozenset(PASSED), (honest, honest)).score == Outcome.PASS_CLEAN
    score = decide(parent, frozenset(PASSED), (honest, lied))
    assert (score.score, score.codes) == (Outcome.FAIL, ["score_tampered"])
    assert score.reasons[0].tests == ("t.py::b",)
