"""When GitHub's test merge of a pull request may be judged (TRUST.md invariants 6 and 11).

A verdict is about one (parent, head) pair. GitHub recomputes ``refs/pull/N/merge`` asynchronously
after a push to the head *or to the base*, and asks clients to wait until ``pulls/get`` answers
``mergeable`` (../shared/github/README.md). Until then the ref may still merge the old head, or the
new head onto the old base: judging it would post the old parent's verdict as if it were current.

So a test merge is judged only when it is **fresh**: ``mergeable`` is known and true, its first
parent is the base branch's current tip (fetched in the same ``git fetch`` as the merge, so the two
are one moment's view) and its second parent is the pull request's head. Otherwise both front doors
wait and look again, within a bounded number of looks; past them the merge is not judged at all and
:class:`MergeNotReady` says why (the check says to re-run; it is never a verdict on a stale merge).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oracle_gate.errors import GateError

#: Looks at a test merge before giving up (GitHub usually recomputes the merge within a few seconds
#: of a push). The seconds between two are the shared setting ``merge-wait-ms``
#: (:mod:`oracle_gate.review.settings`), which both doors read and tests set to 0.
LOOKS = 6


class MergeNotReady(GateError):
    """The test merge is not (yet) a fresh merge of the head onto the base's tip."""


class MergeConflicts(GateError):
    """``mergeable: false``: the pull request has no test merge of its head to judge."""


@dataclass(frozen=True)
class Sighting:
    """One look at a pull request's test merge: what GitHub and the fetch said at that moment.

    ``merge`` and its parents are None when GitHub has not computed the merge yet (``mergeable`` is
    null) and nothing was fetched."""

    number: int
    head: str  # the pull request's head (pulls/get)
    base_ref: str  # the base branch
    base_tip: str | None  # refs/heads/<base> as fetched with the merge
    mergeable: bool | None
    merge: str | None = None
    first_parent: str | None = None
    second_parent: str | None = None


def why_not_fresh(seen: Sighting) -> str | None:
    """Why the test merge seen is not one to judge now, or None when it is fresh."""
    ref = f"refs/pull/{seen.number}/merge"
    if seen.mergeable is False:
        raise MergeConflicts(
            f"pull request #{seen.number} has merge conflicts (GitHub answers mergeable: false), "
            f"so {ref} is not a test merge of its head; resolve them and push"
        )
    if seen.mergeable is None or seen.merge is None:
        return f"GitHub is still computing {ref} (mergeable is not known yet)"
    if seen.second_parent != seen.head:
        return (
            f"{ref} ({_short(seen.merge)}) merges {_short(seen.second_parent)}, "
            f"not the head {_short(seen.head)}"
        )
    if seen.base_tip is None or seen.first_parent != seen.base_tip:
        return (
            f"{ref} ({_short(seen.merge)}) merges onto {_short(seen.first_parent)}, "
            f"not onto the current tip {_short(seen.base_tip)} of {seen.base_ref}"
        )
    return None


def fresh_merge(
    look: Callable[[], Sighting],
    sleep: Callable[[float], object],
    *,
    wait: float,
    looks: int = LOOKS,
    note: Callable[[str], None] = lambda line: None,
) -> Sighting:
    """The first fresh sighting of at most ``looks``; :class:`MergeNotReady` (or
    :class:`MergeConflicts`) when there is none."""
    why = "not looked at"
    for attempt in range(1, max(1, looks) + 1):
        seen = look()
        reason = why_not_fresh(seen)
        if reason is None:
            return seen
        why = reason
        if attempt < looks:
            note(f"{why}; looking again in {wait:g} s")
            sleep(wait)
    raise MergeNotReady(
        f"{why} after {looks} look(s); not judged (a stale merge is never judged): re-run later"
    )


def _short(sha: str | None) -> str:
    return "nothing" if sha is None else sha[:12]
