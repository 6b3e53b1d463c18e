"""Contract v3.8 rule 3: a ``setup.py`` edit that only bumps the version is not runner configuration.

A release commit that changes ``version="1.2.3"`` to ``version="1.2.4"`` cannot alter how the
oracle runs, yet ``setup.py`` is a runner file by name. Both sides are parsed; every string
constant that is the value of a ``version=`` keyword argument (any call) or of a module-level
assignment to ``version``, ``__version__`` or ``VERSION`` is replaced by one placeholder; the edit
is a version bump when the two trees are then equal. Positions, comments and formatting are not
part of a syntax tree, so a bump that also re-wraps a line still qualifies; anything else (another
constant, a computed version, a side that does not parse) is an edit as before.
"""

from __future__ import annotations

import ast

from oracle_gate.judge.pysource import parse_tree

VERSION_NAMES = frozenset({"version", "__version__", "VERSION"})
_PLACEHOLDER = "\0version\0"


def only_version_bump(before: bytes | None, after: bytes | None) -> bool:
    """Whether two versions of a ``setup.py`` differ at most in their version strings."""
    old, new = parse_tree(before), parse_tree(after)
    if old is None or new is None:
        return False
    try:
        return ast.dump(_without_versions(old)) == ast.dump(_without_versions(new))
    except RecursionError:  # pragma: no cover - a tree the parser built deeper than dump can walk
        return False


def _without_versions(tree: ast.Module) -> ast.Module:
    """The tree with its version strings replaced (in place: the tree is this module's own parse)."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and _is_version_assignment(stmt):
            stmt.value = ast.Constant(_PLACEHOLDER)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "version" and _is_string(node.value):
            node.value = ast.Constant(_PLACEHOLDER)
    return tree


def _is_version_assignment(stmt: ast.Assign | ast.AnnAssign) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    named = all(isinstance(t, ast.Name) and t.id in VERSION_NAMES for t in targets)
    return named and _is_string(stmt.value)


def _is_string(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
