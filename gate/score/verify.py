"""The trusted stage's check of an uploaded ``score.json`` (TRUST.md 13): pure.

The scoring job ran head's code, so its report is a claim. The trusted stage knows, on its own:
the run's head SHA (from the API), the parent, the parent's map manifest (its digest, outcomes and
plugin set), and the diff verdict it computes itself. :func:`check_report` accepts a report only
when it is bound to exactly those, and then does not read the report's ``score`` word: it
recomputes the score from the report's per-test outcomes with :func:`oracle_gate.score.decide.decide`, and
rejects the report when its own score disagrees (an edited score, a removed reason). A rejected
report is ``unscored`` (``score_report_rejected``): never ``pass_clean``.

What it cannot catch: a scoring job that lies consistently (per-test outcomes made up to look like
a clean run). Only where the job ran protects against that (the sandbox, an unprivileged job on a
runner the change cannot reach), which is why the report carries nothing the stage must believe
beyond the outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from oracle_gate.judge.verdict import Outcome, Verdict
from oracle_gate.score.decide import (
    SCORE_KIND,
    SCORE_REASONS,
    SCORE_SCHEMA,
    HeadRun,
    ParentRun,
    Score,
    ScoreCode,
    ScoreReason,
    decide,
    rechecked_score,
)
from oracle_gate.score.rebound import rebound_entries, rebound_targets
from oracle_gate.score.tampering import Witnessed

Recheck = Callable[[tuple[tuple[str, str], ...]], Verdict]


@dataclass(frozen=True)
class KnownFacts:
    """What the trusted stage knows without the scoring job."""

    parent: str
    head: str  # the pull request's head SHA, from the API
    manifest_sha256: str
    verdict: Outcome  # the diff verdict the stage computed itself
    protocol: Mapping[str, Any]  # that verdict's JSON ``protocol`` object
    parent_run: ParentRun
    live: frozenset[str]
    mutation_mode: str = "off"  # SCORING.md 2.4: the parent's policy's [mutation] mode (trusted.py reads it)


def rejected(problem: str) -> Score:
    code = ScoreCode.SCORE_REPORT_REJECTED
    return Score(SCORE_REASONS[code], (ScoreReason(code, problem, outcome=SCORE_REASONS[code]),))


def check_report(doc: object, known: KnownFacts, recheck: Recheck | None = None) -> Score:
    """The score to post: recomputed from a report bound to what the stage knows, else rejected.
    ``recheck``: the diff verdict with the definitions the report's runs saw rebound touched (v2 2.2;
    the stage computes it itself)."""
    if known.verdict != Outcome.PASS_CLEAN:
        return Score(
            known.verdict,
            (ScoreReason("diff_verdict", "the diff verdict is not pass_clean", outcome=known.verdict),),
        )
    problem = binding_problem(doc, known)
    if problem is not None or not isinstance(doc, dict):
        return rejected(problem or "score.json is not an object")
    try:
        runs = tuple(_run(raw) for raw in doc["runs"])
    except (TypeError, ValueError, KeyError) as exc:
        return rejected(f"score.json: a run is malformed ({exc})")
    problem = completeness_problem(runs)
    try:
        score = with_claimed_mutation(
            rechecked(decide(known.parent_run, known.live, runs), runs, recheck), doc, known.mutation_mode
        )
    except ValueError as exc:
        problem = problem or f"score.json: {exc}"
    if problem is not None:
        return rejected(problem)
    claimed = (
        doc.get("score"),
        sorted(str(r.get("code")) for r in doc.get("reasons") or [] if isinstance(r, dict)),
    )
    if claimed != (score.score.value, sorted(score.codes)):
        return rejected(
            f"score.json claims {claimed[0]!r} ({', '.join(claimed[1]) or 'no reasons'}), but its own "
            f"outcomes score {score.score.value!r} ({', '.join(score.codes)})"
        )
    return score


def rechecked(score: Score, runs: tuple[HeadRun, ...], recheck: Recheck | None) -> Score:
    """v2 2.2: the score with the stage's own diff verdict over the definitions the runs saw rebound."""
    targets = rebound_targets(entry for run in runs for entry in run.rebound)
    return rechecked_score(score, recheck(targets)) if targets and recheck is not None else score


def with_claimed_mutation(score: Score, doc: Mapping[str, Any], mode: str) -> Score:
    """The score with the reasons of the report's diff mutation (SCORING.md 2.4), in this stage's own
    mode. Mutation runs only on a ``pass_clean`` comparison, so such a score needs the section;
    :class:`ValueError` when it is missing or malformed."""
    from oracle_gate.score.mutation.outcome import summary_from_document, with_mutation

    if mode == "off" or score.score != Outcome.PASS_CLEAN:
        return score
    section = doc.get("mutation")
    if not isinstance(section, dict):
        raise ValueError("no diff mutation report, which the policy asks for")
    return with_mutation(score, summary_from_document(section, mode))


def binding_problem(doc: object, known: KnownFacts) -> str | None:
    """Why the report is not about this (parent, head, manifest, diff verdict), or None."""
    if not isinstance(doc, dict) or doc.get("kind") != SCORE_KIND or doc.get("schema") != SCORE_SCHEMA:
        return f"score.json is not an {SCORE_KIND} report of schema {SCORE_SCHEMA}"
    checks = (
        ("head", doc.get("head"), known.head),
        ("parent", doc.get("parent"), known.parent),
        ("parent_manifest_sha256", doc.get("parent_manifest_sha256"), known.manifest_sha256),
    )
    for name, got, want in checks:
        if got != want:
            return f"score.json: {name} is {str(got)[:80]!r}, not {want!r}"
    diff = doc.get("diff_verdict")
    if not isinstance(diff, dict) or diff.get("verdict") != known.verdict.value:
        return "score.json: its diff verdict is not the one computed here"
    if diff.get("protocol") != dict(known.protocol):
        return "score.json: its diff verdict was made with other oracle bytes or options (protocol differs)"
    if not isinstance(doc.get("runs"), list):
        return "score.json: 'runs' must be a list"
    return None


def completeness_problem(runs: tuple[HeadRun, ...]) -> str | None:
    """Two runs, unless the first one stopped the score (a leak, a harness failure, a problem)."""
    if not runs:
        return "score.json: no run reported"
    first = runs[0]
    stopped = bool(first.problem or first.leaked or first.harness_stopped)
    if not stopped and len(runs) != 2:
        return f"score.json: {len(runs)} run(s) reported; the replay needs two"
    if [r.label for r in runs] != ["first", "second"][: len(runs)]:
        return "score.json: the runs are not labelled first, second"
    unwitnessed = [r.label for r in runs if r.problem is None and r.witnessed is None]
    if unwitnessed:
        return f"score.json: the {unwitnessed[0]} run has no second witness (SCORING.md v2, 2.3)"
    return None


def _run(raw: object) -> HeadRun:
    if not isinstance(raw, dict):
        raise TypeError("a run is not an object")
    outcomes, reasons = _strings(raw.get("outcomes")), _strings(raw.get("skip_reasons", {}))
    plugins = raw.get("plugins")
    if not isinstance(plugins, list) or not all(isinstance(p, dict) for p in plugins):
        raise ValueError("'plugins' must be a list of objects")
    problem = raw.get("problem")
    return HeadRun(
        label=str(raw.get("label")),
        outcomes=outcomes,
        reasons=reasons,
        plugins={
            str(p.get("name")): (None if p.get("version") is None else str(p.get("version"))) for p in plugins
        },
        harness=frozenset(map(str, raw.get("harness") or [])),
        harness_stopped=raw.get("harness_stopped") is True,
        leaked=tuple(map(str, raw.get("leaked") or [])),
        problem=None if problem is None else str(problem),
        exit_status=_optional_int(raw.get("exit_status")),
        witnessed=_witnessed(raw.get("witness")),
        rebound=rebound_entries(raw.get("rebound")),
    )


def _optional_int(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("an exit status must be an integer or null")
    return value


def _witnessed(raw: object) -> Witnessed | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("'witness' must be an object")
    unreadable = _optional_int(raw.get("unreadable")) or 0
    return Witnessed(
        outcomes=_strings(raw.get("outcomes")),
        exit_status=_optional_int(raw.get("exit_status")),
        returncode=_optional_int(raw.get("returncode")),
        unreadable=unreadable,
    )


def _strings(value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError("outcomes must map test ids to strings")
    return dict(value)
