"""The freeze manifest (schema 1): parsing and nodeid prefix matching, on plain values."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_gate.judge.freeze import check_bindings, parse_freeze
from oracle_gate.judge.problems import Problem
from tests.support.factories import freeze_of


def manifest(*entries: object, schema: object = 1) -> bytes:
    return json.dumps({"schema": schema, "frozen": list(entries)}).encode()


def entry(
    nodeid: object = "tests/t.py::test_x", reason: object = "flaky", bound_sha: object = "abcd"
) -> dict[str, object]:
    return {"nodeid": nodeid, "reason": reason, "bound_sha": bound_sha}


@pytest.mark.parametrize(
    ("nodeid", "test_id", "frozen"),
    [
        ("tests/t.py::test_x", "tests/t.py::test_x", True),  # exact
        ("tests/t.py::test_x", "tests/t.py::test_x[1]", True),  # [ boundary
        ("tests/t.py::test_x", "tests/t.py::test_x[a-b::c]", True),
        ("tests/t.py::TestA", "tests/t.py::TestA::test_y", True),  # :: boundary
        ("tests/t.py::TestA", "tests/t.py::TestA::test_y[2]", True),
        ("tests/t.py", "tests/t.py::test_x", True),  # a whole module
        ("tests/t.py::test_x", "tests/t.py::test_xy", False),  # not a boundary
        ("tests/t.py::test_x", "tests/t.py::test_x_slow", False),
        ("tests/t.py::Test", "tests/t.py::TestA::test_y", False),
        ("tests/t", "tests/t.py::test_x", False),
        ("tests/", "tests/t.py::test_x", False),
        ("tests/t.py::test_x[1]", "tests/t.py::test_x[10]", False),
        ("tests/t.py::test_x[1]", "tests/t.py::test_x", False),  # a longer id never freezes a shorter
        ("tests/t.py::test_x", "other/tests/t.py::test_x", False),  # a prefix, not a suffix
    ],
)
def test_prefix_rule_examples(nodeid: str, test_id: str, frozen: bool) -> None:
    """A nodeid freezes a test id exactly or as a prefix ending at a ``::`` or ``[`` boundary."""
    assert freeze_of(nodeid).is_frozen(test_id) is frozen


def test_frozen_by_names_the_manifest_entry() -> None:
    """frozen_by answers which manifest nodeid froze a test id."""
    freeze = freeze_of("tests/t.py", "tests/t.py::TestA")
    assert freeze.frozen_by("tests/t.py::TestA::test_y") in {"tests/t.py", "tests/t.py::TestA"}
    assert freeze.frozen_by("tests/u.py::test") is None


def reference_frozen(nodeids: list[str], test_id: str) -> bool:
    return any(
        test_id == n or (test_id.startswith(n) and test_id[len(n) :].startswith(("::", "["))) for n in nodeids
    )


IDS = st.text(st.sampled_from(["a", "b", ":", "[", "]", "/"]), min_size=1, max_size=8)


@settings(max_examples=500)
@given(st.lists(IDS, min_size=1, max_size=4), IDS, st.sampled_from(["", "::", "[", "::a", "[1]", "a", ":"]))
def test_prefix_rule_matches_reference(nodeids: list[str], test_id: str, tail: str) -> None:
    """For random ids, freezing agrees with the contract's rule written out directly."""
    candidate = nodeids[0] + tail if tail else test_id
    assert freeze_of(*nodeids).is_frozen(candidate) == reference_frozen(nodeids, candidate)


def test_missing_manifest_freezes_nothing() -> None:
    """No freeze file: nothing frozen and no problem."""
    freeze = parse_freeze(None)
    assert freeze.entries == ()
    assert freeze.problems == ()


def test_well_formed_manifest_has_no_problem() -> None:
    """A schema-1 manifest with complete entries parses cleanly."""
    freeze = parse_freeze(manifest(entry(), entry("tests/t.py::TestA", bound_sha="A1B2C3D4E5")))
    assert [e.nodeid for e in freeze.entries] == ["tests/t.py::test_x", "tests/t.py::TestA"]
    assert freeze.problems == ()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[]", "expected a JSON object"),
        (json.dumps({"schema": 2, "frozen": []}).encode(), "'schema' must be 1"),
        (json.dumps({"frozen": []}).encode(), "'schema' must be 1"),
        (json.dumps({"schema": 1}).encode(), "'frozen' must be a list"),
        (json.dumps({"schema": 1, "frozen": {}}).encode(), "'frozen' must be a list"),
        (manifest("tests/t.py::x"), "expected an object"),
        (manifest(entry(nodeid=None)), "'nodeid' missing"),
        (manifest(entry(nodeid="  ")), "'nodeid' missing"),
        (manifest(entry(reason=None)), "'reason' missing or empty"),
        (manifest(entry(reason="")), "'reason' missing or empty"),
        (manifest(entry(bound_sha=None)), "'bound_sha' missing"),
        (manifest(entry(bound_sha=1234)), "'bound_sha' missing or not a string"),
        (manifest(entry(bound_sha="main")), "is not a hex commit id"),  # a ref name is not allowed
        (manifest(entry(bound_sha="abc")), "is not a hex commit id"),  # fewer than 4 digits
        (manifest(entry(bound_sha="HEAD~1")), "is not a hex commit id"),
    ],
)
def test_malformed_manifest_is_a_problem_naming_the_file(raw: bytes, problem: str) -> None:
    """Each malformation yields a one-line problem that names the file and what is wrong."""
    freeze = parse_freeze(raw, "oracle/freeze.json")
    assert len(freeze.problems) == 1
    (found,) = freeze.problems
    assert found.source == "oracle/freeze.json"
    text = str(found)
    assert text.startswith("oracle/freeze.json: ")
    assert problem in text
    assert "\n" not in text


def test_entry_with_a_problem_still_freezes() -> None:
    """An entry without a reason or with a bad bound_sha still freezes its tests."""
    freeze = parse_freeze(manifest(entry("tests/t.py::a", reason=""), entry("tests/t.py::b", bound_sha="zz")))
    assert len(freeze.problems) == 2
    assert freeze.is_frozen("tests/t.py::a[1]")
    assert freeze.is_frozen("tests/t.py::b")


def test_wrong_schema_still_reads_entries() -> None:
    """A wrong schema number is a problem, but the entries it lists are still frozen."""
    freeze = parse_freeze(manifest(entry("tests/t.py::a"), schema=2))
    assert freeze.problems
    assert freeze.is_frozen("tests/t.py::a")


def test_a_binding_problem_names_the_manifest_and_keeps_its_text() -> None:
    """An entry bound to a commit outside the parent's history is a problem of the manifest's file,
    worded (as always) by the entry's label alone."""
    raw = manifest(entry("tests/t.py::a", bound_sha="ABCD1234"))
    freeze = check_bindings(parse_freeze(raw, "oracle/freeze.json"), lambda sha: f"{sha} is elsewhere")
    (problem,) = freeze.problems
    assert problem.source == "oracle/freeze.json"
    assert str(problem) == "freeze entry 0 ('tests/t.py::a'): bound_sha ABCD1234 abcd1234 is elsewhere"


def test_a_problem_renders_as_source_then_message() -> None:
    assert str(Problem("freeze.json", "entry 2: 'reason' missing or empty")) == (
        "freeze.json: entry 2: 'reason' missing or empty"
    )
    assert str(Problem(None, "no coverage map of the parent was given")) == (
        "no coverage map of the parent was given"
    )
