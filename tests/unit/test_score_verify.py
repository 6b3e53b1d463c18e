"""The trusted stage's check of an uploaded score.json (TRUST.md 13): a report bound to another
head, parent, manifest or diff verdict is rejected; a report whose score word or reasons were
edited is rejected, since the score is recomputed from its own outcomes; a faithful one passes."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from oracle_gate.judge.verdict import Outcome, Verdict
from oracle_gate.render.verdict_json import to_json
from oracle_gate.score.decide import HeadRun, ParentRun, ScoreResult, decide, rechecked_score
from oracle_gate.score.report import score_document
from oracle_gate.score.tampering import Witnessed
from oracle_gate.score.verify import KnownFacts, check_report
from tests.support.verdicts import HEAD, PARENT, failing, passing

PLUGINS = {"pytest-cov": "7.1.0"}
PARENT_RUN = ParentRun(outcomes={"t.py::a": "passed", "t.py::b": "passed"}, plugins=PLUGINS)
LIVE = frozenset(PARENT_RUN.outcomes)
DIGEST = "d" * 64


def witnessed_run(label: str, outcomes: dict[str, str]) -> HeadRun:
    """A run whose second witness and exit status agree with its recorder (v2 2.3)."""
    status = 1 if {"failed", "error"} & set(outcomes.values()) else 0
    seen = Witnessed(outcomes, status, status)
    return HeadRun(label, outcomes=outcomes, plugins=PLUGINS, exit_status=status, witnessed=seen)


def report(**outcomes: str) -> dict[str, Any]:
    """score.json as the scoring job writes it, from two runs with these outcome changes."""
    runs = tuple(witnessed_run(label, {**PARENT_RUN.outcomes, **outcomes}) for label in ("first", "second"))
    result = ScoreResult(decide(PARENT_RUN, LIVE, runs), passing(), PARENT, HEAD, DIGEST, PARENT_RUN, runs)
    doc: dict[str, Any] = json.loads(json.dumps(score_document(result)))
    return doc


def known(**changes: Any) -> KnownFacts:
    facts: dict[str, Any] = {
        "parent": PARENT,
        "head": HEAD,
        "manifest_sha256": DIGEST,
        "verdict": Outcome.PASS_CLEAN,
        "protocol": to_json(passing())["protocol"],
        "parent_run": PARENT_RUN,
        "live": LIVE,
    }
    return KnownFacts(**{**facts, **changes})


def test_a_faithful_report_is_accepted_with_the_recomputed_score() -> None:
    assert check_report(report(), known()).score == Outcome.PASS_CLEAN
    failing = check_report(report(**{"t.py::a": "skipped"}), known())
    assert (failing.score, failing.codes) == (Outcome.FAIL, ["live_test_skipped"])


@pytest.mark.parametrize(
    "facts",
    [
        {"head": "c" * 40},
        {"parent": "c" * 40},
        {"manifest_sha256": "e" * 64},
        {"protocol": {**to_json(passing())["protocol"], "freeze_sha256": "f" * 64}},
    ],
    ids=["another-head", "another-parent", "another-manifest", "another-oracle"],
)
def test_a_report_about_anything_else_is_rejected(facts: dict[str, Any]) -> None:
    score = check_report(report(), known(**facts))
    assert (score.score, score.codes) == (Outcome.UNSCORED, ["score_report_rejected"])


def test_an_edited_score_word_or_a_dropped_reason_is_rejected() -> None:
    forged = report(**{"t.py::a": "skipped"})
    forged["score"] = "pass_clean"
    forged["reasons"] = [{"code": "live_tests_passed", "detail": "all good", "tests": []}]
    score = check_report(forged, known())
    assert score.codes == ["score_report_rejected"]
    assert "claims 'pass_clean'" in score.reasons[0].detail


def test_a_report_with_one_run_dropped_or_malformed_is_rejected() -> None:
    one = report()
    one["runs"] = one["runs"][:1]
    assert check_report(one, known()).codes == ["score_report_rejected"]
    bad = copy.deepcopy(report())
    bad["runs"][1]["outcomes"] = {"t.py::a": 1}
    assert check_report(bad, known()).codes == ["score_report_rejected"]
    assert check_report(["not", "a", "report"], known()).codes == ["score_report_rejected"]


def test_a_report_that_hides_a_plugin_it_reported_is_still_judged_on_its_plugins() -> None:
    added = report()
    for run in added["runs"]:
        run["plugins"].append({"name": "sneaky-dep", "version": "1.0"})
    score = check_report(added, known())
    assert score.codes == ["score_report_rejected"]  # its own score word says pass_clean


def test_the_stage_own_diff_verdict_wins_over_any_report() -> None:
    score = check_report(report(), known(verdict=Outcome.FAIL))
    assert score.score == Outcome.FAIL


def test_a_report_without_its_second_witness_is_rejected_and_a_disagreeing_one_is_tampered() -> None:
    """v2 2.3: the trusted stage recomputes ``score_tampered`` from the report's own witnesses."""
    dropped = report()
    dropped["runs"][0]["witness"] = None
    score = check_report(dropped, known())
    assert score.codes == ["score_report_rejected"]
    assert "no second witness" in score.reasons[0].detail
    forged = report()
    forged["runs"][1]["witness"]["outcomes"]["t.py::a"] = "failed"
    forged["runs"][1]["witness"]["returncode"] = 1
    assert check_report(forged, known()).codes == ["score_report_rejected"]  # its score word disagrees


REBOUND = {
    "module": "calc",
    "path": "src/calc.py",
    "name": "jitter",
    "when": "its own body",
    "what": "bound to _fast",
}


def rebinding_report(recheck: Any) -> dict[str, Any]:
    """score.json of two runs whose namespace watch saw ``calc.jitter`` rebound (v2 2.2), scored with
    the diff verdict ``recheck`` gives for it."""
    runs = tuple(
        replace(witnessed_run(label, dict(PARENT_RUN.outcomes)), rebound=(REBOUND,))
        for label in ("first", "second")
    )
    score = rechecked_score(decide(PARENT_RUN, LIVE, runs), recheck(()))
    result = ScoreResult(score, passing(), PARENT, HEAD, DIGEST, PARENT_RUN, runs)
    doc: dict[str, Any] = json.loads(json.dumps(score_document(result)))
    return doc


def test_a_rebinding_is_rechecked_by_the_trusted_stage_with_its_own_diff_verdict() -> None:
    """v2 2.2: the stage recomputes the diff verdict with the rebound definition touched itself."""
    asked: list[tuple[tuple[str, str], ...]] = []

    def overlap(targets: tuple[tuple[str, str], ...]) -> Verdict:
        asked.append(targets)
        return failing()

    doc = rebinding_report(overlap)
    score = check_report(doc, known(), overlap)
    assert asked[-1] == (("src/calc.py", "jitter"),)
    assert (score.score, score.codes[0]) == (Outcome.FAIL, "dynamic_rebinding")
    assert "oracle_edit_forbidden" in score.codes
    assert check_report(doc, known(), lambda targets: passing()).codes == ["score_report_rejected"]
