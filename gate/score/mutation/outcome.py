"""What diff mutation found, and how it joins the score (SCORING.md 2.4, step 4): pure.

Each mutant is ``killed`` (a test that ran it failed, errored or timed out), ``survived`` (every
test that ran it passed, or no live test executed its line) or ``not_run`` (a cap was reached).
A survivor is an ``unchecked_line`` reason; mutants not run are one ``mutation_budget_spent``
reason. In mode ``"report"`` the reasons are listed and the score is unchanged; in mode
``"unscored"`` they make a ``pass_clean`` score ``unscored``. The trusted stage rebuilds the same
reasons from ``score.json`` (:func:`summary_from_document`) with the mode of its own policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from oracle_gate.judge.verdict import Outcome
from oracle_gate.score.decide import MAX_IDS, Score, ScoreCode, ScoreReason

KILLED, SURVIVED, NOT_RUN = "killed", "survived", "not_run"
STATUSES = (KILLED, SURVIVED, NOT_RUN)
MAX_LISTED = 50  # unchecked_line reasons listed one by one (the count is always given)


@dataclass(frozen=True)
class MutantResult:
    path: str
    line: int
    mutation: str  # "a < b → a <= b"
    status: str  # KILLED, SURVIVED, NOT_RUN
    tests: tuple[str, ...] = ()  # the live tests it was run against
    detail: str = ""  # why: "test failed", "timed out", "no live test executed its file", ...


@dataclass(frozen=True)
class MutationSummary:
    mode: str
    results: tuple[MutantResult, ...] = ()
    arid: int = 0  # touched lines skipped as arid
    unmutable: int = 0  # touched lines no operator applies to (a closing bracket, ``else:``)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        statuses = [r.status for r in self.results]
        return {
            "made": len(self.results),
            "killed": statuses.count(KILLED),
            "survived": statuses.count(SURVIVED),
            "arid": self.arid,
            "no_mutant": self.unmutable,
            "not_run": statuses.count(NOT_RUN),
        }

    @property
    def survivors(self) -> list[MutantResult]:
        return [r for r in self.results if r.status == SURVIVED]


def mutation_reasons(summary: MutationSummary) -> list[ScoreReason]:
    if summary.mode == "off":
        return []
    outcome = Outcome.UNSCORED if summary.mode == "unscored" else Outcome.PASS_CLEAN
    survivors = summary.survivors
    reasons = [
        ScoreReason(ScoreCode.UNCHECKED_LINE.value, survivor_detail(r), r.tests[:MAX_IDS], outcome)
        for r in survivors[:MAX_LISTED]
    ]
    if len(survivors) > MAX_LISTED:
        reasons.append(
            ScoreReason(
                ScoreCode.UNCHECKED_LINE.value,
                f"and {len(survivors) - MAX_LISTED} more line(s) no live test checks",
                outcome=outcome,
            )
        )
    not_run = [r for r in summary.results if r.status == NOT_RUN]
    if not_run:
        first = not_run[0]
        reasons.append(
            ScoreReason(
                ScoreCode.MUTATION_BUDGET_SPENT.value,
                f"{len(not_run)} mutant(s) not run: {first.detail} (first: {first.path}:{first.line})",
                outcome=outcome,
            )
        )
    return reasons


def survivor_detail(result: MutantResult) -> str:
    ran = f"{len(result.tests)} live test(s) ran it and passed" if result.tests else result.detail
    return f"{result.path}:{result.line}: `{result.mutation}` survived ({ran})"


def with_mutation(score: Score, summary: MutationSummary | None) -> Score:
    """The score with diff mutation's reasons joined (see the module's docstring)."""
    reasons = mutation_reasons(summary) if summary is not None else []
    if not reasons:
        return score
    if summary is not None and summary.mode == "unscored" and score.score == Outcome.PASS_CLEAN:
        kept = tuple(r for r in score.reasons if r.code != ScoreCode.LIVE_TESTS_PASSED.value)
        return Score(Outcome.UNSCORED, (*kept, *reasons))
    return Score(score.score, (*score.reasons, *reasons))


# -- score.json ------------------------------------------------------------------------------------


def summary_document(summary: MutationSummary) -> dict[str, Any]:
    return {
        "mode": summary.mode,
        "counts": summary.counts(),
        "seconds": round(summary.seconds, 3),
        "mutants": [
            {
                "path": r.path,
                "line": r.line,
                "mutation": r.mutation,
                "status": r.status,
                "tests": list(r.tests),
                "detail": r.detail,
            }
            for r in summary.results
        ],
    }


def summary_from_document(doc: Mapping[str, Any], mode: str) -> MutationSummary:
    """The summary an uploaded report claims, under the trusted stage's own ``mode``;
    :class:`ValueError` when it is malformed."""
    raw = doc.get("mutants")
    counts = doc.get("counts")
    if not isinstance(raw, list) or not isinstance(counts, dict):
        raise ValueError("'mutation' needs 'mutants' and 'counts'")
    results = []
    for item in raw:
        if not isinstance(item, dict) or item.get("status") not in STATUSES:
            raise ValueError("a mutant is malformed")
        line = item.get("line")
        if not isinstance(line, int) or isinstance(line, bool):
            raise ValueError("a mutant's line is not a number")
        tests = item.get("tests") or []
        if not isinstance(tests, list):
            raise ValueError("a mutant's tests are not a list")
        results.append(
            MutantResult(
                str(item.get("path")),
                line,
                str(item.get("mutation")),
                str(item.get("status")),
                tuple(map(str, tests)),
                str(item.get("detail") or ""),
            )
        )
    return MutationSummary(mode, tuple(results), _count(counts, "arid"), _count(counts, "no_mutant"))


def _count(counts: Mapping[str, Any], key: str) -> int:
    value = counts.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
