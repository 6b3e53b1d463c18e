"""A pull request's check after the default branch moved and its new parent has no map yet.

The check on its head was made against the old parent; GitHub's test merge is now made on the new
one, and without that parent's map the pull request cannot be judged again yet. The old verdict
must not keep standing (a ``success`` would still satisfy a required check), and only GitHub may
conclude a check ``stale``: so it is replaced by an ``action_required`` check saying it is stale.
Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from oracle_gate.github.content import MAX_CHECK_TEXT
from oracle_gate.github.publisher import CheckContent

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
