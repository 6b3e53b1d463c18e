"""A verdict as a few plain lines, for a terminal or a log."""

from __future__ import annotations

from oracle_gate.judge.verdict import Outcome, Verdict, line_count, ranges_text

#: What each verdict word means, one sentence (the text report and the markdown header say it).
MEANINGS = {
    Outcome.PASS_CLEAN: "The oracle is intact and no touched line depends on frozen tests alone.",
    Outcome.FAIL: "The change edits the oracle or how it runs: it must not be scored.",
    Outcome.UNSCORED: "The change cannot be scored as it stands: a green test run would prove nothing here.",
}


def to_text(v: Verdict) -> str:
    """A few lines for a terminal or a log."""
    codes = ", ".join(v.codes)
    lines = [
        f"oracle-gate: {v.verdict} ({codes})",
        f"  parent {v.parent[:12]}  head {v.head[:12]}",
        f"  {MEANINGS[v.verdict]}",
    ]
    lines += [f"  - {r.code}: {r.detail}" for r in v.reasons]
    if v.overlap:
        lines.append(
            f"  overlap: {v.overlap_count} of {v.touched_count} touched line(s), ratio {v.overlap_ratio}"
        )
        lines += [
            f"    {path}: {ranges_text(numbers)}" for path, numbers in sorted(v.overlap.items()) if numbers
        ]
    if v.edited_only:
        lines.append(f"  observed only by tests this change edits: {line_count(v.edited_only)} line(s)")
        lines += [f"    {path}: {ranges_text(numbers)}" for path, numbers in sorted(v.edited_only.items())]
    if v.triage:  # v3.7: listed only, never a reason
        lines.append(f"  freeze entries needing triage: {len(v.triage)}")
        lines += [f"    {t.nodeid}: {', '.join(t.why)}" for t in v.triage]
    return "\n".join(lines) + "\n"
