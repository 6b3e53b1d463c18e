"""What the Action says on GitHub and in the workflow: :mod:`oracle_gate.render`'s texts, fit to GitHub's
limits (:mod:`oracle_gate.github.limits`).

The check run (conclusion, title, summary, annotations, and the commit status that replaces it), the
sticky comment, the ``explain`` reply, the job summary with its lines on what was posted, and the
summary of a run that could not compute a verdict. The publisher posts these values as they are.

Choices, with the GitHub behaviour they rest on (D = https://docs.github.com/en):

* **Conclusions.** ``pass_clean`` -> ``success``, ``fail`` -> ``failure``,
  ``unscored`` -> ``action_required``. ``neutral`` and ``skipped`` would
  satisfy a required check (D/pull-requests/.../troubleshooting-required-status-checks);
  ``action_required`` blocks it without claiming the code failed. When the
  gate itself failed there is no verdict and :func:`error_check` says
  ``failure`` with the reason.
* **Status fallback.** A commit status has no "action required": ``success``
  for ``pass_clean`` only, ``failure`` for ``fail`` and for ``unscored``
  (``pending`` would leave the PR waiting forever, ``error`` means the checker
  broke), ``error`` when the gate itself failed. The description (max 140
  characters) names the verdict, so ``unscored`` is not mistaken for a code failure.
* **Sticky comment.** Starts with :data:`oracle_gate.render.markdown.STICKY_MARKER`; mode
  ``on-change`` never creates one just to say ``pass_clean``.
"""

from __future__ import annotations

from oracle_gate.github.defaults import MAX_ANNOTATIONS_PER_RUN, CommentMode
from oracle_gate.github.limits import MAX_STATUS_DESCRIPTION, fit_check_text, fit_comment, shorten
from oracle_gate.github.values import (
    CheckContent,
    CheckResult,
    CommentAction,
    NotPosted,
    PublishResult,
    StickyComment,
)
from oracle_gate.judge.verdict import Outcome, Verdict
from oracle_gate.render import explain, job_summary
from oracle_gate.render.annotations import check_annotations
from oracle_gate.render.check import ERROR_TITLE, check_summary, check_title
from oracle_gate.render.check import error_summary as error_check_summary
from oracle_gate.render.formats import format_verdict
from oracle_gate.render.markdown import STICKY_MARKER, md_code, to_markdown
from oracle_gate.render.text import to_text

MINIMAL_SUMMARY = (
    "The full report did not fit GitHub's limits for a check run's summary; "
    "the step's job summary and the action's verdict.json have it."
)

CONCLUSIONS = {Outcome.PASS_CLEAN: "success", Outcome.FAIL: "failure", Outcome.UNSCORED: "action_required"}
ERROR_CONCLUSION = "failure"
STATUS_STATES = {Outcome.PASS_CLEAN: "success", Outcome.FAIL: "failure", Outcome.UNSCORED: "failure"}
ERROR_STATUS_STATE = "error"

FORK_SAFE_HINT = (
    "The token may not write to this repository (a pull request from a fork, or one by Dependabot, "
    "gets a read-only GITHUB_TOKEN), so nothing was posted. The verdict is still in verdict.json, the "
    "step outputs and the job summary. To post it, use the two-stage workflow "
    "(examples/oracle-gate-fork-safe.yml computes with the read-only token, "
    "examples/oracle-gate-fork-safe-publish.yml posts with `oracle-gate publish`), or run the gate on "
    "pull_request_target, where it only fetches the pull request's git objects and never runs them."
)


# -- the check run and the sticky comment -------------------------------------------------------------


def check_content(verdict: Verdict, max_annotations: int = MAX_ANNOTATIONS_PER_RUN) -> CheckContent:
    """The verdict's check run: conclusion, title, summary (cut to fit in bytes), at most
    ``max_annotations`` annotations (the summary says how many were left out), status fallback."""
    annotations = [a.to_api() for a in check_annotations(verdict)]
    left_out = max(0, len(annotations) - max_annotations)
    summary, truncated = fit_check_text(
        annotations_left_out_note(left_out, max_annotations) + check_summary(verdict),
        "The full verdict is in the action's verdict.json.",
    )
    title = check_title(verdict)
    return CheckContent(
        conclusion=CONCLUSIONS[verdict.verdict],
        title=title,
        summary=summary,
        summary_truncated=truncated,
        status_state=STATUS_STATES[verdict.verdict],
        status_description=shorten(title, MAX_STATUS_DESCRIPTION),
        annotations=annotations[:max_annotations],
        annotations_left_out=left_out,
        minimal_summary=f"**{title}**\n\n{MINIMAL_SUMMARY}\n",
    )


def annotations_left_out_note(left_out: int, cap: int) -> str:
    """The summary's first lines when the annotation cap was reached (empty otherwise): first, so
    that cutting a long summary never cuts them."""
    if not left_out:
        return ""
    return (
        f"> [!NOTE]\n> {left_out} more annotation(s) were left out: the gate posts at most {cap} "
        "per run. The reasons below and verdict.json list every one.\n\n"
    )


def error_check(why: str) -> CheckContent:
    """The gate failed without a verdict: a ``failure`` check saying why (or an ``error`` status)."""
    summary, truncated = fit_check_text(error_check_summary(why))
    return CheckContent(
        conclusion=ERROR_CONCLUSION,
        title=ERROR_TITLE,
        summary=summary,
        summary_truncated=truncated,
        status_state=ERROR_STATUS_STATE,
        status_description=shorten(f"{ERROR_TITLE}: {why}", MAX_STATUS_DESCRIPTION),
    )


def outcome_check(outcome: Outcome, title: str, markdown: str) -> CheckContent:
    """A check run for an outcome rendered elsewhere (the scoring run's report, oracle_gate.score.report):
    the verdict's conclusion and status mapping, the summary cut to fit, no annotations."""
    summary, truncated = fit_check_text(markdown)
    return CheckContent(
        conclusion=CONCLUSIONS[outcome],
        title=shorten(title, 200),
        summary=summary,
        summary_truncated=truncated,
        status_state=STATUS_STATES[outcome],
        status_description=shorten(title, MAX_STATUS_DESCRIPTION),
    )


def sticky_comment(verdict: Verdict, mode: CommentMode) -> StickyComment | None:
    """The sticky comment for ``mode``: None for ``never``; under ``on-change`` a ``pass_clean`` only
    updates an existing comment."""
    if mode == CommentMode.NEVER:
        return None
    body, truncated = fit_comment(
        to_markdown(verdict), "The check run and the action's verdict.json have the full verdict."
    )
    create = mode == CommentMode.ALWAYS or verdict.verdict != Outcome.PASS_CLEAN
    return StickyComment(STICKY_MARKER, body, create=create, truncated=truncated)


def reply_text(body: str) -> str:
    """A plain comment's body, cut to GitHub's limit."""
    return fit_comment(body)[0]


# -- the verdict in files and logs --------------------------------------------------------------------


def verdict_json(verdict: Verdict) -> str:
    """Exactly the contract's JSON (``verdict.json``)."""
    return format_verdict(verdict, "json")


def log_text(verdict: Verdict) -> str:
    """The verdict as plain text, for the Actions log."""
    return to_text(verdict)


# -- the job summary ----------------------------------------------------------------------------------


def nothing_posted_for_permission(result: PublishResult) -> bool:
    """The token could write neither a check run nor a status: a read-only token (fork, Dependabot)."""
    return not result.check.posted and any(n.refused for n in result.check.not_posted)


def check_line(check: CheckResult, check_name: str) -> str:
    """One markdown line on what the check step posted."""
    name = md_code(check_name)
    if check.check_run_id is not None:
        notes = f"{check.annotations_posted} of {check.annotations_total} annotation(s)"
        if check.summary_truncated:
            notes += ", summary truncated"
        return f"Check run {name} (id {check.check_run_id}): `{check.conclusion}`, {notes}."
    if check.status_state is not None:
        return (
            f"Commit status {name}: `{check.status_state}` (the token may not write check runs, "
            "so a commit status was posted instead; it carries no annotations)."
        )
    return f"Check run {name}: **not posted** (conclusion would have been `{check.conclusion}`)."


def comment_line(action: CommentAction, comment_id: int | None, mode: str) -> str:
    """One markdown line on what became of the sticky comment."""
    where = f" (id {comment_id})" if comment_id is not None else ""
    words = {
        CommentAction.CREATED: f"Sticky comment: created{where}.",
        CommentAction.UPDATED: f"Sticky comment: updated in place{where}.",
        CommentAction.UNCHANGED: f"Sticky comment: already up to date{where}, not touched.",
        CommentAction.SKIPPED: f"Sticky comment: none posted (comment mode `{mode}`).",
        CommentAction.FAILED: "Sticky comment: **not posted**.",
    }
    return words[action]


def verdict_summary(verdict: Verdict, result: PublishResult, *, check_name: str, mode: str) -> str:
    """The job summary of a run that computed a verdict: the report and what was posted."""
    posted = [
        check_line(result.check, check_name),
        comment_line(result.comment.action, result.comment.comment_id, mode),
    ]
    return job_summary.action_summary(
        verdict,
        posted,
        result.not_posted,
        FORK_SAFE_HINT if nothing_posted_for_permission(result) else "",
    )


def error_summary(
    why: str, *, check: CheckResult | None, failure: NotPosted | None, check_name: str, head_known: bool
) -> str:
    """The job summary of a run that could not compute a verdict."""
    return job_summary.action_error_summary(
        why,
        check_line=check_line(check, check_name) if check is not None else None,
        failure=failure,
        head_known=head_known,
    )


# -- the explain command ------------------------------------------------------------------------------


def explain_reply(verdict: Verdict) -> tuple[str, bool]:
    """The ``/oracle-gate explain`` reply (cut to a comment's size) and whether it was cut."""
    return fit_comment(
        explain.explain_markdown(verdict),
        "The workflow run's job summary and verdict.json have the whole listing.",
    )


def explain_summary(verdict: Verdict, pr_number: int, *, replied: bool, truncated: bool) -> str:
    """The job summary of an ``explain``: whether it was answered, and the whole listing."""
    return job_summary.explain_job_summary(verdict, pr_number, replied=replied, truncated=truncated)


def not_computed_reply(why: object) -> str:
    """The reply to an ``explain`` whose verdict could not be computed."""
    return explain.explain_error_reply(why)
