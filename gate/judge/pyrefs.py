"""What a name in one Python file refers to, read from its syntax tree (contract v3.1 to v3.3).

Contract v3 judges *references*, not text: ``sk = pytest.skip`` makes a later ``sk(...)`` a skip,
``import sys as s`` makes ``s.settrace`` the tracer. :func:`build_resolver` reads one file's imports
and the assignments that bind them (``import a.b as m``, ``from a import b as c``, ``x = m.y``,
``x = getattr(m, "y")``, ``m = importlib.import_module("a.b")``, ``m = __import__("a.b")``, ...) and
:meth:`Resolver.resolve` gives an expression's *qualified names*: dotted names such as
``pytest.skip`` or ``sys.modules``, ``.retry`` for a relative import (one dot per level),
:data:`GLOBALS` for the module's own namespace. A name can hold several (the file is read without
flow: every binding anywhere counts), so a reference resolves to a set. Over-approximating is the
point: a name that *might* be the skip API counts, as a reviewer would count it.

Pure and bounded: only :mod:`ast` values; chains deeper than :data:`MAX_CHAIN` and candidate sets
larger than :data:`MAX_CANDIDATES` are cut (what a cut hides is still seen by the text rule).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

#: The module's own namespace (``globals()``, ``vars()``), as a qualified name.
GLOBALS = "<globals>"
#: Suffix marking "an item of" a namespace (``sys.modules[...]``, ``globals()[...]``).
ITEM = "[]"
MAX_CHAIN = 150  # below Python's recursion limit with room to spare, above the parser's nesting limit
MAX_CANDIDATES = 64
MAX_SEGMENTS = 24
MAX_ROUNDS = 12
_REFERENCES = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)

IMPORT_FUNCTIONS = frozenset({"__import__", "builtins.__import__", "importlib.__import__"})
IMPORT_MODULE = frozenset({"importlib.import_module"})
GETATTR = frozenset({"getattr", "builtins.getattr"})
GLOBALS_CALLS = frozenset({"globals", "builtins.globals"})
VARS_CALLS = frozenset({"vars", "builtins.vars"})
#: A name the file never binds means itself only when it is a builtin or one of these modules (a
#: local or parameter called ``coverage`` is not the package; ``sys`` unimported is still ``sys``).
SELF_NAMED = frozenset(
    {"__import__", "getattr", "setattr", "delattr", "globals", "vars", "exec", "eval", "object", "type"}
    | {"pytest", "_pytest", "unittest", "sys", "threading", "builtins", "importlib"}
)
#: Roots whose names are kept when an assignment's value is not itself a reference (``x = [m][0]``).
TRACKED_ROOTS = frozenset(
    {"pytest", "_pytest", "unittest", "sys", "threading", "builtins", "importlib", "coverage", "pytest_cov"}
)


def root_of(qualified: str) -> str:
    return qualified.split(".", 1)[0]


def under(qualified: str, prefix: str) -> bool:
    """``qualified`` is ``prefix`` or a dotted name below it (``pytest.skip.Exception``, ``pytest.skip``)."""
    return qualified == prefix or qualified.startswith(prefix + ".")


def tracked_name(qualified: str) -> bool:
    """A name worth following through containers and attributes: a v3 root, or the module's namespace."""
    return root_of(qualified) in TRACKED_ROOTS or qualified.startswith(GLOBALS)


def is_getattr_method(func: ast.expr) -> bool:
    """``X.__getattr__`` / ``X.__getattribute__``: getattr spelled as a method."""
    return isinstance(func, ast.Attribute) and func.attr in ("__getattr__", "__getattribute__")


def string_literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def module_name(node: ast.ImportFrom) -> str:
    """``from ..a import b`` -> ``..a`` (one dot per level: relative to the file's directory)."""
    return "." * node.level + (node.module or "")


def join(module: str, name: str) -> str:
    return module + name if module.endswith(".") or not module else f"{module}.{name}"


@dataclass
class Resolver:
    """One file's bindings: local name -> qualified names, star imports, attribute names."""

    names: dict[str, set[str]] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    #: ``self.sk = pytest.skip`` / ``class A: sk = pytest.skip``: ``anything.sk`` may be it.
    attributes: dict[str, set[str]] = field(default_factory=dict)
    #: Answers per node once the bindings are final (a chain's links are asked again and again).
    cache: dict[int, frozenset[str]] | None = None
    _inner: dict[int, list[ast.expr]] = field(default_factory=dict, repr=False)

    def resolve(self, node: ast.expr, depth: int = 0) -> frozenset[str]:
        """The qualified names ``node`` may refer to (empty: none the gate can name)."""
        if self.cache is None:
            return self._resolve(node, depth)
        found = self.cache.get(id(node))
        if found is None:
            found = self.cache[id(node)] = self._resolve(node, depth)
        return found

    def _resolve(self, node: ast.expr, depth: int) -> frozenset[str]:
        if depth > MAX_CHAIN:
            return frozenset()
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            found = {_dot(q, node.attr) for q in self.resolve(node.value, depth + 1)}
            found |= self.attributes.get(node.attr, set())
            return _bounded(q for q in found if q)
        if isinstance(node, ast.Call):
            return self._call(node, depth) or self._namespace_call(node, depth)
        if isinstance(node, ast.Subscript):
            return self._item(node, depth)
        return self.resolve(node.value, depth + 1) if isinstance(node, ast.NamedExpr) else frozenset()

    def _name(self, name: str) -> frozenset[str]:
        if name in self.names:
            return frozenset(self.names[name])
        if name == "__builtins__":
            return frozenset({"builtins"})
        own = [name] if name in SELF_NAMED else []
        return _bounded([*own, *(join(m, name) for m in self.stars)])

    def _call(self, node: ast.Call, depth: int) -> frozenset[str]:
        """Calls that return a module or an attribute: ``__import__``, ``import_module``, ``getattr``."""
        func = self.resolve(node.func, depth + 1)
        literal = string_literal(node.args[0]) if node.args else None
        name = string_literal(node.args[1]) if len(node.args) >= 2 else None
        if func & IMPORT_FUNCTIONS and literal:
            # As in Python: the top package, or with a (non-empty) fromlist the module itself.
            return frozenset({literal if _has_fromlist(node) else root_of(literal)})
        if func & IMPORT_MODULE and literal:
            return frozenset({_absolute(literal, name)})
        if func & GETATTR and name:
            return _bounded(_dot(q, name) for q in self.resolve(node.args[0], depth + 1))
        if is_getattr_method(node.func) and isinstance(node.func, ast.Attribute) and literal:
            return _bounded(_dot(q, literal) for q in self.resolve(node.func.value, depth + 1))
        return frozenset()

    def _namespace_call(self, node: ast.Call, depth: int) -> frozenset[str]:
        """``globals()``, ``vars()`` (the module's namespace) and ``vars(X)`` (``X.__dict__``)."""
        func = self.resolve(node.func, depth + 1)
        if func & GLOBALS_CALLS or (func & VARS_CALLS and not node.args):
            return frozenset({GLOBALS})
        if func & VARS_CALLS and node.args:
            return _bounded(_dot(q, "__dict__") for q in self.resolve(node.args[0], depth + 1))
        return frozenset()

    def _item(self, node: ast.Subscript, depth: int) -> frozenset[str]:
        key = string_literal(node.slice)
        found: set[str] = set()
        for q in self.resolve(node.value, depth + 1):
            if q == "sys.modules":
                found.add(q + ITEM)
                if key:
                    found.add(key)
            elif q == GLOBALS:
                found.add(q + ITEM)
                if key:
                    found |= self._name(key)
            elif q.endswith(".__dict__"):
                found.add(q + ITEM)
                if key:
                    found.add(_dot(q.removesuffix(".__dict__"), key))
        return _bounded(q for q in found if q)

    def bound(self, node: ast.expr) -> frozenset[str]:
        """:meth:`resolve`, but only when the expression's root is a name the file binds (an import,
        or an assignment from a reference) or an import call: a parameter or local that happens to
        be called ``coverage`` is not the module."""
        root = node
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if isinstance(root, ast.Call):
            if not self.resolve(root.func) & (IMPORT_FUNCTIONS | IMPORT_MODULE):
                return frozenset()
        elif not (isinstance(root, ast.Name) and root.id in self.names):
            return frozenset()
        return frozenset(q for q in self.resolve(node) if "[" not in q and "<" not in q)

    def value_names(self, value: ast.expr) -> frozenset[str]:
        """What a name bound to ``value`` may refer to: the value's own reference, or else every
        tracked reference inside it (``x = [pytest.skip][0]`` binds ``x`` to ``pytest.skip``)."""
        direct = self.resolve(value)
        if direct:
            return direct
        inner = self._inner.get(id(value))
        if inner is None:  # walked once, asked again each round of the fixed point
            inner = self._inner[id(value)] = [n for n in ast.walk(value) if isinstance(n, _REFERENCES)]
        return _bounded(q for node in inner for q in self.resolve(node) if tracked_name(q))


def _has_fromlist(call: ast.Call) -> bool:
    """``__import__(name, globals, locals, fromlist)``: a fromlist that may be non-empty."""
    given = (
        call.args[3]
        if len(call.args) > 3
        else next((k.value for k in call.keywords if k.arg == "fromlist"), None)
    )
    return given is not None and not (isinstance(given, ast.List | ast.Tuple) and not given.elts)


def _dot(qualified: str, attr: str) -> str:
    if qualified.count(".") >= MAX_SEGMENTS or not attr:
        return ""
    return qualified + attr if qualified.endswith(".") else f"{qualified}.{attr}"


def _absolute(name: str, package: str | None) -> str:
    """``importlib.import_module(".x", "a.b")`` -> ``a.b.x`` (as :func:`importlib.util.resolve_name`)."""
    if not name.startswith(".") or not package:
        return name
    level = len(name) - len(name.lstrip("."))
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    return join(base, name[level:]) if name[level:] else base


def _bounded(names: Iterable[str]) -> frozenset[str]:
    found: set[str] = set()
    for q in names:
        if len(found) >= MAX_CANDIDATES:
            break
        found.add(q)
    return frozenset(found)


def build_resolver(tree: ast.Module) -> Resolver:
    """Every import and reference-binding assignment of the file, any scope, resolved to a fixed point."""
    resolver = Resolver()
    bindings: list[tuple[ast.expr, ast.expr, bool]] = []  # (target, value, in a class body)
    for node in _binding_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or root_of(alias.name)
                _add(resolver.names, local, {alias.name if alias.asname else local})
        elif isinstance(node, ast.ImportFrom):
            _bind_from(resolver, node)
        else:
            bindings += _value_bindings(node)
    for _ in range(MAX_ROUNDS):
        # A fresh cache per round: answers may grow within a round, and the next round asks again;
        # the fixed point is a round in which nothing changed.
        resolver.cache = {}
        changed = False
        for target, value, in_class in bindings:
            changed |= _bind(resolver, target, value, in_class)
        if not changed:
            break
    resolver.cache = {}
    return resolver


_BINDING_KINDS = (
    ast.Import,
    ast.ImportFrom,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
    ast.NamedExpr,
    ast.For,
    ast.AsyncFor,
    ast.comprehension,
    ast.withitem,
    ast.arguments,
)
_LITERALS = (ast.List, ast.Tuple, ast.Set)


def _binding_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes that may bind a name, without walking into constants or lists of constants (a data
    table of a million numbers binds nothing)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _BINDING_KINDS):
            yield node
        for child in ast.iter_child_nodes(node):
            if type(child) is ast.Constant:
                continue
            if isinstance(child, _LITERALS) and all(type(e) is ast.Constant for e in child.elts):
                continue
            stack.append(child)


def _bind_from(resolver: Resolver, node: ast.ImportFrom) -> None:
    module = module_name(node)
    for alias in node.names:
        if alias.name == "*":
            resolver.stars.append(module)
        else:
            _add(resolver.names, alias.asname or alias.name, {join(module, alias.name)})


def _value_bindings(node: ast.AST) -> Iterator[tuple[ast.expr, ast.expr, bool]]:
    """(target, value, in a class body) for each statement or expression that binds a value."""
    if isinstance(node, ast.ClassDef):
        # ``class MySkip(pytest.skip.Exception)``: the class is what its tracked bases are (a list
        # value binds only the tracked references inside it).
        yield ast.Name(id=node.name, ctx=ast.Store()), ast.List(elts=list(node.bases), ctx=ast.Load()), False
        for stmt in node.body:
            if isinstance(stmt, ast.Assign):
                yield from ((t, stmt.value, True) for t in stmt.targets)
    if isinstance(node, ast.Assign):
        yield from ((t, node.value, False) for t in node.targets)
    elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
        yield node.target, node.value, False
    elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        yield node.target, node.iter, False
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield node.optional_vars, node.context_expr, False
    elif isinstance(node, ast.arguments):
        positional = [*node.posonlyargs, *node.args]
        pairs = list(zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True))
        pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
        yield from ((ast.Name(id=a.arg, ctx=ast.Store()), d, False) for a, d in pairs)


def _bind(resolver: Resolver, target: ast.expr, value: ast.expr, in_class: bool) -> bool:
    pairs = _pairs(target, value)
    if pairs:
        changed_pairs = [_bind(resolver, t, v, in_class) for t, v in pairs]  # every pair, not the first
        return any(changed_pairs)
    names = resolver.value_names(value)
    if not names:
        return False
    tracked = {q for q in names if tracked_name(q)}
    changed = False
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            changed |= _add(resolver.names, node.id, names)
            if in_class and tracked:
                changed |= _add(resolver.attributes, node.id, tracked)
        elif isinstance(node, ast.Attribute) and tracked:
            changed |= _add(resolver.attributes, node.attr, tracked)
        elif isinstance(node, ast.Tuple | ast.List):
            stack.extend(node.elts)
        elif isinstance(node, ast.Starred):
            stack.append(node.value)
    return changed


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """``a, b = x, y`` -> [(a, x), (b, y)]; empty when the two sides do not line up."""
    tuples = ast.Tuple | ast.List
    if isinstance(target, tuples) and isinstance(value, tuples) and len(target.elts) == len(value.elts):
        return list(zip(target.elts, value.elts, strict=True))
    return []


def _add(table: dict[str, set[str]], key: str, names: set[str] | frozenset[str]) -> bool:
    held = table.setdefault(key, set())
    before = len(held)
    for q in names:
        if len(held) >= MAX_CANDIDATES:
            break
        held.add(q)
    return len(held) != before
