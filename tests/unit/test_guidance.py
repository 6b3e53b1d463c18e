"""Every verdict other than pass_clean tells a person what to do next (issue 18), in the sticky
comment and in the check summary; the verdict carries what that needs (frozen observers, the input
an oracle_incomplete reason is about, the approvers) and keeps it through verdict.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import cast

import pytest

from oracle_gate import guidance
from oracle_gate.errors import StoredVerdictError
from oracle_gate.judge.freeze import Freeze
from oracle_gate.judge.lock import FixtureLock
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.policy import parse_policy
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.verdict import Outcome, Reason, ReasonCode, Verdict, oracle_incomplete
from oracle_gate.render.check import check_summary
from oracle_gate.render.markdown import to_markdown
from oracle_gate.render.verdict_json import from_json, to_json
from tests.support.rendering_cases import APPROVERS, VERDICT_KINDS

NEXT = "#### What to do next"
SURFACES: dict[str, Callable[[Verdict], str]] = {
    "comment": to_markdown,
    "check_summary": check_summary,
}


@pytest.mark.parametrize("surface", sorted(SURFACES))
@pytest.mark.parametrize("kind", sorted(VERDICT_KINDS))
def test_every_verdict_but_pass_clean_says_what_to_do(kind: str, surface: str) -> None:
    text = SURFACES[surface](VERDICT_KINDS[kind]())
    assert (NEXT in text) == (kind != "pass_clean")


def test_overlap_names_each_frozen_observer_and_both_ways_out() -> None:
    text = check_summary(VERDICT_KINDS["unscored_overlap"]())
    guide = text[text.index(NEXT) :]
    for test in ("test_in_class", "test_frozen", "test_param[1]", "test_param[2]", "test_lazy_import"):
        assert test in guide
    assert "`tests/test_mod.py::test_frozen`: `src/pkg/mod.py` line(s) 10-12, 31-32" in guide
    assert "A test added in **this** pull request cannot help" in guide
    assert "Land a live test that observes these lines" in guide
    assert "remove its freeze entry" in guide
    assert "rebase" in guide


def test_many_frozen_observers_are_counted_not_all_named() -> None:
    v = VERDICT_KINDS["unscored_overlap"]()
    tests = [f"tests/t.py::test_{i:02}" for i in range(13)]
    v = replace(v, overlap_observers={"src/pkg/mod.py": {10: tests}})
    guide = to_markdown(v).split(NEXT, 1)[1]
    assert "test_09" in guide
    assert "test_10" not in guide
    assert "and 3 more frozen test(s)" in guide


def test_a_stored_verdict_without_observers_still_gives_the_ways_out() -> None:
    """A verdict.json written before ``overlap_observers`` existed: no test to name, same advice."""
    doc = to_json(VERDICT_KINDS["unscored_overlap"]())
    del doc["overlap_observers"]
    text = to_markdown(from_json(doc))
    assert "cannot help" in text
    assert "The frozen tests that alone observe them" not in text


def test_edited_observers_name_the_test_and_why_it_stopped_counting() -> None:
    guide = check_summary(VERDICT_KINDS["unscored_edited"]()).split(NEXT, 1)[1]
    assert "- `tests/test_mod.py::test_live`: this change edits its own function" in guide
    assert "stops counting as an observer" in guide


def test_incomplete_says_which_file_what_and_how_to_fix_it() -> None:
    guide = to_markdown(VERDICT_KINDS["unscored_incomplete"]()).split(NEXT, 1)[1]
    rows = [line for line in guide.splitlines() if line.startswith("| `") or line.startswith("| (no")]
    assert rows[0].startswith("| `oracle-gate.toml` | unknown key 'tets' (ignored) | Correct the policy")
    assert rows[1].startswith("| `freeze.json` | entry 2 has no 'reason' | Correct the freeze manifest")
    assert "| Correct the fixture lock" in rows[2]
    assert rows[3].startswith("| (no file) | no coverage map")
    assert "map workflow" in rows[3]


def test_an_unknown_input_gets_the_general_fix() -> None:
    v = replace(VERDICT_KINDS["unscored_incomplete"](), reasons=(Reason(ReasonCode.ORACLE_INCOMPLETE, "x"),))
    assert guidance.guidance(v).incomplete[0].fix == guidance.UNKNOWN_INPUT_FIX


def test_oracle_edits_name_the_approvers_in_code() -> None:
    guide = to_markdown(VERDICT_KINDS["fail_approvers"]()).split(NEXT, 1)[1]
    assert "by one of `alice`, `@octo-org/oracle-owners`" in guide
    assert "`oracle_change_approved`" in guide
    assert "current head commit" in guide
    assert set(APPROVERS) == {"alice", "@octo-org/oracle-owners"}


def test_oracle_edits_without_approvers_say_no_review_can_lift_them() -> None:
    guide = to_markdown(VERDICT_KINDS["fail"]()).split(NEXT, 1)[1]
    assert "names no approvers" in guide
    assert "revert those files" in guide
    for code in (
        "oracle_edit_forbidden",
        "fixture_lock_broken",
        "runner_config_changed",
        "skip_marker_added",
    ):
        assert f"`{code}`" in guide


def test_no_added_lines_says_what_it_means() -> None:
    guide = check_summary(VERDICT_KINDS["unscored_no_added_lines"]()).split(NEXT, 1)[1]
    assert "adds no line to any scored file" in guide
    assert "no claim" in guide


# -- the verdict carries what the guidance needs ---------------------------------------------------


def test_the_judge_names_the_input_of_each_incomplete_reason() -> None:
    policy = parse_policy(b"tets = 1\n")
    freeze = Freeze(problems=(Problem("freeze.json", "entry 0: no reason"),))
    lock = FixtureLock(problems=(Problem("lock.json", "not valid JSON"),))
    coverage = ParentCoverage(problems=(Problem(None, "no coverage map of the parent was given"),))
    reasons = oracle_incomplete(policy, freeze, lock, coverage)
    assert [r.oracle_input for r in reasons] == ["policy", "freeze", "lock", "map"]


def test_new_json_keys_round_trip() -> None:
    v = replace(VERDICT_KINDS["unscored_overlap"](), approvers=APPROVERS)
    doc = json.loads(json.dumps(to_json(v)))
    assert doc["overlap_observers"]["src/pkg/util.py"] == {"tests/test_util.py::test_lazy_import": [5, 7, 8]}
    back = from_json(doc)
    assert back.overlap_observers == v.overlap_observers
    assert back.approvers == APPROVERS
    assert to_json(back) == doc
    incomplete = to_json(VERDICT_KINDS["unscored_incomplete"]())
    assert to_json(from_json(incomplete)) == incomplete


def test_the_new_keys_are_absent_when_empty() -> None:
    doc = to_json(VERDICT_KINDS["pass_clean"]())
    assert "overlap_observers" not in doc
    assert "approvers" not in doc


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"overlap_observers": {"a.py": {"t": ["1"]}}}, "'overlap_observers'"),
        ({"overlap_observers": ["t"]}, "'overlap_observers' must be a JSON object"),
        ({"approvers": "alice"}, "'approvers' has the wrong type"),
        ({"approvers": [1]}, "'approvers' must be a list of strings"),
        ({"reasons": [{"code": "oracle_incomplete", "oracle_input": "disk"}]}, "unknown oracle_input"),
    ],
)
def test_stored_new_keys_of_the_wrong_shape_are_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(StoredVerdictError, match=message):
        from_json({"verdict": "unscored", **change})


def test_pass_clean_has_no_guidance() -> None:
    assert not guidance.guidance(VERDICT_KINDS["pass_clean"]()).any
    assert guidance.guidance(VERDICT_KINDS["pass_clean"]()) == guidance.Guidance()
    assert VERDICT_KINDS["pass_clean"]().verdict == Outcome.PASS_CLEAN


def test_the_guidance_stays_bounded_however_many_problems_and_edited_tests() -> None:
    """1,000 malformed freeze entries and 50 edited tests: a capped guidance, each rest counted."""
    problems = tuple(
        Reason(
            ReasonCode.ORACLE_INCOMPLETE,
            f"freeze.json: entry {i} has no 'reason'",
            "freeze.json",
            None,
            "freeze",
        )
        for i in range(1000)
    )
    tests = {f"tests/t.py::test_{i:02}": "this change edits its own function" for i in range(50)}
    v = replace(
        VERDICT_KINDS["unscored_edited"](),
        reasons=(*problems, Reason(ReasonCode.OBSERVER_EDITED, "src/a.py: edited", "src/a.py", 1)),
        edited_observers={"src/a.py": {1: sorted(tests)}},
        edited_tests=tests,
    )
    guide = check_summary(v).split(NEXT, 1)[1]
    assert guide.count("| `freeze.json` |") == guidance.INCOMPLETE_ROWS
    assert "… and 980 more problem(s)" in guide
    assert "- and 40 more edited test(s)" in guide
    assert len(guide) < 12_000


def future_reason(code: str, path: str) -> Reason:
    """A reason of a code another helper's judge adds (v3.2, v3.6): guidance keys on the value."""
    return Reason(cast("ReasonCode", code), f"{path}: {code}", path)


def test_a_rewritten_seed_corpus_is_never_said_to_be_approvable() -> None:
    v = replace(
        VERDICT_KINDS["fail_approvers"](), reasons=(future_reason("seed_rewritten", "seeds/corpus.json"),)
    )
    guide = check_summary(v).split(NEXT, 1)[1]
    assert "no approval lifts this" in guide
    assert "An approving review" not in guide
    assert "names no approvers" not in guide


def test_dynamic_rebinding_asks_a_person_to_read_and_approve_it() -> None:
    v = replace(
        VERDICT_KINDS["fail_approvers"](),
        verdict=Outcome.UNSCORED,
        reasons=(future_reason("dynamic_rebinding", "src/pkg/mod.py"),),
    )
    guide = to_markdown(v).split(NEXT, 1)[1]
    assert "An approving review of the **current head commit** by one of `alice`" in guide
    assert "`dynamic_rebinding`: the gate cannot see what this code replaces" in guide
