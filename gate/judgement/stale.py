"""A pull request's check after the default branch moved: stale until it is judged on the new parent.

The check on its head was made against the old parent; GitHub's test merge is now made on the new
one, and without that parent's map the pull request cannot be judged again yet. The old verdict
must not keep standing (a ``success`` would still satisfy a required check), and only GitHub may
conclude a check ``stale``: so it is replaced by an ``action_required`` check saying it is stale.
The same holds from the moment the default branch moves until GitHub has recomputed the test merge
on the new tip (:mod:`oracle_gate.review.freshness`): :func:`moved_check` is posted on the head first, so
the old parent's verdict never stands as current while the bot waits to judge the new merge.
Pure: no I/O. Used by the judgement's :func:`~oracle_gate.judgement.sequence.post` and the bot's
move of the default branch.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from oracle_gate.github.limits import MAX_CHECK_TEXT
from oracle_gate.github.values import CheckContent

ACTION_REQUIRED = "action_required"


@dataclass(frozen=True)
class Earlier:
    """The pull request's last judgement: its parent and verdict."""

    parent: str
    verdict: str


def is_stale(earlier: Earlier | None, parent: str, content: CheckContent) -> bool:
    """The earlier judgement used another parent and the new one could not be scored (no map)."""
    return earlier is not None and earlier.parent != parent and content.conclusion == ACTION_REQUIRED


def stale_check(content: CheckContent, earlier: Earlier, parent: str) -> CheckContent:
    """``content`` (the unscored check on the new parent) saying first that the last verdict is stale."""
    note = (
        f"> [!WARNING]\n> **Stale.** The last verdict, `{earlier.verdict}`, was made on the parent "
        f"`{earlier.parent}`. The default branch has moved to `{parent}`, whose map is not made yet, "
        "so that verdict no longer applies; this pull request is judged again when the map workflow "
        "completes for the new parent.\n\n"
    )
    title = "Stale: the default branch moved; waiting for the new parent's map"
    room = MAX_CHECK_TEXT - len(note.encode())
    summary = content.summary.encode()[:room].decode(errors="ignore")
    return dataclasses.replace(
        content,
        conclusion=ACTION_REQUIRED,
        title=title,
        summary=note + summary,
        summary_truncated=content.summary_truncated or summary != content.summary,
        status_description=title,
        minimal_summary=note + (content.minimal_summary or ""),
    )


def moved_check(earlier: Earlier, parent: str) -> CheckContent:
    """The check that replaces ``earlier`` at once when the default branch moves to ``parent``: stale
    (``action_required``) until the pull request's test merge on ``parent`` is judged."""
    title = "Stale: the default branch moved; judging again on the new parent"
    summary = (
        f"> [!WARNING]\n> **Stale.** The last verdict, `{earlier.verdict}`, was made on the parent "
        f"`{earlier.parent}`. The default branch has moved to `{parent}`, so that verdict no longer "
        "applies; this pull request is judged again as soon as GitHub has recomputed its test merge "
        "on the new parent.\n"
    )
    return CheckContent(
        conclusion=ACTION_REQUIRED,
        title=title,
        summary=summary,
        summary_truncated=False,
        status_state="pending",
        status_description=title,
    )
