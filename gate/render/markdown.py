"""The markdown renderings: the jinja2 environment of ``oracle_gate.templates``, the context every
template gets, and the sticky comment's report.

Markdown, not HTML: autoescaping would mangle it, so everything a pull request controls goes through
the ``md``, ``code`` and ``code_block`` filters (:mod:`oracle_gate.escape`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from oracle_gate import escape, guidance
from oracle_gate.judge.verdict import Outcome, Verdict, line_count, range_text
from oracle_gate.render.listings import (
    edited_by_file,
    edited_only_tests,
    edited_ranges,
    frozen_observers,
    inherited_ranges,
    overlap_ranges,
)
from oracle_gate.render.replay import replay_command
from oracle_gate.render.text import MEANINGS

STICKY_MARKER = "<!-- oracle-gate:sticky -->"
ICONS = {Outcome.PASS_CLEAN: "✅", Outcome.FAIL: "❌", Outcome.UNSCORED: "⚠️"}


def md_escape(text: object) -> str:
    """Escape markdown and HTML so text from a pull request renders as itself (:func:`escape.md_text`)."""
    return escape.md_text(text)


def md_code(text: object) -> str:
    """An inline code span that no backtick, ``|`` or line break in ``text`` can close early."""
    return escape.md_code(text)


def code_block(text: object) -> str:
    """A fenced code block whose fence is longer than any run of backticks in ``text``."""
    return escape.md_code_block(text)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    # Markdown, not HTML: autoescaping would mangle it; untrusted text goes through md/code.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("oracle_gate.templates", "."),
        autoescape=False,  # noqa: S701
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        md=md_escape,
        code=md_code,
        code_block=code_block,
        range_text=lambda r: range_text(*r),
        short=lambda sha: str(sha)[:12],
    )
    return env


def template_context(v: Verdict) -> dict[str, Any]:
    """What every verdict template may name: the verdict, its words, and the listings drawn from it."""
    return {
        "inherited_ranges": inherited_ranges(v),
        "edited_ranges": edited_ranges(v),
        "edited_by_file": edited_by_file(v),
        "edited_only_tests": edited_only_tests(v),
        "edited_count": line_count(v.edited_only),
        "frozen_observers": frozen_observers(v),
        "v": v,
        "icon": ICONS[v.verdict],
        "meaning": MEANINGS[v.verdict],
        "codes": v.codes,
        "marker": STICKY_MARKER,
        "overlap_ranges": overlap_ranges(v),
        "overlap_count": v.overlap_count,
        "touched_count": v.touched_count,
        "replay_command": replay_command(v),
        "guide": guidance.guidance(v),
        "triage": v.triage,
    }


def render(template: str, v: Verdict, **extra: Any) -> str:
    """``template`` rendered with the verdict's context and ``extra`` values."""
    return environment().get_template(template).render(**template_context(v), **extra)


def to_markdown(v: Verdict) -> str:
    """The report the sticky PR comment carries (with its hidden marker)."""
    text = render("comment.md.j2", v)
    if STICKY_MARKER not in text:
        raise RuntimeError("comment.md.j2 lost the sticky marker: the comment could not be found again")
    return text
