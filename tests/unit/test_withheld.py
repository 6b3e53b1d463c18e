"""The core's rules for verdicts it could not make in full (issue 17: every verdict comes from
gate/judge): no trusted map of the parent, and a stored verdict the change could have forged."""

from __future__ import annotations

import pytest

from oracle_gate.judge.verdict import Outcome, ReasonCode
from oracle_gate.judge.withheld import change_too_large, map_unavailable, stored_verdict_distrusted
from tests.support import verdicts


def test_a_verdict_without_a_map_is_never_pass_clean_and_says_why() -> None:
    v = map_unavailable(verdicts.passing(), "no map of the parent\nwas uploaded")
    assert v.verdict == Outcome.UNSCORED
    assert v.reasons[0].code == ReasonCode.ORACLE_INCOMPLETE
    assert v.reasons[0].detail == "trusted map store: no map of the parent was uploaded"
    assert v.reasons[1:] == verdicts.passing().reasons


@pytest.mark.parametrize("made", [verdicts.failing, verdicts.unscored], ids=["fail", "unscored"])
def test_a_worse_verdict_without_a_map_keeps_its_outcome(made: object) -> None:
    verdict = made()  # type: ignore[operator]
    assert map_unavailable(verdict, "none").verdict == verdict.verdict


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
