"""The Action's job summary: of a judged pull request, of a run that could not judge, of an explain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.explain import explain_markdown
from oracle_gate.render.markdown import environment, render, to_markdown


class Unposted(Protocol):
    """Something the Action did not post, and why (``oracle_gate.github.values.NotPosted`` has
    this shape)."""

    @property
    def what(self) -> str: ...

    @property
    def why(self) -> str: ...


def action_summary(
    v: Verdict, posted: Sequence[str], not_posted: Sequence[Unposted] = (), permission_hint: str = ""
) -> str:
    """The job summary of a judged pull request: the comment's report, then what was posted where.

    ``posted`` are markdown lines the Action wrote (they may hold code spans); ``not_posted`` is
    escaped here, since a refusal's message quotes GitHub's answer.
    """
    return render(
        "action_summary.md.j2",
        v,
        report_md=to_markdown(v),
        posted=posted,
        not_posted=not_posted,
        permission_hint=permission_hint,
    )


def action_error_summary(
    why: str, *, check_line: str | None = None, failure: Unposted | None = None, head_known: bool = True
) -> str:
    """The job summary when the gate could not run: why, and whether a failure check was posted
    (``check_line``), could not be (``failure``) or had no commit to go on (not ``head_known``)."""
    return (
        environment()
        .get_template("action_error.md.j2")
        .render(why=why, check=check_line, failure=failure, head_known=head_known)
    )


def explain_job_summary(v: Verdict, pr_number: int, *, replied: bool, truncated: bool) -> str:
    """The job summary of an explain run: whether the reply was posted (and cut), then the whole
    listing, which the job summary always has room for."""
    full = explain_markdown(v)
    note = "Replied" if replied else "**Could not reply**"
    cut = " (cut to GitHub's comment size; the whole listing is below)" if truncated else ""
    return f"{note} on #{pr_number}{cut}.\n\n{full}"
