"""Contract v3.2: the rebinding that v2's rule 6 cannot name, found in one file's syntax tree.

Two kinds of site on an added line of a non-test ``.py`` file:

- a :class:`ModuleWrite`: ``M.NAME = ...``, ``del M.NAME``, ``setattr(M, "NAME", ...)`` or
  ``delattr(M, "NAME")`` where ``M`` is bound by an import (or ``importlib.import_module`` /
  ``__import__`` of a literal name): it touches that definition of the module's parent file;
- an :class:`OpaqueWrite`: what replaces code without naming it (a write through ``globals()``,
  ``vars()``, ``sys.modules``, ``builtins``, a module's ``__dict__``; ``setattr`` on those, or on a
  module with a computed name; an assignment to ``__code__``, ``__globals__``, ``__defaults__``,
  ``__kwdefaults__``, ``__dict__`` or ``__class__``; a call of ``exec`` or ``eval``): it touches the
  whole file's parent definitions and a human must look (``dynamic_rebinding``).

A write counts when its statement holds an added line (changing what is written is a new write); a
call when the call does. Pure: the verdict side (:mod:`oracle_gate.judge.rebinding`) resolves the modules.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from oracle_gate.judge.pyrefs import (
    GLOBALS,
    ITEM,
    Resolver,
    build_resolver,
    root_of,
    string_literal,
    under,
)
from oracle_gate.judge.pysource import AddedLines, nodes_on_added_lines, parse_tree

#: Attributes whose assignment swaps a function's code or an object's namespace or type.
CODE_ATTRIBUTES = frozenset(
    {"__code__", "__globals__", "__defaults__", "__kwdefaults__", "__dict__", "__class__"}
)
SETTERS = frozenset({"setattr", "builtins.setattr", "delattr", "builtins.delattr"})
OBJECT_SETTERS = frozenset(
    {"object.__setattr__", "object.__delattr__", "type.__setattr__", "type.__delattr__"}
)
EXEC_CALLS = frozenset({"exec", "eval", "builtins.exec", "builtins.eval"})
#: Mapping methods that write: called on a namespace, they rebind its names.
MUTATORS = frozenset(
    {
        "update",
        "setdefault",
        "pop",
        "popitem",
        "clear",
        "__setitem__",
        "__delitem__",
        "__setattr__",
        "__delattr__",
    }
)


@dataclass(frozen=True)
class ModuleWrite:
    """``M.NAME`` rebound on ``line``; ``module`` as named in the file (``.retry``: relative)."""

    line: int
    module: str
    name: str


@dataclass(frozen=True)
class OpaqueWrite:
    """Code replaced in a way the gate cannot name; with ``module`` set, only when that module is a
    parent file (``setattr(M, name, ...)``, ``M.__dict__[...]``: a module "as in rule 1")."""

    line: int
    what: str
    module: str | None = None


@dataclass(frozen=True)
class GlobalWrite:
    """A function's store to a name it declares ``global`` (README choice: rule 6 from inside a
    function): it rebinds the file's own module-level ``name``."""

    line: int
    name: str


@dataclass(frozen=True)
class Sites:
    writes: tuple[ModuleWrite, ...] = ()
    opaque: tuple[OpaqueWrite, ...] = ()
    globals: tuple[GlobalWrite, ...] = ()


def rebinding_sites(blob: bytes | None, added: frozenset[int]) -> Sites:
    """The rebinding sites on ``added`` lines of one head file (none when it does not parse: a file
    Python cannot compile rebinds nothing)."""
    tree = parse_tree(blob)
    lines = AddedLines(added)
    if tree is None or not lines.numbers:
        return Sites()
    return find_sites(tree, build_resolver(tree), lines)


def find_sites(tree: ast.Module, resolver: Resolver, lines: AddedLines) -> Sites:
    """:func:`rebinding_sites` on a parsed file."""
    writes: list[ModuleWrite] = []
    opaque: list[OpaqueWrite] = []
    rebound: list[GlobalWrite] = []
    for node, statement in nodes_on_added_lines(tree, lines):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            rebound += _global_writes(node, lines)
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            line = lines.of(statement)
            if line is not None:
                _target(node, line, resolver, writes, opaque)
        elif isinstance(node, ast.Call):
            line = lines.of(node)
            if line is not None:
                _call(node, line, resolver, writes, opaque)
    return Sites(tuple(dict.fromkeys(writes)), tuple(dict.fromkeys(opaque)), tuple(dict.fromkeys(rebound)))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _global_writes(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: AddedLines) -> list[GlobalWrite]:
    """Stores and deletes of the names ``function`` declares ``global``, on statements holding an
    added line (its own scope only: a nested function has its own declarations)."""
    own: list[tuple[ast.AST, ast.AST]] = []
    stack: list[tuple[ast.AST, ast.AST]] = [(s, s) for s in function.body]
    while stack:
        node, statement = stack.pop()
        own.append((node, statement))
        if not isinstance(node, _SCOPES):
            stack += [(c, c if isinstance(c, ast.stmt) else statement) for c in ast.iter_child_nodes(node)]
    declared = {name for node, _ in own if isinstance(node, ast.Global) for name in node.names}
    found = []
    for node, statement in own:
        if isinstance(node, ast.Name) and node.id in declared and isinstance(node.ctx, ast.Store | ast.Del):
            line = lines.of(statement)
            if line is not None:
                found.append(GlobalWrite(line, node.id))
    return found


def _target(
    node: ast.Attribute | ast.Subscript,
    line: int,
    resolver: Resolver,
    writes: list[ModuleWrite],
    opaque: list[OpaqueWrite],
) -> None:
    if isinstance(node, ast.Attribute) and node.attr in CODE_ATTRIBUTES and isinstance(node.ctx, ast.Store):
        opaque.append(OpaqueWrite(line, f"assigns {node.attr}"))
        return
    through = _namespaces(node.value, resolver, line)
    if isinstance(node, ast.Attribute):
        through += _namespaces(node, resolver, line)
    if through:
        opaque += through[:1] if through[0].module is None else through
        return
    if isinstance(node, ast.Attribute):
        writes += [ModuleWrite(line, module, node.attr) for module in imported_modules(node.value, resolver)]


def _call(
    node: ast.Call, line: int, resolver: Resolver, writes: list[ModuleWrite], opaque: list[OpaqueWrite]
) -> None:
    func = resolver.resolve(node.func)
    if func & EXEC_CALLS:
        opaque.append(OpaqueWrite(line, f"calls {sorted(func & EXEC_CALLS)[0].removeprefix('builtins.')}"))
        return
    if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
        opaque += _namespaces(node.func.value, resolver, line)
    args = node.args
    if func & OBJECT_SETTERS or (func & SETTERS):
        if args:
            name = args[1] if len(args) > 1 else None
            _setattr(args[0], name, line=line, resolver=resolver, writes=writes, opaque=opaque)
    elif isinstance(node.func, ast.Attribute) and node.func.attr in ("__setattr__", "__delattr__"):
        name = args[0] if args else None
        _setattr(node.func.value, name, line=line, resolver=resolver, writes=writes, opaque=opaque)


def _setattr(
    target: ast.expr,
    name_node: ast.expr | None,
    *,
    line: int,
    resolver: Resolver,
    writes: list[ModuleWrite],
    opaque: list[OpaqueWrite],
) -> None:
    """``setattr(T, NAME, ...)`` / ``delattr(T, NAME)`` (and their method spellings)."""
    through = _namespaces(target, resolver, line)
    if through:
        opaque += through
        return
    name = string_literal(name_node)
    if name in CODE_ATTRIBUTES:
        opaque.append(OpaqueWrite(line, f"sets {name}"))
        return
    for module in imported_modules(target, resolver):
        if name is None:
            opaque.append(OpaqueWrite(line, f"setattr on module {module} with a computed name", module))
        else:
            writes.append(ModuleWrite(line, module, name))


def _namespaces(node: ast.expr, resolver: Resolver, line: int) -> list[OpaqueWrite]:
    """Why ``node`` is a namespace a write through which rebinds unseen names (empty: it is not).
    A ``T.__dict__`` counts only when ``T`` is a parent module (the entry carries ``module``)."""
    found: list[OpaqueWrite] = []
    for q in sorted(resolver.resolve(node)):
        if q.startswith(GLOBALS):
            return [OpaqueWrite(line, "writes through globals()/vars()")]
        if under(q, "sys.modules") or q.startswith("sys.modules" + ITEM):
            return [OpaqueWrite(line, "writes through sys.modules")]
        if root_of(q) == "builtins":
            return [OpaqueWrite(line, "writes through builtins")]
        if q.endswith(".__dict__") or (".__dict__" + ITEM) in q:
            base = q.split(".__dict__", 1)[0]
            if "[" not in base and "<" not in base:
                found.append(OpaqueWrite(line, f"writes through {base}.__dict__", base))
    return found


def imported_modules(node: ast.expr, resolver: Resolver) -> list[str]:
    """The module names ``node`` may be, when its root is bound by the file (an import, or an
    assignment from one) or is an import call; a name the file never binds is not a module."""
    return sorted(_imported_names(node, resolver))


def _imported_names(node: ast.expr, resolver: Resolver) -> frozenset[str]:
    return resolver.bound(node)
