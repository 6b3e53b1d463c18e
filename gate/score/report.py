"""``score.json`` and the score's text and markdown renderings (SCORING.md, Output).

The JSON binds the score to (parent, head), the diff verdict's protocol digests and the parent's
map manifest digest, and carries every per-test outcome of both runs, so the trusted stage can
recompute the score from it (:mod:`oracle_gate.score.verify`) instead of reading the ``score`` word.
"""

from __future__ import annotations

import json
from typing import Any

from oracle_gate.escape import log_line
from oracle_gate.render.markdown import md_escape
from oracle_gate.render.verdict_json import to_json
from oracle_gate.score.decide import (
    SCORE_KIND,
    SCORE_SCHEMA,
    HeadRun,
    Score,
    ScoreCode,
    ScoreReason,
    ScoreResult,
)
from oracle_gate.score.mutation.outcome import summary_document

ICONS = {"pass_clean": "✅", "fail": "❌", "unscored": "⚠️"}
MEANINGS = {
    "pass_clean": "The diff verdict is pass_clean, and every live test the parent ran kept its outcome "
    "in two runs.",
    "fail": "The change fails the diff verdict or the scoring run: it must not be counted as green.",
    "unscored": "The change could not be scored: a green run would prove nothing here.",
}

UNCHECKED = ScoreCode.UNCHECKED_LINE.value
UNCHECKED_MEANING = (
    "Diff mutation (SCORING.md 2.4) changed each line below as shown and ran the live tests that "
    "execute it: they all still passed, so no live test checks what the line does."
)


def score_document(result: ScoreResult) -> dict[str, Any]:
    verdict = to_json(result.verdict)
    parent = result.parent_run
    return {
        "kind": SCORE_KIND,
        "schema": SCORE_SCHEMA,
        "score": result.score.score.value,
        "reasons": [
            {"code": r.code, "detail": r.detail, "tests": list(r.tests), "outcome": r.outcome.value}
            for r in result.score.reasons
        ],
        "parent": result.parent,
        "head": result.head,
        "diff_verdict": {"verdict": verdict["verdict"], "protocol": verdict["protocol"]},
        "parent_manifest_sha256": result.manifest_sha256,
        "runs": [_run_document(run) for run in result.runs],
        "plugins": {
            "parent": _plugins(parent.plugins) if parent else None,
            "head": _plugins(result.runs[0].plugins) if result.runs else None,
        },
        "python": {"parent": parent.python if parent else None},
        "seconds": result.seconds,
        **({"mutation": summary_document(result.mutation)} if result.mutation is not None else {}),
    }


def _plugins(plugins: Any) -> list[dict[str, Any]]:
    return [{"name": name, "version": plugins[name]} for name in sorted(plugins)]


def _run_document(run: HeadRun) -> dict[str, Any]:
    return {
        "label": run.label,
        "outcomes": dict(sorted(run.outcomes.items())),
        "skip_reasons": dict(sorted(run.reasons.items())),
        "plugins": _plugins(run.plugins),
        "collected": len(run.collected),
        "harness": sorted(run.harness),
        "harness_stopped": run.harness_stopped,
        "leaked": list(run.leaked),
        "problem": run.problem,
        "exit_status": run.exit_status,
        "witness": _witness_document(run),
        "rebound": [dict(entry) for entry in run.rebound],
    }


def _witness_document(run: HeadRun) -> dict[str, Any] | None:
    seen = run.witnessed
    if seen is None:
        return None
    return {
        "outcomes": dict(sorted(seen.outcomes.items())),
        "exit_status": seen.exit_status,
        "returncode": seen.returncode,
        "unreadable": seen.unreadable,
    }


def format_score(result: ScoreResult, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(score_document(result), indent=2, sort_keys=False) + "\n"
    if fmt == "markdown":
        return to_markdown(result.score, result.parent, result.head)
    return to_text(result.score, result.parent, result.head)


def to_text(score: Score, parent: str, head: str) -> str:
    lines = [f"score: {score.score.value}  ({parent[:12]}..{head[:12]})", f"  {MEANINGS[score.score.value]}"]
    for r in score.reasons:
        lines.append(f"- {r.code}: {log_line(r.detail)}")
        lines += [f"    {log_line(t)}" for t in r.tests[:10]]
        if len(r.tests) > 10:
            lines.append(f"    ... and {len(r.tests) - 10} more")
    return "\n".join(lines) + "\n"


def to_markdown(score: Score, parent: str, head: str) -> str:
    word = score.score.value
    lines = [
        f"### {ICONS[word]} Oracle Gate score: `{word}`",
        "",
        md_escape(MEANINGS[word]),
        "",
        f"Parent `{parent[:12]}`, head `{head[:12]}`.",
        "",
    ]
    unchecked = [r for r in score.reasons if r.code == UNCHECKED]
    for r in score.reasons:
        if r.code != UNCHECKED:
            lines += _markdown_reason(r, f"**{r.code}**: ")
    if unchecked:
        lines += ["", "#### Lines no live test checks", "", UNCHECKED_MEANING, ""]
        for r in unchecked:
            lines += _markdown_reason(r, "")
    return "\n".join(lines) + "\n"


def _markdown_reason(reason: ScoreReason, label: str) -> list[str]:
    lines = [f"- {label}{md_escape(reason.detail)}"]
    lines += [f"  - {md_escape(t)}" for t in reason.tests[:10]]
    if len(reason.tests) > 10:
        lines.append(f"  - ... and {len(reason.tests) - 10} more")
    return lines
