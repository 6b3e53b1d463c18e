"""The repository's three sides (issue 27): built once by ``connect``, never changed after.

The old publisher had its check's name, ``external_id``, link and App assigned after construction, in
several modules; a job that forgot one posted under another's. Now a check's where is a
:class:`CheckTarget` passed with each post, and the sides refuse any assignment."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from oracle_gate.github.checks import Checks
from oracle_gate.github.client import make_client, open_repo
from oracle_gate.github.comments import Comments
from oracle_gate.github.pulls import Pulls
from oracle_gate.github.repository import GitHubRepo, connect

GATE = Path(__file__).resolve().parents[2] / "gate"
SIDES = (Pulls, Checks, Comments, GitHubRepo)
#: What the old publisher had assigned after construction, and every field of the sides.
ASSIGNED_BEFORE = frozenset({"check_name", "external_id", "details_url", "check_app", "max_writes"})
FIELDS = frozenset(f.name for side in SIDES for f in dataclasses.fields(side)) | ASSIGNED_BEFORE


def connected() -> GitHubRepo:
    """A connection that sends nothing (PyGithub's repository is lazy)."""
    return connect(open_repo(make_client("t", "http://127.0.0.1:9"), "octo/widgets"), check_app="gate")


@pytest.mark.parametrize("side", ["pulls", "checks", "comments", None])
@pytest.mark.parametrize("name", ["app", "repo", "writes", "external_id", "check_name", "details_url"])
def test_a_side_refuses_any_assignment_after_construction(side: str | None, name: str) -> None:
    github = connected()
    target = github if side is None else getattr(github, side)
    with pytest.raises(AttributeError):
        setattr(target, name, "changed")


def test_checks_and_comments_spend_one_write_budget_whose_limit_is_fixed() -> None:
    github = connected()
    assert github.checks.writes is github.comments.writes
    assert github.checks.app == "gate"
    with pytest.raises(AttributeError):
        github.checks.writes.limit = 10_000  # type: ignore[misc]
    with pytest.raises(AttributeError):
        github.checks.writes.spent = 0  # type: ignore[misc]


def setattr_name(call: ast.Call) -> object:
    """The attribute name a ``setattr(x, "name", …)`` call sets (None for any other call)."""
    is_setattr = isinstance(call.func, ast.Name) and call.func.id == "setattr"
    if is_setattr and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant):
        return call.args[1].value
    return None


def attribute_assignments(source: str) -> list[str]:
    """``x.name = …`` (also augmented, annotated, or ``setattr(x, "name", …)``) for a name of
    :data:`FIELDS` on anything but ``self``: how the old publisher was reconfigured."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and setattr_name(node) in FIELDS:
            found.append(f"line {node.lineno}: setattr(…, {setattr_name(node)!r})")
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.ctx, ast.Store)
                    and part.attr in FIELDS
                    and not (isinstance(part.value, ast.Name) and part.value.id == "self")
                ):
                    found.append(f"line {part.lineno}: {ast.unparse(part)}")
    return found


@pytest.mark.parametrize("path", sorted(GATE.rglob("*.py")), ids=lambda p: str(p.relative_to(GATE)))
def test_no_gate_module_assigns_attributes_on_the_sides(path: Path) -> None:
    assert attribute_assignments(path.read_text(encoding="utf-8")) == []


def test_the_assignment_rule_can_fail() -> None:
    probe = (
        "publisher.check_name = name\n"
        "github.checks.app = 'x'\n"
        "door.github.comments.comment_author += 'y'\n"
        "setattr(publisher, 'external_id', job)\n"
        "self.repo = repo\n"
        "state.head_sha = head\n"
    )
    assert attribute_assignments(probe) == [
        "line 1: publisher.check_name",
        "line 2: github.checks.app",
        "line 3: door.github.comments.comment_author",
        "line 4: setattr(…, 'external_id')",
    ]
