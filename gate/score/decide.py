"""The score's decision (SCORING.md, Procedure 4-5): the parent's run and head's two runs in, the
score and its reasons out. Pure: no I/O, so every rule is unit-tested on plain values, and the
trusted stage (:mod:`oracle_gate.score.verify`) recomputes the score from an uploaded report with the same
function instead of believing the report's own word.

A test counts as *live* when the parent ran it, the freeze does not take it out, and the change
neither deletes nor renames its file (:func:`live_tests`). The comparison never turns a diff
verdict's ``fail`` or ``unscored`` into anything else, and a run that could not report (crashed,
killed at a limit, a parent manifest without outcomes) makes the score ``unscored``: never
``pass_clean`` when it could not check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from oracle_gate.judge.verdict import SEVERITY, Outcome, Verdict
from oracle_gate.score.tampering import Witnessed, disagreements

SCORE_KIND = "oracle-gate-score"  # score.json's "kind"
SCORE_SCHEMA = 1
SKIPPED = frozenset({"skipped", "xfailed"})
FAILED = frozenset({"failed", "error"})
NOT_RUN = "not run"  # how a test one run did not run is shown next to the other run's outcome
MAX_IDS = 50  # test ids listed per reason (the count is always given)


class ScoreCode(StrEnum):
    FREEZE_LEAKED = "freeze_leaked"
    HARNESS_FAILED = "harness_failed"
    LIVE_TEST_MISSING = "live_test_missing"
    LIVE_TEST_SKIPPED = "live_test_skipped"
    TESTS_FAILED = "tests_failed"
    RUNNER_CONFIG_CHANGED = "runner_config_changed"
    NOT_REPLAYABLE = "not_replayable"
    SCORE_TAMPERED = "score_tampered"  # v2 2.3: the run's witnesses disagree
    DYNAMIC_REBINDING = "dynamic_rebinding"  # v2 2.2: a module of the tree does not keep what its text binds
    SCORING_INCOMPLETE = "scoring_incomplete"  # the run could not check: crashed, a limit, no parent facts
    SCORE_REPORT_REJECTED = "score_report_rejected"  # the trusted stage: an uploaded report does not check
    UNCHECKED_LINE = "unchecked_line"  # 2.4: a touched line's mutant survived its live tests
    MUTATION_BUDGET_SPENT = "mutation_budget_spent"  # 2.4: mutants left unrun at a cap
    LIVE_TESTS_PASSED = "live_tests_passed"


SCORE_REASONS = {
    ScoreCode.FREEZE_LEAKED: Outcome.FAIL,
    ScoreCode.HARNESS_FAILED: Outcome.FAIL,
    ScoreCode.LIVE_TEST_MISSING: Outcome.FAIL,
    ScoreCode.LIVE_TEST_SKIPPED: Outcome.FAIL,
    ScoreCode.TESTS_FAILED: Outcome.FAIL,
    ScoreCode.RUNNER_CONFIG_CHANGED: Outcome.FAIL,
    ScoreCode.NOT_REPLAYABLE: Outcome.UNSCORED,
    ScoreCode.SCORE_TAMPERED: Outcome.FAIL,
    ScoreCode.DYNAMIC_REBINDING: Outcome.UNSCORED,
    ScoreCode.SCORING_INCOMPLETE: Outcome.UNSCORED,
    ScoreCode.SCORE_REPORT_REJECTED: Outcome.UNSCORED,
    ScoreCode.UNCHECKED_LINE: Outcome.UNSCORED,  # in [mutation] mode "unscored"; listed only in "report"
    ScoreCode.MUTATION_BUDGET_SPENT: Outcome.UNSCORED,
    ScoreCode.LIVE_TESTS_PASSED: Outcome.PASS_CLEAN,
}


@dataclass(frozen=True)
class ScoreReason:
    code: str  # a ScoreCode, or the diff verdict's own reason code when the score is that verdict
    detail: str
    tests: tuple[str, ...] = ()
    outcome: Outcome = Outcome.FAIL


@dataclass(frozen=True)
class ParentRun:
    """The parent's run, from its map manifest."""

    outcomes: Mapping[str, str]
    plugins: Mapping[str, str | None]
    python: str | None = None


@dataclass(frozen=True)
class HeadRun:
    """One run of head's tests, as the gate's score plugin reported it."""

    label: str  # "first" / "second"
    outcomes: Mapping[str, str] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    plugins: Mapping[str, str | None] = field(default_factory=dict)
    collected: tuple[str, ...] = ()
    harness: frozenset[str] = frozenset()
    harness_stopped: bool = False  # a harness test failed: the tree tests were not run
    leaked: tuple[str, ...] = ()  # frozen tests still collected
    problem: str | None = None  # why this run reported nothing usable (crash, limit, ...)
    exit_status: int | None = None  # the recorder's (the score plugin's finish event)
    witnessed: Witnessed | None = None  # v2 2.3: the second witness and the process's exit status
    rebound: tuple[Mapping[str, str], ...] = ()  # v2 2.2: what the namespace watch found


@dataclass(frozen=True)
class Score:
    score: Outcome
    reasons: tuple[ScoreReason, ...]

    @property
    def codes(self) -> list[str]:
        return list(dict.fromkeys(r.code for r in self.reasons))


@dataclass(frozen=True)
class ScoreResult:
    """A score with everything it was made from (rendered by oracle_gate.score.report)."""

    score: Score
    verdict: Verdict
    parent: str
    head: str
    manifest_sha256: str | None = None
    parent_run: ParentRun | None = None
    runs: tuple[HeadRun, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)
    mutation: Any = None  # 2.4: an oracle_gate.score.mutation.outcome.MutationSummary, when it ran


def live_tests(
    parent_ran: Iterable[str], is_frozen: Callable[[str], bool], gone_files: Iterable[str]
) -> frozenset[str]:
    """The tests the comparison is over: ran on the parent, not frozen, file neither deleted nor
    renamed by the change (a test id's file is its part before the first ``::``)."""
    gone = frozenset(gone_files)
    return frozenset(t for t in parent_ran if not is_frozen(t) and t.split("::", 1)[0] not in gone)


def parametrization_leaks(
    frozen: Iterable[str], collected: Iterable[str], parent_ran: Iterable[str]
) -> list[str]:
    """Collected tests that are a frozen parametrized test under a new id: the freeze names
    ``f[old]``, head collects ``f[new]`` instead (a parameter renamed), and the parent never ran
    ``f[new]``. The freeze no longer matches, so the frozen test would run under another name.
    ``collected``: head's collection *before* the freeze filter (a frozen ``f[old]`` still there
    means the entry still matches, and a new ``f[3]`` beside it is just a new case)."""
    collected_ids, ran = list(collected), frozenset(parent_ran)
    leaks: list[str] = []
    for entry in frozen:
        if "[" not in entry:
            continue
        base = entry[: entry.index("[")]
        siblings = [t for t in collected_ids if t.startswith(base + "[")]
        if any(t == entry or t.startswith(entry + "[") for t in siblings):
            continue
        leaks += [t for t in siblings if t not in ran and t not in leaks]
    return sorted(leaks)


def from_diff_verdict(verdict: Outcome, reasons: Iterable[tuple[str, str]]) -> Score:
    """Procedure 1: a diff verdict that is not ``pass_clean`` is the score; nothing ran."""
    return Score(verdict, tuple(ScoreReason(code, detail, outcome=verdict) for code, detail in reasons))


def incomplete(detail: str) -> Score:
    return Score(Outcome.UNSCORED, (_reason(ScoreCode.SCORING_INCOMPLETE, detail),))


def decide(parent: ParentRun, live: frozenset[str], runs: tuple[HeadRun, ...]) -> Score:
    """Procedure 4-5: compare head's runs with the parent's, test id by test id."""
    reasons: list[ScoreReason] = []
    if not runs:
        return incomplete("no run of head's tests reported")
    if not live:
        return incomplete("the parent ran no live test this change keeps: there is nothing to compare")
    reasons += _incomplete_runs(runs)
    reasons += _leaks(runs)
    reasons += _failures(runs)
    complete = [r for r in runs if r.problem is None and not r.leaked]
    reasons += _missing_and_skipped(parent, live, complete)
    reasons += _plugins(parent, complete)
    reasons += _replay(complete)
    reasons += _tampered(runs)
    reasons += _rebinding(runs)
    fails = [r for r in reasons if r.outcome == Outcome.FAIL]
    if fails:
        return Score(Outcome.FAIL, tuple(reasons))
    if reasons:
        return Score(Outcome.UNSCORED, tuple(reasons))
    ran = len(live)
    return Score(
        Outcome.PASS_CLEAN,
        (_reason(ScoreCode.LIVE_TESTS_PASSED, f"{ran} live test(s) kept their outcome in {len(runs)} runs"),),
    )


def _reason(code: ScoreCode, detail: str, tests: Iterable[str] = ()) -> ScoreReason:
    return ScoreReason(code, detail, tuple(sorted(tests))[:MAX_IDS], SCORE_REASONS[code])


def _incomplete_runs(runs: tuple[HeadRun, ...]) -> list[ScoreReason]:
    return [
        _reason(ScoreCode.SCORING_INCOMPLETE, f"the {r.label} run: {r.problem}") for r in runs if r.problem
    ]


def _leaks(runs: tuple[HeadRun, ...]) -> list[ScoreReason]:
    leaked = sorted({t for r in runs for t in r.leaked})
    if not leaked:
        return []
    return [
        _reason(
            ScoreCode.FREEZE_LEAKED,
            f"{len(leaked)} frozen test(s) still collected after the freeze filter: nothing was run",
            leaked,
        )
    ]


def _failures(runs: tuple[HeadRun, ...]) -> list[ScoreReason]:
    harness: set[str] = set()
    tree: set[str] = set()
    for run in runs:
        for test, outcome in run.outcomes.items():
            if outcome in FAILED:
                (harness if test in run.harness else tree).add(test)
    out = []
    stopped = any(r.harness_stopped for r in runs)
    if harness:
        tail = ": the tree tests were not run" if stopped else ""
        out.append(_reason(ScoreCode.HARNESS_FAILED, f"{len(harness)} harness test(s) failed{tail}", harness))
    if tree:
        out.append(_reason(ScoreCode.TESTS_FAILED, f"{len(tree)} test(s) failed or errored", tree))
    return out


def _missing_and_skipped(parent: ParentRun, live: frozenset[str], runs: list[HeadRun]) -> list[ScoreReason]:
    missing: set[str] = set()
    skipped: dict[str, str] = {}
    for run in runs:
        for test in live:
            if run.harness_stopped and test not in run.harness:
                continue  # not run because the harness failed, which is the reason already
            outcome = run.outcomes.get(test)
            if outcome is None:
                missing.add(test)
            elif outcome in SKIPPED and parent.outcomes.get(test) not in SKIPPED:
                skipped.setdefault(test, run.reasons.get(test, ""))
    out = []
    if missing:
        out.append(
            _reason(
                ScoreCode.LIVE_TEST_MISSING,
                f"{len(missing)} live test(s) the parent ran were not collected or not run on head",
                missing,
            )
        )
    if skipped:
        first = min(skipped)
        why = f" (e.g. {first}: {skipped[first]!r})" if skipped[first] else ""
        out.append(
            _reason(
                ScoreCode.LIVE_TEST_SKIPPED,
                f"{len(skipped)} live test(s) the parent ran were skipped or xfailed on head{why}",
                skipped,
            )
        )
    return out


def _plugins(parent: ParentRun, runs: list[HeadRun]) -> list[ScoreReason]:
    out = []
    for run in runs:
        diff = plugin_difference(parent.plugins, run.plugins)
        if diff:
            out.append(
                _reason(
                    ScoreCode.RUNNER_CONFIG_CHANGED,
                    f"the {run.label} run loaded another pytest plugin set than the parent's: "
                    + "; ".join(diff),
                )
            )
            break  # the same environment ran both: once is enough
    return out


def plugin_difference(parent: Mapping[str, str | None], head: Mapping[str, str | None]) -> list[str]:
    """What differs between two plugin sets, one phrase each, sorted."""
    out = []
    for name in sorted(set(parent) | set(head)):
        if name not in parent:
            out.append(f"{name} {head[name]} added")
        elif name not in head:
            out.append(f"{name} {parent[name]} removed")
        elif parent[name] != head[name]:
            out.append(f"{name} {parent[name]} -> {head[name]}")
    return out


def _replay(runs: list[HeadRun]) -> list[ScoreReason]:
    if len(runs) < 2:
        return []
    first, second = runs[0], runs[1]
    if first.harness_stopped or second.harness_stopped:
        return []
    differing = {
        test: (first.outcomes.get(test, NOT_RUN), second.outcomes.get(test, NOT_RUN))
        for test in set(first.outcomes) | set(second.outcomes)
        if first.outcomes.get(test) != second.outcomes.get(test)
    }
    if not differing:
        return []
    shown = "; ".join(f"{t}: {a} then {b}" for t, (a, b) in sorted(differing.items())[:5])
    return [
        _reason(
            ScoreCode.NOT_REPLAYABLE,
            f"{len(differing)} test(s) had another outcome in the second run ({shown})",
            differing,
        )
    ]


def _tampered(runs: tuple[HeadRun, ...]) -> list[ScoreReason]:
    """v2 2.3: each run's witnesses must agree (:mod:`oracle_gate.score.tampering`)."""
    out = []
    for run in runs:
        if run.problem is not None or run.witnessed is None:
            continue
        phrases, tests = disagreements(run.outcomes, run.exit_status, run.witnessed)
        if phrases:
            detail = f"the {run.label} run's witnesses disagree: " + "; ".join(phrases)
            out.append(_reason(ScoreCode.SCORE_TAMPERED, detail, tests))
    return out


def _rebinding(runs: tuple[HeadRun, ...]) -> list[ScoreReason]:
    """v2 2.2: a module of the tree whose namespace does not keep what its text binds."""
    from oracle_gate.score.rebound import describe

    seen: dict[tuple[str, str], Mapping[str, str]] = {}
    for run in runs:
        for entry in run.rebound:
            seen.setdefault((entry["module"], entry["name"]), entry)
    if not seen:
        return []
    entries = [seen[k] for k in sorted(seen)]
    detail = f"{len(entries)} definition(s) of the tree rebound at run time: {describe(entries)}"
    return [_reason(ScoreCode.DYNAMIC_REBINDING, detail)]


def rechecked_score(score: Score, verdict: Verdict) -> Score:
    """v2 2.2: the score with the diff verdict recomputed with the rebound definitions touched
    (:func:`oracle_gate.score.rebound.with_rechecked`)."""
    from oracle_gate.score.rebound import with_rechecked

    rechecked = [(r.code.value, r.detail) for r in verdict.reasons]
    reasons = with_rechecked(
        list(score.reasons),
        verdict.verdict,
        rechecked,
        lambda code, detail, outcome: ScoreReason(code, detail, outcome=outcome),
    )
    return Score(most_severe(r.outcome for r in reasons), tuple(reasons))


def most_severe(outcomes: Iterable[Outcome]) -> Outcome:
    seen = set(outcomes)
    return next((o for o in SEVERITY if o in seen), Outcome.PASS_CLEAN)
