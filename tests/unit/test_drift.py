"""Drift between two maps (``map --previous``): the pure comparison,
:func:`oracle_gate.maps.drift.compare`."""

from __future__ import annotations

from collections.abc import Mapping, Set

from oracle_gate.maps.drift import Drift, Shrunk, compare

FROZEN = "tests/test_calc.py::test_jitter"
LIVE = "tests/test_calc.py::test_add"
SRC = "src/calc.py"


def lines(n: int, start: int = 1) -> set[int]:
    return set(range(start, start + n))


def drift(
    previous: Mapping[str, Mapping[str, Set[int]]],
    current: Mapping[str, Mapping[str, Set[int]]],
    *,
    changed: Set[str] = frozenset(),
    previous_ran: tuple[str, ...] = (FROZEN, LIVE),
    current_ran: tuple[str, ...] = (FROZEN, LIVE),
    existing: Set[str] = frozenset({"tests/test_calc.py"}),
) -> Drift:
    return compare(
        previous,
        current,
        previous_sha="a" * 40,
        frozen={FROZEN},
        previous_ran=previous_ran,
        current_ran=current_ran,
        changed_files=changed,
        existing_files=existing,
    )


def test_a_frozen_test_observing_under_half_of_what_it_did_is_drift() -> None:
    found = drift({FROZEN: {SRC: lines(10)}}, {FROZEN: {SRC: lines(4)}})
    assert found.shrunk == (Shrunk(FROZEN, 10, 4),)
    assert found.found
    assert "frozen test tests/test_calc.py::test_jitter observes 4 line(s), 10" in found.lines()[0]


def test_exactly_half_is_not_more_than_half() -> None:
    assert not drift({FROZEN: {SRC: lines(10)}}, {FROZEN: {SRC: lines(5)}}).found


def test_a_frozen_test_that_observes_nothing_now_shrank_to_zero() -> None:
    assert drift({FROZEN: {SRC: lines(3)}}, {}).shrunk == (Shrunk(FROZEN, 3, 0),)


def test_an_edit_of_the_frozen_tests_own_file_explains_the_shrink() -> None:
    found = drift({FROZEN: {SRC: lines(10)}}, {FROZEN: {SRC: lines(1)}}, changed={"tests/test_calc.py"})
    assert not found.found


def test_a_change_to_the_observed_source_does_not_explain_it() -> None:
    """The frozen test's file is the same; what it runs changed under it: its lost lines lose their
    frozen observer, which is exactly what a person should hear about."""
    found = drift({FROZEN: {SRC: lines(10)}}, {FROZEN: {SRC: lines(1)}}, changed={SRC})
    assert found.shrunk == (Shrunk(FROZEN, 10, 1),)


def test_live_tests_are_not_judged_by_shrinking() -> None:
    assert not drift({LIVE: {SRC: lines(10)}}, {LIVE: {SRC: lines(1)}}).found


def test_a_live_test_that_no_longer_runs_while_its_file_exists_disappeared() -> None:
    found = drift({}, {}, current_ran=(FROZEN,))
    assert found.disappeared == (LIVE,)
    assert "live test tests/test_calc.py::test_add ran for the map of aaaaaaaaaaaa" in found.lines()[0]


def test_a_deleted_test_file_is_a_visible_change_not_drift() -> None:
    assert not drift({}, {}, current_ran=(FROZEN,), existing=frozenset()).found


def test_a_frozen_test_that_no_longer_runs_is_not_a_disappeared_live_test() -> None:
    assert not drift({}, {}, current_ran=(LIVE,)).disappeared


def test_new_tests_are_not_drift() -> None:
    assert not drift({}, {}, previous_ran=(), current_ran=(FROZEN, LIVE)).found


def test_the_document_lists_both_kinds() -> None:
    found = drift({FROZEN: {SRC: lines(4)}}, {}, current_ran=(FROZEN,))
    assert found.to_document() == {
        "previous_sha": "a" * 40,
        "frozen_shrunk": [{"test": FROZEN, "before": 4, "after": 0}],
        "live_disappeared": [LIVE],
    }
