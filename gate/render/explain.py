"""The ``/oracle-gate explain`` reply: every reason and the full overlap listing, whole (the GitHub
side cuts it to a comment's size, :mod:`oracle_gate.github.limits`)."""

from __future__ import annotations

from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.listings import overlap_listing
from oracle_gate.render.markdown import md_escape, render


def explain_markdown(v: Verdict) -> str:
    """The ``/oracle-gate explain`` reply: every reason and the full overlap listing."""
    return render("explain.md.j2", v, listing=overlap_listing(v))


def explain_error_reply(why: object) -> str:
    """The ``/oracle-gate explain`` reply when the verdict could not be computed."""
    return f"**Oracle Gate could not compute the verdict:** {md_escape(why)}"
