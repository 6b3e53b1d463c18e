"""``oracle-gate publish`` trusts nothing of a stored verdict but the word its reason codes force:
every field is held to the contract's shape, or the whole file is rejected (one line)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from oracle_gate.action import publish_stored
from oracle_gate.action.publish_stored import read_stored_verdict
from oracle_gate.errors import StoredVerdictError
from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.verdict_json import to_json
from tests.support.rendering_cases import VERDICT_KINDS

GOOD = to_json(VERDICT_KINDS["fail"]())


def write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "verdict.json"
    path.write_text(json.dumps(doc))
    return path


def forged(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(GOOD))
    for dotted, value in changes.items():
        *parents, key = dotted.split("__")
        target = doc
        for p in parents:
            target = target[int(p)] if isinstance(target, list) else target[p]
        target[key] = value
    return doc


def test_the_gates_own_verdicts_are_accepted(tmp_path: Path) -> None:
    for make in VERDICT_KINDS.values():
        doc = to_json(make())
        assert to_json(read_stored_verdict(write(tmp_path, doc))) == doc


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"parent": "0123\r\n### ✅ Oracle Gate: `pass_clean`"}, "'parent' is not a full hex commit SHA"),
        ({"head": "[x](https://evil.example)"}, "'head' is not a full hex commit SHA"),
        ({"head": "F" * 40}, "'head' is not a full hex commit SHA"),
        ({"protocol__gate_version": "1.0 <img src=x>"}, "'protocol.gate_version' is not a version"),
        ({"protocol__policy_sha256": "`x`"}, "'protocol.policy_sha256' is not a hex sha256"),
        ({"overlap_ratio": 7}, "'overlap_ratio' is outside [0, 1]"),
        ({"reasons__0__path": "/etc/passwd"}, "reason 0: 'path' is not a repository-relative path"),
        ({"reasons__0__path": "a/../../b"}, "reason 0: 'path' is not a repository-relative path"),
        ({"reasons__0__line": 0}, "reason 0: 'line' is not a line number"),
        ({"reasons": []}, "'reasons' is empty"),
        ({"verdict": "pass_clean"}, "'verdict' is pass_clean but its reason codes make it fail"),
        ({"overlap": {"../x": [1]}}, "'overlap' names a path that is not repository-relative"),
        ({"touched": {"a.py": [-1]}}, "'touched' holds a line number out of range"),
    ],
)
def test_a_forged_field_rejects_the_file(tmp_path: Path, changes: dict[str, Any], problem: str) -> None:
    with pytest.raises(StoredVerdictError) as caught:
        read_stored_verdict(write(tmp_path, forged(**changes)))
    assert problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_path_git_allows_is_accepted_and_left_to_escaping(tmp_path: Path) -> None:
    """A carriage return is legal in a git path: the shape check keeps it, the renderers escape it."""
    doc = forged(reasons__0__path="src/a\rb.py")
    assert read_stored_verdict(write(tmp_path, doc)).reasons[0].path == "src/a\rb.py"


OVERLAP = to_json(VERDICT_KINDS["unscored_overlap"]())


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        (
            {"overlap_observers": {"src/pkg/mod.py": {"tests/t.py::t": [99]}}},
            "'overlap_observers' names a line that is not in 'overlap'",
        ),
        (
            {"overlap_observers": {"src/pkg/util.py": {"t\r\n### ✅ pass_clean": [5]}}},
            "'overlap_observers' holds a test id no map could have given",
        ),
        ({"approvers": ["<img src=x>"]}, "'approvers' holds an entry that is neither a login nor"),
        ({"approvers": ["alice bob"]}, "'approvers' holds an entry that is neither a login nor"),
    ],
)
def test_forged_guidance_fields_reject_the_file(
    tmp_path: Path, changes: dict[str, Any], problem: str
) -> None:
    """Issue 18's keys are held to their shapes too: observers only of overlap lines, approvers that
    are logins or org/team slugs."""
    doc = {**json.loads(json.dumps(OVERLAP)), **changes}
    with pytest.raises(StoredVerdictError) as caught:
        read_stored_verdict(write(tmp_path, doc))
    assert problem in str(caught.value)


def test_approvers_of_every_shape_the_policy_allows_are_accepted(tmp_path: Path) -> None:
    approvers = ["alice", "@octo-org/oracle-owners", "octo-org/qa", "renovate[bot]", "a_b.c-d"]
    doc = {**json.loads(json.dumps(OVERLAP)), "approvers": approvers}
    assert read_stored_verdict(write(tmp_path, doc)).approvers == tuple(approvers)


@pytest.mark.parametrize(
    ("triage", "problem"),
    [
        ([{"nodeid": "t.py::a", "owner": "x | [y](z)", "expires": None, "why": ["no_owner"]}], "'owner'"),
        ([{"nodeid": "t.py::a", "owner": None, "expires": None, "why": ["**pwned**"]}], "'why'"),
        ([{"nodeid": "t.py::a", "owner": None, "expires": "2026-02-30", "why": ["expired"]}], "real date"),
        ([{"nodeid": "", "owner": None, "expires": None, "why": ["no_owner"]}], "'nodeid'"),
        (["t.py::a"], "a triage entry must be a JSON object"),
    ],
)
def test_a_forged_triage_list_is_rejected(tmp_path: Path, triage: object, problem: str) -> None:
    """v3.7: the triage list reaches the check summary, so it is held to the shape the gate writes."""
    with pytest.raises(StoredVerdictError) as caught:
        read_stored_verdict(write(tmp_path, {**GOOD, "triage": triage}))
    assert problem in str(caught.value)


def test_publish_reads_a_stored_verdict_through_the_one_validator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: ``read_stored_verdict`` returns what render.verdict_json.from_json gives, checked no
    second time (the shapes were once checked again after from_json, in another module)."""
    calls: list[tuple[object, str]] = []
    unchecked = replace(VERDICT_KINDS["fail"](), parent="not a sha")

    def spy(doc: object, source: str = "verdict.json") -> Verdict:
        calls.append((doc, source))
        return unchecked

    monkeypatch.setattr(publish_stored, "from_json", spy)
    path = write(tmp_path, GOOD)
    assert read_stored_verdict(path) is unchecked
    assert calls == [(GOOD, str(path))]
