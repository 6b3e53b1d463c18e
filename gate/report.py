"""Renderings of a verdict: the contract's JSON, a short text summary, markdown.

Markdown comes from the jinja2 templates packaged as ``gate.templates``.
Everything a pull request controls (paths, marker lines, details) goes through
:func:`md_escape` or :func:`md_code`, so a change cannot inject markup or
mention people through the gate's own comment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jinja2

from gate.verdict import EXIT_STATUS, FAIL, PASS, UNSCORED, Protocol, Reason, Verdict, line_ranges

STICKY_MARKER = "<!-- oracle-gate:sticky -->"
ICONS = {PASS: "✅", FAIL: "❌", UNSCORED: "⚠️"}
MEANINGS = {
    PASS: "The oracle is intact and no touched line depends on frozen tests alone.",
    FAIL: "The change edits the oracle or how it runs: it must not be scored.",
    UNSCORED: "The change cannot be scored as it stands: a green test run would prove nothing here.",
}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~&])")


def to_json(v: Verdict) -> dict[str, Any]:
    """The verdict as the contract's Output section (plus ``path``/``line`` on file reasons)."""
    return {
        "verdict": v.verdict,
        "reasons": [_reason_json(r) for r in v.reasons],
        "overlap": {p: sorted(lines) for p, lines in sorted(v.overlap.items()) if lines},
        "touched": {p: sorted(lines) for p, lines in sorted(v.touched.items()) if lines},
        "overlap_ratio": v.overlap_ratio,
        "parent": v.parent,
        "head": v.head,
        "protocol": {
            "policy_sha256": v.protocol.policy_sha256,
            "freeze_sha256": v.protocol.freeze_sha256,
            "lock_sha256": v.protocol.lock_sha256,
            "coverage_sha256": v.protocol.coverage_sha256,
            "gate_version": v.protocol.gate_version,
            "options": {
                "extra_protected": list(v.protocol.extra_protected),
                "allow_failing_parent": v.protocol.allow_failing_parent,
            },
        },
    }


def _reason_json(r: Reason) -> dict[str, Any]:
    out: dict[str, Any] = {"code": r.code, "detail": r.detail}
    if r.path is not None:
        out["path"] = r.path
    if r.line is not None:
        out["line"] = r.line
    return out


def from_json(doc: Mapping[str, Any]) -> Verdict:
    """Rebuild a verdict from its JSON (for publishing a stored ``verdict.json``)."""
    verdict = doc.get("verdict")
    if verdict not in EXIT_STATUS:
        raise ValueError(f"'verdict' must be one of {sorted(EXIT_STATUS)}, got {verdict!r}")
    protocol = doc.get("protocol") or {}
    options = protocol.get("options") or {}
    return Verdict(
        verdict=verdict,
        reasons=tuple(
            Reason(str(r["code"]), str(r.get("detail", "")), r.get("path"), r.get("line"))
            for r in doc.get("reasons", [])
        ),
        overlap={str(p): [int(n) for n in lines] for p, lines in (doc.get("overlap") or {}).items()},
        touched={str(p): [int(n) for n in lines] for p, lines in (doc.get("touched") or {}).items()},
        overlap_ratio=float(doc.get("overlap_ratio", 0.0)),
        parent=str(doc.get("parent", "")),
        head=str(doc.get("head", "")),
        protocol=Protocol(
            protocol.get("policy_sha256"),
            protocol.get("freeze_sha256"),
            protocol.get("lock_sha256"),
            protocol.get("coverage_sha256"),
            str(protocol.get("gate_version", "")),
            tuple(options.get("extra_protected", ())),
            bool(options.get("allow_failing_parent", False)),
        ),
    )


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
        count = sum(len(x) for x in v.overlap.values())
        total = sum(len(x) for x in v.touched.values())
        lines.append(f"  overlap: {count} of {total} touched line(s), ratio {v.overlap_ratio}")
        for path, ranges in overlap_ranges(v).items():
            lines.append(f"    {path}: {', '.join(_range_text(a, b) for a, b in ranges)}")
    return "\n".join(lines) + "\n"


def overlap_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    return {path: line_ranges(lines) for path, lines in sorted(v.overlap.items()) if lines}


def _range_text(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}-{b}"


def md_escape(text: object) -> str:
    """Escape markdown and HTML so text from a pull request renders as itself."""
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")
    return escaped.replace("@", "&#64;")  # no mentions from a pull request's text


def md_code(text: object) -> str:
    """An inline code span that no backtick in ``text`` can close early (safe in a table cell)."""
    body = str(text).replace("\n", " ").replace("|", "\\|")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    # Markdown, not HTML: autoescaping would mangle it; untrusted text goes through md/code.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gate.templates", "."),
        autoescape=False,  # noqa: S701 trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        md=md_escape, code=md_code, range_text=lambda r: _range_text(*r), short=lambda sha: str(sha)[:12]
    )
    return env


def frozen_observers(v: Verdict) -> dict[str, list[str]]:
    """Per overlapping file, the frozen tests that observe its overlap lines."""
    return {
        path: sorted({t for tests in lines.values() for t in tests})
        for path, lines in sorted(v.overlap_observers.items())
    }


def template_context(v: Verdict) -> dict[str, Any]:
    return {
        "frozen_observers": frozen_observers(v),
        "v": v,
        "icon": ICONS[v.verdict],
        "meaning": MEANINGS[v.verdict],
        "codes": v.codes,
        "marker": STICKY_MARKER,
        "overlap_ranges": overlap_ranges(v),
        "overlap_count": sum(len(x) for x in v.overlap.values()),
        "touched_count": sum(len(x) for x in v.touched.values()),
    }


def render(template: str, v: Verdict, **extra: Any) -> str:
    return environment().get_template(template).render(**template_context(v), **extra)


def to_markdown(v: Verdict) -> str:
    """The report the sticky PR comment carries (with its hidden marker)."""
    text = render("comment.md.j2", v)
    if STICKY_MARKER not in text:
        raise RuntimeError("comment.md.j2 lost the sticky marker: the comment could not be found again")
    return text
