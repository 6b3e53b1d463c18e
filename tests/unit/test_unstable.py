"""Contract v3.4 in the core: a live test's unstable observation does not make a line live."""

from __future__ import annotations

import pytest

from oracle_gate.errors import InputError
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.verdict import evaluate
from oracle_gate.maps.reader.unstable import parse_unstable
from tests.support.factories import change_set, evidence, freeze_of, lines, modified

LIVE, FROZEN = "t.py::live", "t.py::frozen"
EDIT = modified("m.py", lines("a = 1", "b = 2"), lines("a = 10", "b = 2"))


def coverage(observers: set[str], unstable: set[str]) -> ParentCoverage:
    return ParentCoverage(
        observers={"m.py": {1: frozenset(observers)}},
        digest="0" * 64,
        unstable={"m.py": {1: frozenset(unstable)}},
    )


@pytest.mark.parametrize(
    ("observers", "unstable", "verdict", "overlap"),
    [
        ({LIVE, FROZEN}, set(), "pass_clean", {}),
        ({LIVE, FROZEN}, {LIVE}, "unscored", {"m.py": [1]}),  # only the frozen observer is left
        ({LIVE, FROZEN}, {FROZEN}, "pass_clean", {}),  # frozen observations count anyway
        ({LIVE, FROZEN}, {LIVE, FROZEN}, "unscored", {"m.py": [1]}),
        ({LIVE}, {LIVE}, "pass_clean", {}),  # unobserved: not an overlap
    ],
)
def test_unstable_live_observations_are_dropped(
    observers: set[str], unstable: set[str], verdict: str, overlap: dict[str, list[int]]
) -> None:
    v = evaluate(evidence(change_set(EDIT), freeze=freeze_of(FROZEN), coverage=coverage(observers, unstable)))
    assert (v.verdict, v.overlap) == (verdict, overlap)


def test_parse_unstable_accepts_the_documented_shape() -> None:
    assert parse_unstable({LIVE: {"m.py": [1, 2]}}, "x.manifest.json") == {LIVE: {"m.py": [1, 2]}}
    assert parse_unstable(None, "x") == {}


@pytest.mark.parametrize("value", [[], {LIVE: []}, {LIVE: {"m.py": [-1]}}, {LIVE: {"m.py": 1}}, 3])
def test_parse_unstable_refuses_other_shapes(value: object) -> None:
    with pytest.raises(InputError) as caught:
        parse_unstable(value, "x.manifest.json")
    assert caught.value.source == "x.manifest.json"
