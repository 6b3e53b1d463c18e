"""The check run's annotations on diff mutation's survivors (SCORING.md 2.4, step 4): one warning on
each line no live test checks, its text escaped for the Checks API (TRUST.md 7), capped
(TRUST.md 8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracle_gate import escape
from oracle_gate.score.decide import Score, ScoreCode
from oracle_gate.score.mutation.outcome import MutationSummary, summary_from_document

TITLE = "Line no live test checks (unchecked_line)"


def survivor_annotations(summary: MutationSummary, cap: int) -> list[dict[str, Any]]:
    """At most ``cap`` annotations (the caller knows GitHub's limit per check run)."""
    out: list[dict[str, Any]] = []
    for result in summary.survivors[:cap]:
        ran = (
            f"the {len(result.tests)} live test(s) that run it all still passed"
            if result.tests
            else result.detail
        )
        message = f"Diff mutation changed this line ({result.mutation}) and {ran}: no live test checks it."
        out.append(
            {
                "path": result.path,
                "start_line": result.line,
                "end_line": result.line,
                "annotation_level": "warning",
                "title": escape.annotation_title(TITLE),
                "message": escape.annotation_message(message),
            }
        )
    return out


def report_annotations(doc: Mapping[str, Any], score: Score, cap: int) -> list[dict[str, Any]]:
    """The survivors' annotations of an accepted report (none when the score lists no survivor, or
    the report's section cannot be read)."""
    if not any(r.code == ScoreCode.UNCHECKED_LINE.value for r in score.reasons):
        return []
    section = doc.get("mutation")
    if not isinstance(section, dict):
        return []
    try:
        mode = str(section.get("mode") or "report")
        return survivor_annotations(summary_from_document(section, mode), cap)
    except ValueError:
        return []
