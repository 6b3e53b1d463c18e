"""Every rendering a person reads, for every kind of verdict, byte for byte against tests/golden/.

Pure values in, text out: the verdicts come from tests/support/rendering_cases.py (fixed SHAs,
digests and gate version). To refresh after an intended change of the output:

    ORACLE_GATE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_golden_renderings.py

then review ``git diff tests/golden/`` before committing. Nothing refreshes on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.check import check_summary, check_title, error_summary
from oracle_gate.render.explain import explain_error_reply, explain_markdown
from oracle_gate.render.formats import format_verdict
from oracle_gate.render.job_summary import action_error_summary, action_summary, explain_job_summary
from oracle_gate.render.markdown import to_markdown
from oracle_gate.render.text import to_text
from tests.support.golden import assert_matches_golden
from tests.support.rendering_cases import VERDICT_KINDS

POSTED = (
    "Check run `Oracle Gate` (id 4242): `failure`, 2 of 2 annotation(s).",
    "Sticky comment: created (id 77).",
)


@dataclass(frozen=True)
class Refused:
    what: str
    why: str


#: rendering -> (golden file name, the rendering of a verdict)
RENDERINGS: dict[str, tuple[str, Callable[[Verdict], str]]] = {
    "comment": ("comment.md", to_markdown),
    "check_title": ("check_title.txt", check_title),
    "check_summary": ("check_summary.md", check_summary),
    "explain": ("explain.md", explain_markdown),
    "explain_job_summary": (
        "explain_job_summary.md",
        lambda v: explain_job_summary(v, 7, replied=True, truncated=False),
    ),
    "job_summary": ("job_summary.md", lambda v: action_summary(v, POSTED)),
    "cli_text": ("cli.txt", lambda v: format_verdict(v, "text")),
    "cli_json": ("cli.json", lambda v: format_verdict(v, "json")),
}


@pytest.mark.parametrize("kind", sorted(VERDICT_KINDS))
@pytest.mark.parametrize("rendering", sorted(RENDERINGS))
def test_rendering_matches_golden(rendering: str, kind: str) -> None:
    """One rendering of one kind of verdict equals its golden file."""
    name, render = RENDERINGS[rendering]
    assert_matches_golden(f"renderings/{kind}/{name}", render(VERDICT_KINDS[kind]()))


@pytest.mark.parametrize("kind", sorted(VERDICT_KINDS))
def test_cli_markdown_is_the_comment(kind: str) -> None:
    """``--format markdown`` prints the sticky comment's report (its golden is comment.md)."""
    v = VERDICT_KINDS[kind]()
    assert format_verdict(v, "markdown") == to_markdown(v)


def test_to_text_is_the_cli_text() -> None:
    v = VERDICT_KINDS["unscored_overlap"]()
    assert to_text(v) == format_verdict(v, "text")


WHY = "coverage map `parent.coverage` is unreadable: <no such table> | asked by @someone"

#: gate-error renderings (no verdict) -> (golden file name, the text)
ERROR_RENDERINGS: dict[str, tuple[str, Callable[[], str]]] = {
    "check_error": ("check_error.md", lambda: error_summary(WHY)),
    "job_summary_check_posted": (
        "job_summary_check_posted.md",
        lambda: action_error_summary(
            WHY, check_line="Check run `Oracle Gate` (id 4243): `failure`, 0 of 0 annotation(s)."
        ),
    ),
    "job_summary_check_refused": (
        "job_summary_check_refused.md",
        lambda: action_error_summary(
            WHY, failure=Refused("failure check", "403 Resource not accessible by integration")
        ),
    ),
    "job_summary_head_unknown": (
        "job_summary_head_unknown.md",
        lambda: action_error_summary(WHY, head_known=False),
    ),
    "explain_error_reply": ("explain_error_reply.md", lambda: explain_error_reply(WHY)),
}


@pytest.mark.parametrize("rendering", sorted(ERROR_RENDERINGS))
def test_gate_error_rendering_matches_golden(rendering: str) -> None:
    """What a person reads when the gate could not run equals its golden file."""
    name, render = ERROR_RENDERINGS[rendering]
    assert_matches_golden(f"renderings/gate_error/{name}", render())


def test_job_summary_with_refusals_matches_golden() -> None:
    """The job summary of a fork's read-only run: nothing posted, each refusal said, and the hint."""
    v = VERDICT_KINDS["unscored_overlap"]()
    refused = (
        Refused("check run", "403 Resource not accessible by integration"),
        Refused("sticky comment", "403 Resource not accessible by integration"),
    )
    text = action_summary(v, ("Check run: **not posted**.",), refused, "The token may not write here.")
    assert_matches_golden("renderings/unscored_overlap/job_summary_refused.md", text)
