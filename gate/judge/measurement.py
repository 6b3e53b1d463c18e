"""Contract v3.3: code that reaches the measurement machinery is runner configuration.

A test (or any module it imports) that installs a tracer, talks to ``sys.monitoring`` or drives
coverage.py or the gate's own collector can change what the map records, so an added line of any
``.py`` file whose syntax tree references one of :data:`TRACER_APIS`, or imports one of the measuring
packages (:data:`MEASURING_PACKAGES` and the gate's own import package, unless the parent tree has a
top-level module of that name: then it is the project's own), is ``runner_config_changed``. Names are
resolved through the file's imports and aliases as for v3.1 (:mod:`oracle_gate.judge.pyrefs`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

from oracle_gate.judge.pyrefs import (
    GETATTR,
    Resolver,
    build_resolver,
    join,
    module_name,
    root_of,
    string_literal,
    under,
)
from oracle_gate.judge.pysource import AddedLines, nodes_on_added_lines, parse_tree

#: The gate's own import package: the top-level module its pytest plugin entry point names (pyproject
#: ``[project.entry-points.pytest11]``: ``oracle_gate.maps.inside.pytest_plugin``). Derived from this module's
#: own name so a rename of the package carries it along; a unit test ties it to the entry point.
GATE_IMPORT_PACKAGE = __name__.split(".", 1)[0]

TRACER_APIS = (
    "sys.monitoring",
    "sys.settrace",
    "sys.setprofile",
    "threading.settrace",
    "threading.setprofile",
    "threading.settrace_all_threads",
    "threading.setprofile_all_threads",
)
MEASURING_PACKAGES = ("coverage", "pytest_cov")
#: ``getattr`` with a computed name on these cannot be told from a tracer call.
TRACER_MODULES = frozenset({"sys", "threading"})


def measuring_packages(parent_has: Collection[str] = ()) -> tuple[str, ...]:
    """The packages whose import counts: the gate's own only when the parent has no module of
    that name (``parent_has``: the measured names the parent tree defines at top level)."""
    own = () if GATE_IMPORT_PACKAGE in parent_has else (GATE_IMPORT_PACKAGE,)
    return (*MEASURING_PACKAGES, *own)


def measurement_references(
    blob: bytes | None, added: Collection[int], packages: Collection[str]
) -> list[tuple[int, str]]:
    """(line, what) for each added line that reaches the measurement machinery (first per line);
    none when the file does not parse (it cannot run either)."""
    tree = parse_tree(blob)
    lines = AddedLines(added)
    if tree is None or not lines.numbers:
        return []
    return find_measurement(tree, build_resolver(tree), lines, packages)


def find_measurement(
    tree: ast.Module, resolver: Resolver, lines: AddedLines, packages: Collection[str]
) -> list[tuple[int, str]]:
    """:func:`measurement_references` on a parsed file."""
    found: dict[int, str] = {}
    for line, what in _references(tree, resolver, lines, frozenset(packages)):
        found.setdefault(line, what)
    return sorted(found.items())


def _references(
    tree: ast.Module, resolver: Resolver, lines: AddedLines, packages: frozenset[str]
) -> Iterator[tuple[int, str]]:
    for node, _statement in nodes_on_added_lines(tree, lines):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield from _imports(node, lines, packages)
        elif isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
            line = lines.of(node)
            what = _reference(node, resolver, packages) if line is not None else None
            if line is not None and what:
                yield line, what


def _imports(
    node: ast.Import | ast.ImportFrom, lines: AddedLines, packages: frozenset[str]
) -> Iterator[tuple[int, str]]:
    for alias in node.names:
        line = lines.of(alias)
        if line is None:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name]
        elif node.level:
            continue
        else:
            module = module_name(node)
            names = [module, join(module, alias.name)]
        what = next((_measuring(q, packages) for q in names if _measuring(q, packages)), None)
        if what:
            yield line, f"imports {what}"


def _measuring(qualified: str, packages: frozenset[str]) -> str | None:
    if root_of(qualified) in packages:
        return root_of(qualified)
    return next((api for api in TRACER_APIS if under(qualified, api)), None)


def _reference(node: ast.expr, resolver: Resolver, packages: frozenset[str]) -> str | None:
    for q in sorted(resolver.resolve(node)):
        api = next((a for a in TRACER_APIS if under(q, a)), None)
        if api:
            return api
    for q in sorted(resolver.bound(node)):
        if root_of(q) in packages:
            return root_of(q)
    if isinstance(node, ast.Call) and resolver.resolve(node.func) & GETATTR and len(node.args) >= 2:
        target = resolver.resolve(node.args[0])
        if string_literal(node.args[1]) is None and any(q in TRACER_MODULES for q in target):
            return "getattr on sys/threading with a computed name"
    return None
