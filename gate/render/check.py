"""A check run's title and markdown summary, and the summary of a check posted when the gate itself
failed. Whole: :mod:`oracle_gate.github.limits` fits them to GitHub's sizes."""

from __future__ import annotations

from oracle_gate import escape
from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.markdown import environment, render

ERROR_TITLE = "Oracle Gate could not run"


def check_title(v: Verdict) -> str:
    """One line for the check run's title (plain text)."""
    return escape.check_title(render("check_title.txt.j2", v).strip())


def check_summary(v: Verdict) -> str:
    """The check run's markdown summary, whole (:mod:`oracle_gate.github.limits` cuts it to fit)."""
    return render("check_summary.md.j2", v)


def error_summary(why: str) -> str:
    """The summary of a check posted when the gate itself failed and there is no verdict."""
    return environment().get_template("check_error.md.j2").render(why=why)
