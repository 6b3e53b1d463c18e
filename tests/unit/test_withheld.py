"""The core's rules for verdicts it could not make in full (issues 17 and 27: every verdict comes
from ``evaluate``, none is edited after): no trusted map of the parent, a limit reached before the
change was read, and a stored verdict the change could have forged."""

from __future__ import annotations

import dataclasses

from oracle_gate.judge.verdict import Evidence, Outcome, ReasonCode, evaluate
from oracle_gate.judge.withheld import change_too_large, not_read, stored_verdict_distrusted
from tests.support import verdicts
from tests.support.factories import added, change_set, evidence, lines, modified, observed

PASSING = evidence(change_set(modified("src/m.py", lines("a", "b"), lines("a", "c"))), coverage=observed({}))
FAILING = evidence(change_set(added("harness/test_prop.py", lines("def test_x(): pass"))))


def without_map(ev: Evidence, why: str) -> Evidence:
    return dataclasses.replace(ev, map_missing=why)


def test_a_verdict_without_a_map_is_never_pass_clean_and_says_why() -> None:
    assert evaluate(PASSING).verdict == Outcome.PASS_CLEAN
    v = evaluate(without_map(PASSING, "no map of the parent\nwas uploaded"))
    assert v.verdict == Outcome.UNSCORED
    assert v.reasons[0].code == ReasonCode.ORACLE_INCOMPLETE
    assert v.reasons[0].detail == "trusted map store: no map of the parent was uploaded"
    assert v.reasons[1:] == evaluate(PASSING).reasons


def test_a_worse_verdict_without_a_map_keeps_its_outcome() -> None:
    assert evaluate(FAILING).verdict == Outcome.FAIL
    assert evaluate(without_map(FAILING, "none")).verdict == Outcome.FAIL


def test_a_limit_reached_before_reading_is_unscored_and_names_it() -> None:
    v = not_read("p" * 40, "h" * 40, "the judgement ran past 600 s (ORACLE_GATE_JOB_SECONDS)", "1.0")
    assert v.verdict == Outcome.UNSCORED
    assert [(r.code, r.detail) for r in v.reasons] == [
        (ReasonCode.ORACLE_INCOMPLETE, "the judgement ran past 600 s (ORACLE_GATE_JOB_SECONDS)")
    ]


def test_untrusted_stored_verdict_becomes_fail_naming_each_workflow() -> None:
    v = stored_verdict_distrusted(
        verdicts.passing(), [".github/workflows/a.yml", ".github/workflows/b.yml"], "9.9.9"
    )
    assert v.verdict == "fail"
    assert [(r.code, r.path) for r in v.reasons] == [
        ("oracle_edit_forbidden", ".github/workflows/a.yml"),
        ("oracle_edit_forbidden", ".github/workflows/b.yml"),
    ]
    assert "stored verdict (pass_clean)" in v.reasons[0].detail
    assert v.protocol.gate_version == "9.9.9"
    assert (v.parent, v.head) == (verdicts.passing().parent, verdicts.passing().head)


def test_a_stored_verdict_with_no_workflow_edit_or_already_fail_stands() -> None:
    passing, failing = verdicts.passing(), verdicts.failing()
    assert stored_verdict_distrusted(passing, [], "1") is passing
    assert stored_verdict_distrusted(failing, [".github/workflows/a.yml"], "1") is failing


def test_a_change_over_the_budget_is_unscored_and_says_by_how_much() -> None:
    v = change_too_large("p" * 40, "h" * 40, 70_000_000, 67_108_864, "1.0")
    assert v.verdict == Outcome.UNSCORED
    (reason,) = v.reasons
    assert reason.code == ReasonCode.ORACLE_INCOMPLETE
    assert "70000000 bytes" in reason.detail
    assert "67108864-byte budget" in reason.detail
    assert (v.parent, v.head) == ("p" * 40, "h" * 40)
