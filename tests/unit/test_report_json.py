"""The verdict's JSON (the contract's Output section) and text rendering, from plain values."""

from __future__ import annotations

import json
from typing import Any

import pytest

from oracle_gate.errors import StoredVerdictError
from oracle_gate.exit_status import ExitStatus
from oracle_gate.judge.verdict import Outcome, Provenance, Reason, ReasonCode, Verdict
from oracle_gate.render.text import to_text
from oracle_gate.render.verdict_json import from_json, to_json

CONTRACT_KEYS = [
    "verdict",
    "reasons",
    "overlap",
    "touched",
    "edited_only",
    "overlap_ratio",
    "parent",
    "head",
    "protocol",
]
PROTOCOL_KEYS = {"policy_sha256", "freeze_sha256", "lock_sha256", "coverage_sha256", "gate_version"}


def verdict(**kw: object) -> Verdict:
    values: dict[str, Any] = {
        "verdict": "unscored",
        "reasons": (Reason(ReasonCode.FREEZE_OVERLAP, "src/r.py: 2 touched line(s)", path="src/r.py"),),
        "overlap": {"src/r.py": [41, 40], "empty.py": []},
        "touched": {"src/r.py": [60, 40, 41], "b.py": [], "a.py": [2, 1]},
        "overlap_ratio": 0.4,
        "parent": "a" * 40,
        "head": "b" * 40,
        "protocol": Provenance("1" * 64, "2" * 64, None, "4" * 64, "9.9"),
    }
    values.update(kw)
    return Verdict(**values)


def test_json_has_exactly_the_contract_keys() -> None:
    """The top-level keys are the contract's, and the protocol carries the contract's digests."""
    doc = to_json(verdict())
    assert list(doc) == CONTRACT_KEYS
    assert set(doc["protocol"]) >= PROTOCOL_KEYS
    assert doc["protocol"]["policy_sha256"] == "1" * 64
    assert doc["protocol"]["lock_sha256"] is None


def test_json_sorts_lines_and_leaves_out_empty_files() -> None:
    """Line lists are sorted ascending; files with no line are left out; paths are sorted."""
    doc = to_json(verdict())
    assert doc["overlap"] == {"src/r.py": [40, 41]}
    assert doc["touched"] == {"a.py": [1, 2], "src/r.py": [40, 41, 60]}
    assert list(doc["touched"]) == ["a.py", "src/r.py"]


def test_json_reasons_carry_code_and_detail() -> None:
    """Every reason has its code and detail (file reasons add path and line)."""
    doc = to_json(verdict(reasons=(Reason(ReasonCode.SKIP_MARKER_ADDED, "t.py:3: adds '@skip'", "t.py", 3),)))
    assert doc["reasons"] == [
        {"code": "skip_marker_added", "detail": "t.py:3: adds '@skip'", "path": "t.py", "line": 3}
    ]


def test_json_round_trips() -> None:
    """A verdict written as JSON and read back renders the same JSON."""
    doc = to_json(verdict())
    assert to_json(from_json(json.loads(json.dumps(doc)))) == doc


def test_json_edited_only_is_sorted_and_round_trips() -> None:
    """v2: ``edited_only`` maps paths to sorted lines, drops empty files, and reads back."""
    v = verdict(
        reasons=(Reason(ReasonCode.OBSERVER_EDITED, "src/r.py: 2 touched line(s)", "src/r.py", 40),),
        edited_only={"src/r.py": [41, 40], "empty.py": []},
    )
    doc = to_json(v)
    assert doc["edited_only"] == {"src/r.py": [40, 41]}
    assert doc["reasons"][0] == {
        "code": "observer_edited",
        "detail": "src/r.py: 2 touched line(s)",
        "path": "src/r.py",
        "line": 40,
    }
    back = from_json(json.loads(json.dumps(doc)))
    assert back.edited_only == {"src/r.py": [40, 41]}
    assert to_json(back) == doc


def test_a_stored_edited_only_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(StoredVerdictError, match="'edited_only' must map each path"):
        from_json({"verdict": "unscored", "edited_only": {"a.py": ["1"]}})


def test_reading_json_gives_the_closed_vocabularies() -> None:
    """The verdict word and reason codes read back as enum members, not bare strings."""
    v = from_json(json.loads(json.dumps(to_json(verdict()))))
    assert type(v.verdict) is Outcome
    assert v.exit_status is ExitStatus.UNSCORED
    assert [type(r.code) for r in v.reasons] == [ReasonCode]


def test_a_malformed_document_names_its_source() -> None:
    with pytest.raises(
        StoredVerdictError, match=r"^stored/v\.json is not a verdict\.json: unknown reason code"
    ):
        from_json({"verdict": "fail", "reasons": [{"code": "x"}]}, "stored/v.json")


def test_text_names_verdict_reasons_and_overlap() -> None:
    """The text report names the verdict, each reason and the overlap ranges."""
    text = to_text(verdict(overlap={"src/r.py": [40, 41, 43]}))
    assert text.startswith("oracle-gate: unscored (freeze_overlap)\n")
    assert "  - freeze_overlap: src/r.py: 2 touched line(s)" in text
    assert "    src/r.py: 40-41, 43" in text
