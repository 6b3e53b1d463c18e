"""Test-merge freshness (TRUST.md 6): a merge is judged only when mergeable is known, its first
parent is the base's current tip and its second the head; else look again, within bounds."""

from __future__ import annotations

import pytest

from oracle_gate.review.freshness import MergeConflicts, MergeNotReady, Sighting, fresh_merge, why_not_fresh

BASE, OLD_BASE, HEAD, OLD_HEAD, MERGE = "b" * 40, "0" * 40, "h" * 40, "1" * 40, "m" * 40


def seen(
    *,
    mergeable: bool | None = True,
    first: str = BASE,
    second: str = HEAD,
    tip: str | None = BASE,
    merge: str | None = MERGE,
) -> Sighting:
    return Sighting(1, HEAD, "main", tip, mergeable, merge, first, second)


def test_a_fresh_merge_is_judged() -> None:
    assert why_not_fresh(seen()) is None


@pytest.mark.parametrize(
    ("sighting", "words"),
    [
        (seen(mergeable=None, merge=None), "still computing"),
        (seen(second=OLD_HEAD), "not the head"),
        (seen(first=OLD_BASE), "not onto the current tip"),  # the base moved: the merge is stale
        (seen(tip=None), "not onto the current tip"),
    ],
    ids=["mergeable-unknown", "old-head", "old-base", "base-unknown"],
)
def test_a_stale_or_unready_merge_is_not_judged(sighting: Sighting, words: str) -> None:
    why = why_not_fresh(sighting)
    assert why is not None
    assert words in why


def test_conflicts_end_the_wait() -> None:
    with pytest.raises(MergeConflicts, match="merge conflicts"):
        why_not_fresh(seen(mergeable=False))


def test_the_wait_looks_again_until_the_merge_is_fresh() -> None:
    answers = iter([seen(mergeable=None, merge=None), seen(first=OLD_BASE), seen()])
    slept: list[float] = []
    found = fresh_merge(lambda: next(answers), slept.append, looks=5, wait=2.0)
    assert found == seen()
    assert slept == [2.0, 2.0]


def test_a_merge_never_fresh_is_never_judged() -> None:
    slept: list[float] = []
    with pytest.raises(MergeNotReady, match="after 3 look"):
        fresh_merge(lambda: seen(first=OLD_BASE), slept.append, looks=3, wait=1.0)
    assert slept == [1.0, 1.0]
