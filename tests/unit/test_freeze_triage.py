"""Contract v3.7: a freeze entry's owner and expiry are validated, never change the verdict, and
entries past expiry or without an owner are listed as needing triage."""

from __future__ import annotations

import dataclasses
import json
from datetime import date

import pytest

from oracle_gate.judge.freeze import parse_freeze
from oracle_gate.judge.triage import needs_triage
from oracle_gate.judge.verdict import evaluate
from oracle_gate.render.check import check_summary
from oracle_gate.render.verdict_json import to_json
from tests.support.factories import change_set, evidence, lines, modified, observed

NODE = "tests/t.py::test_x"


def manifest(**extra: object) -> bytes:
    entry = {"nodeid": NODE, "reason": "flaky", "bound_sha": "abcd", **extra}
    return json.dumps({"schema": 1, "frozen": [entry]}).encode()


@pytest.mark.parametrize(
    "owner", ["alice", "a", "Alice-Bob", "al_ice", "a.b", "0day", "dependabot[bot]", "x" * 100, "_x"]
)
def test_good_owners(owner: str) -> None:
    freeze = parse_freeze(manifest(owner=owner))
    assert freeze.problems == ()
    assert freeze.entries[0].owner == owner


@pytest.mark.parametrize(
    "owner",
    [
        "",
        "-alice",
        ".alice",
        "al ice",
        "al/ice",
        "@alice",
        "x" * 101,
        "alice\n",
        "ålice",
        3,
        None,
        ["a"],
        "[bot]",
    ],
)
def test_malformed_owner_is_a_problem(owner: object) -> None:
    freeze = parse_freeze(manifest(owner=owner))
    assert len(freeze.problems) == 1
    assert "'owner' must be a login" in str(freeze.problems[0])
    assert freeze.problems[0].source == "freeze.json"
    assert freeze.entries[0].nodeid == NODE  # still freezes its tests


@pytest.mark.parametrize(
    "expires", ["2026-13-01", "2026-02-30", "26-01-01", "20260101", "2026-1-1", "", 20260101, None]
)
def test_malformed_expires_is_a_problem(expires: object) -> None:
    freeze = parse_freeze(manifest(expires=expires))
    assert [p.message for p in freeze.problems] == [
        f"freeze entry 0 ({NODE!r}): 'expires' must be a date YYYY-MM-DD, got {expires!r:.60}"
    ]


def test_good_expires() -> None:
    freeze = parse_freeze(manifest(expires="2026-02-28", owner="alice"))
    assert freeze.problems == ()
    assert freeze.entries[0].expires == date(2026, 2, 28)


def test_triage_lists_expired_and_ownerless_entries() -> None:
    doc = {
        "schema": 1,
        "frozen": [
            {
                "nodeid": "t.py::a",
                "reason": "r",
                "bound_sha": "abcd",
                "owner": "alice",
                "expires": "2026-01-01",
            },
            {
                "nodeid": "t.py::b",
                "reason": "r",
                "bound_sha": "abcd",
                "owner": "bob",
                "expires": "2026-01-02",
            },
            {"nodeid": "t.py::c", "reason": "r", "bound_sha": "abcd", "expires": "2025-01-01"},
            {"nodeid": "t.py::d", "reason": "r", "bound_sha": "abcd", "owner": "dan"},
        ],
    }
    freeze = parse_freeze(json.dumps(doc).encode())
    found = needs_triage(freeze, date(2026, 1, 2))
    assert [(t.nodeid, t.why) for t in found] == [
        ("t.py::a", ("expired",)),
        ("t.py::c", ("expired", "no_owner")),
    ]
    assert [t.nodeid for t in needs_triage(freeze, None)] == ["t.py::c"]  # no date: owner only


def test_expired_entry_never_changes_the_verdict() -> None:
    """An expired entry keeps freezing: the overlap is still unscored, with triage listed."""
    freeze = parse_freeze(manifest(owner="alice", expires="2020-01-01"))
    changes = change_set(modified("src/m.py", lines("x = 1"), lines("x = 2")))
    ev = evidence(changes, freeze=freeze, coverage=observed({"src/m.py": {1: {NODE}}}))
    v = evaluate(dataclasses.replace(ev, today=date(2026, 12, 1)))
    assert v.verdict == "unscored"
    assert [str(c) for c in v.codes] == ["freeze_overlap"]
    doc = to_json(v)
    assert doc["triage"] == [{"nodeid": NODE, "owner": "alice", "expires": "2020-01-01", "why": ["expired"]}]
    summary = check_summary(v)
    assert "Freeze entries needing triage" in summary
    assert NODE in summary


def test_no_triage_key_when_nothing_needs_triage() -> None:
    freeze = parse_freeze(manifest(owner="alice", expires="2030-01-01"))
    changes = change_set(modified("src/m.py", lines("x = 1"), lines("x = 2")))
    v = evaluate(dataclasses.replace(evidence(changes, freeze=freeze), today=date(2026, 1, 1)))
    assert "triage" not in to_json(v)
    assert "needing triage" not in check_summary(v)
