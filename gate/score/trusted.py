"""The trusted stage's side of an uploaded ``score.json``: what it knows, gathered on its own.

The diff verdict is computed here (the parent checked out or not, head read as git objects only,
TRUST.md 1); the parent's facts come from the map the trusted store holds; the head comes from the
caller (the API's head SHA, resolved to the commit scored). :func:`oracle_gate.score.verify.check_report`
then decides.
"""

from __future__ import annotations

import json
from pathlib import Path

from oracle_gate.check import CheckRequest, run_check
from oracle_gate.errors import InputError
from oracle_gate.files import read_bounded
from oracle_gate.git import Git
from oracle_gate.judge.verdict import Outcome, Verdict
from oracle_gate.render.verdict_json import to_json
from oracle_gate.score.decide import Score, ScoreResult, from_diff_verdict, incomplete
from oracle_gate.score.parent import ParentProblem, parent_side
from oracle_gate.score.verify import KnownFacts, check_report, rejected

MAX_SCORE_BYTES = 64 * 1024 * 1024


def verify_uploaded(report: Path, repo: Path, base: str, head: str, coverage: Path) -> ScoreResult:
    """The score to post for an uploaded report: the stage's own diff verdict first, then the report
    checked against the stage's own facts."""
    verdict = run_check(CheckRequest(repo=repo, base=base, head=head, coverage=coverage))
    try:
        doc = _load(report)
    except InputError as exc:  # no report, or not one: what stage 1 failed to give is not a pass
        doc = exc
    return verify_document(doc, repo, verdict, coverage)


def verify_document(doc: object, repo: Path, verdict: Verdict, coverage: Path) -> ScoreResult:
    """:func:`verify_uploaded` with the diff verdict the caller computed itself (the bot, outside its
    sandbox) and the report already read (an :class:`InputError`: it could not be)."""
    if verdict.verdict != Outcome.PASS_CLEAN:
        score = from_diff_verdict(verdict.verdict, [(r.code.value, r.detail) for r in verdict.reasons])
        return ScoreResult(score, verdict, verdict.parent, verdict.head)
    side = parent_side(Git(repo), verdict.parent, verdict.head, coverage)
    if isinstance(side, ParentProblem):
        return ScoreResult(incomplete(side.problem), verdict, verdict.parent, verdict.head, side.digest)
    known = KnownFacts(
        parent=verdict.parent,
        head=verdict.head,
        manifest_sha256=side.digest,
        verdict=verdict.verdict,
        protocol=to_json(verdict)["protocol"],
        parent_run=side.run,
        live=side.live,
        mutation_mode=side.oracle.policy.mutation.mode,
    )
    if isinstance(doc, InputError):
        return ScoreResult(rejected(str(doc)), verdict, verdict.parent, verdict.head, side.digest, side.run)

    def recheck(targets: tuple[tuple[str, str], ...]) -> Verdict:
        request = CheckRequest(
            repo=repo, base=verdict.parent, head=verdict.head, coverage=coverage, rebound=targets
        )
        return run_check(request)

    checked: Score = check_report(doc, known, recheck)
    return ScoreResult(checked, verdict, verdict.parent, verdict.head, side.digest, side.run)


def _load(report: Path) -> object:
    try:
        return json.loads(read_bounded(report, MAX_SCORE_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(str(report), f"not a readable score report ({exc})") from exc
