"""Issue 27: every verdict is made by ``evaluate`` and none is edited after.

A front door that lacks an input (no trusted map, approvals unreadable) or stopped at a limit
(memory, wall clock, changed bytes) tells the core so in the evidence
(:class:`~oracle_gate.judge.verdict.Evidence`, :class:`~oracle_gate.judge.verdict.NotRead`,
:class:`~oracle_gate.judge.verdict.StoredNotTrusted`); it never builds a ``Verdict`` itself nor
replaces a field of one. Read with ``ast`` over every module of ``gate/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GATE = Path(__file__).resolve().parents[2] / "gate"
#: Where a ``Verdict`` may be constructed: the core's evaluate, and the reader of a stored verdict.
MAKERS = {"judge/verdict.py", "render/verdict_json.py"}
#: Fields only a verdict has (``approvals_seen`` is evidence too): a ``replace`` setting one edits a
#: finished verdict.
VERDICT_FIELDS = frozenset({"verdict", "reasons", "overlap", "overlap_ratio", "approvers", "edited_only"})


def modules() -> list[Path]:
    return sorted(p for p in GATE.rglob("*.py") if "__pycache__" not in p.parts)


def called_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def verdict_edits(source: str, relative: str) -> list[str]:
    """``Verdict(...)`` outside :data:`MAKERS`, and ``replace(x, ...)`` of a verdict: by its first
    argument's name (``verdict``, ``stored``…) or by a field only a verdict has."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = called_name(node)
        if name == "Verdict" and relative not in MAKERS:
            found.append(f"{relative}:{node.lineno}: builds a Verdict")
        if name == "replace" and node.args:
            first = ast.unparse(node.args[0]).lower()
            fields = {k.arg for k in node.keywords if k.arg}
            if "verdict" in first or fields & VERDICT_FIELDS:
                found.append(f"{relative}:{node.lineno}: replaces a field of {ast.unparse(node.args[0])}")
    return found


def test_no_module_builds_or_edits_a_verdict_outside_evaluate() -> None:
    edits = [
        e for p in modules() for e in verdict_edits(p.read_text(encoding="utf-8"), str(p.relative_to(GATE)))
    ]
    assert edits == []


@pytest.mark.parametrize(
    "source",
    [
        "v = Verdict(Outcome.FAIL, (), {}, {}, 0.0, 'p', 'h', protocol)",
        "v = dataclasses.replace(verdict, verdict=Outcome.UNSCORED)",
        "v = replace(made, reasons=())",
        "v = replace(stored_verdict, head='h')",
    ],
)
def test_the_rule_sees_each_spelling(source: str) -> None:
    assert verdict_edits(source, "action/judging.py")


def test_the_rule_leaves_other_replacements_alone() -> None:
    assert verdict_edits("e = replace(evidence, today=None)\nr = replace(runner, argv=[])", "x.py") == []
