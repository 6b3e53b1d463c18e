"""Issue 27: module shadowing (v2) and rule 6 are applied by ``evaluate``, not by the read side, so
evidence built by hand is judged with them (and evidence the read side already widened is unchanged)."""

from __future__ import annotations

import dataclasses

from oracle_gate.judge.verdict import Outcome, ReasonCode, evaluate, with_change_rules
from tests.support.factories import added, change_set, evidence, freeze_of, lines, modified, observed

FROZEN = "tests/test_m.py::test_f"
PARENT = lines("def f():", "    return 1", "", "def g():", "    return 2")
OBSERVED = observed({"src/m.py": {1: [FROZEN], 2: [FROZEN]}})


def test_rule_6_a_new_binding_of_a_parent_definition_touches_that_definition() -> None:
    head = PARENT + lines("f = g")
    verdict = evaluate(
        evidence(change_set(modified("src/m.py", PARENT, head)), freeze=freeze_of(FROZEN), coverage=OBSERVED)
    )
    assert verdict.verdict == Outcome.UNSCORED
    assert [r.code for r in verdict.reasons] == [ReasonCode.FREEZE_OVERLAP]
    assert verdict.overlap == {"src/m.py": [1, 2]}


def test_a_shadowed_parent_module_touches_all_its_lines() -> None:
    changes = change_set(added("src/m/__init__.py", lines("x = 1")))
    hand_built = evidence(changes, freeze=freeze_of(FROZEN), coverage=OBSERVED)
    assert evaluate(hand_built).verdict == Outcome.PASS_CLEAN  # without the read side's fact
    shadowing = dataclasses.replace(hand_built, shadowed={"src/m.py": ("src/m/__init__.py", 5, PARENT)})
    verdict = evaluate(shadowing)
    assert verdict.verdict == Outcome.UNSCORED
    assert verdict.overlap == {"src/m.py": [1, 2]}


def test_evidence_already_widened_is_judged_the_same() -> None:
    head = PARENT + lines("f = g")
    ev = evidence(change_set(modified("src/m.py", PARENT, head)), freeze=freeze_of(FROZEN), coverage=OBSERVED)
    once = evaluate(ev)
    assert evaluate(with_change_rules(ev)) == once
