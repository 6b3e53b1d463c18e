"""Contract v3.1: skip and exit markers read from the syntax tree, in every changed ``.py`` file.

The v2 text rule (:mod:`oracle_gate.judge.skip_markers`) reads a line; it cannot read
``raise pytest.skip.Exception(...)``, ``from _pytest.outcomes import skip as x; x(...)`` or
``getattr(pytest, "sk" + "ip")(...)``. Here the head file is parsed and every reference on an added
line (a name, an attribute, a call, a subscript, an import) is resolved through the file's own
imports and assignments (:mod:`oracle_gate.judge.pyrefs`) and compared with the listed skip/exit APIs. What
the gate cannot resolve counts too, as the contract says: any import of ``_pytest``; ``getattr`` or
``__dict__`` on pytest, ``_pytest`` or unittest with a computed name; ``__import__`` and
``importlib.import_module`` of those modules by literal name. A file that does not parse is left to
the text rule.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

from oracle_gate.judge.pyrefs import (
    GETATTR,
    IMPORT_FUNCTIONS,
    IMPORT_MODULE,
    VARS_CALLS,
    Resolver,
    build_resolver,
    is_getattr_method,
    join,
    module_name,
    root_of,
    string_literal,
    under,
)
from oracle_gate.judge.pysource import AddedLines, nodes_on_added_lines, parse_tree

#: The pytest APIs the contract lists (each with what lies below it: ``pytest.skip.Exception``).
PYTEST_APIS = (
    "pytest.skip",
    "pytest.xfail",
    "pytest.exit",
    "pytest.importorskip",
    "pytest.mark.skipif",
    "pytest.mark.skip",
    "pytest.mark.xfail",
)
#: Every name imported from these is a listed API (they re-export the same objects).
OUTCOME_MODULES = ("_pytest.outcomes", "_pytest.skipping")
UNITTEST_MODULES = ("unittest.case", "unittest")
#: ``getattr``/``__dict__``/``__import__`` on these (or names from them) cannot be resolved.
OPAQUE_ROOTS = frozenset({"pytest", "_pytest", "unittest"})
#: Module objects that must only be used as ``module.attribute``: put in a container, returned from a
#: helper or passed as an argument, the module reaches a later ``.skip(...)`` the resolver cannot
#: follow (issue 30, 8: an early signal; the scoring run's outcomes are the backstop).
MODULE_VALUES = frozenset({"pytest", "_pytest", "unittest", "unittest.case", *OUTCOME_MODULES})
#: ``from M import *`` brings the listed APIs of M into the file.
STAR_SOURCES = frozenset({"pytest", "unittest", "unittest.case", *OUTCOME_MODULES})


def listed_api(qualified: str) -> str | None:
    """The listed skip/exit API ``qualified`` is (or lies below), if any."""
    for api in PYTEST_APIS:
        if under(qualified, api):
            return api
    if any(under(qualified, module) for module in OUTCOME_MODULES):
        return qualified
    for module in UNITTEST_MODULES:
        head = (
            qualified.removeprefix(module + ".").split(".", 1)[0]
            if qualified.startswith(module + ".")
            else ""
        )
        if head in ("SkipTest", "expectedFailure") or head.startswith("skip"):
            return f"{module}.{head}"
    if "skipTest" in qualified.split(".")[1:]:
        return "TestCase.skipTest"
    return None


def syntax_markers(blob: bytes | None, added: Collection[int]) -> list[tuple[int, str]] | None:
    """(line, what) for each added line holding a reference to a skip/exit API, first one per line;
    ``None`` when the file does not parse (the text rule alone judges it)."""
    tree = parse_tree(blob)
    if tree is None:
        return None
    lines = AddedLines(added)
    if not lines.numbers:
        return []
    return find_markers(tree, build_resolver(tree), lines)


def find_markers(tree: ast.Module, resolver: Resolver, lines: AddedLines) -> list[tuple[int, str]]:
    """:func:`syntax_markers` on a parsed file (oracle_gate.judge.python_facts shares one parse per file)."""
    found: dict[int, str] = {}
    for line, what in _references(tree, resolver, lines):
        found.setdefault(line, what)
    return sorted(found.items())


def _references(tree: ast.Module, resolver: Resolver, lines: AddedLines) -> Iterator[tuple[int, str]]:
    named: set[int] = set()  # ``X.__dict__`` / ``vars(X)`` read with a literal key: resolvable
    attributed: set[int] = set()  # the ``X`` of ``X.attr`` or of ``getattr(X, "attr")``: resolvable
    for node, statement in nodes_on_added_lines(tree, lines):  # parents come before children
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield from _imports(node, lines)
            continue
        if node is statement:
            attributed.update(_aliased(statement))
        if not isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
            continue
        if isinstance(node, ast.Subscript) and string_literal(node.slice) is not None:
            named.add(id(node.value))
        attributed.update(_attribute_bases(node, resolver))
        line = lines.of(node)
        if line is None:
            continue
        what = _listed(node, resolver) or (None if id(node) in named else _opaque(node, resolver))
        what = what or (None if id(node) in attributed else _module_as_value(node, resolver))
        if what:
            yield line, what


def _attribute_bases(node: ast.expr, resolver: Resolver) -> Iterator[int]:
    """The expressions ``node`` uses in ways the resolver follows: ``X.attr``, ``X[...]``,
    ``getattr(X, "attr")`` / ``hasattr``, ``vars(X)`` (whose use :func:`_opaque` judges)."""
    if isinstance(node, ast.Attribute | ast.Subscript):
        yield id(node.value)
    elif isinstance(node, ast.Call) and node.args:
        func = resolver.resolve(node.func)
        if isinstance(node.func, ast.Name) and node.func.id == "hasattr":
            func = func | GETATTR
        literal = len(node.args) >= 2 and string_literal(node.args[1]) is not None
        if func & VARS_CALLS or (literal and func & GETATTR):
            yield id(node.args[0])


def _aliased(statement: ast.AST) -> Iterator[int]:
    """``sk = pytest``: a plain alias, which the resolver follows."""
    if not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.Name):
        return
    if all(isinstance(t, ast.Name) for t in statement.targets):
        yield id(statement.value)


def _module_as_value(node: ast.expr, resolver: Resolver) -> str | None:
    """A name bound to pytest, _pytest or unittest used other than as ``module.attribute`` (put in a
    container, returned, passed): what is taken from it later cannot be resolved."""
    if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load):
        return None
    resolved = resolver.resolve(node)
    modules = sorted(q for q in resolved if q in MODULE_VALUES or under(q, "_pytest"))
    if not modules or len(modules) < len(resolved):
        # Also bound to something taken from the module (``[pytest.param(...)]`` resolves to both
        # ``pytest.param`` and ``pytest``): data built from its attributes, not the module hidden. A
        # bare module put into such a value on an added line is a finding on that line itself.
        return None
    module = modules[0]
    return f"the {module} module used as a value (in a container, returned or passed), not as {module}.name"


def _imports(node: ast.Import | ast.ImportFrom, lines: AddedLines) -> Iterator[tuple[int, str]]:
    """``import _pytest...``, ``from _pytest... import``, and imports of listed APIs."""
    for alias in node.names:
        line = lines.of(alias) if hasattr(alias, "lineno") else lines.of(node)
        if line is None:
            continue
        if isinstance(node, ast.Import):
            if root_of(alias.name) == "_pytest":
                yield line, f"import {alias.name}"
            continue
        module = module_name(node)
        if root_of(module) == "_pytest":
            yield line, f"from {module} import {alias.name}"
        elif alias.name == "*" and module in STAR_SOURCES:
            yield line, f"from {module} import *"
        else:
            api = listed_api(join(module, alias.name)) if node.level == 0 else None
            if api:
                yield line, f"{api} (from {module} import {alias.name})"


def _listed(node: ast.expr, resolver: Resolver) -> str | None:
    if isinstance(node, ast.Attribute) and node.attr == "skipTest":
        return "TestCase.skipTest"
    for qualified in sorted(resolver.resolve(node)):
        api = listed_api(qualified)
        if api:
            return api
    return None


def _opaque(node: ast.expr, resolver: Resolver) -> str | None:
    """The references the contract counts because the gate cannot resolve them."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__" and _on_opaque(node.value, resolver):
        return "__dict__ of pytest/_pytest/unittest"
    return _opaque_call(node, resolver) if isinstance(node, ast.Call) else None


def _opaque_call(node: ast.Call, resolver: Resolver) -> str | None:
    func = resolver.resolve(node.func)
    literal = string_literal(node.args[0]) if node.args else None
    if func & (IMPORT_FUNCTIONS | IMPORT_MODULE) and literal and root_of(literal) in OPAQUE_ROOTS:
        return f"imports {literal!r} by name"
    if func & GETATTR and len(node.args) >= 2 and _on_opaque(node.args[0], resolver):
        name = string_literal(node.args[1])
        return None if name else "getattr on pytest/_pytest/unittest with a computed name"
    method = node.func if isinstance(node.func, ast.Attribute) and is_getattr_method(node.func) else None
    if method is not None and not literal and _on_opaque(method.value, resolver):
        return "__getattr__ on pytest/_pytest/unittest with a computed name"
    if func & VARS_CALLS and node.args and _on_opaque(node.args[0], resolver):
        return "vars() of pytest/_pytest/unittest"
    return None


def _on_opaque(node: ast.expr, resolver: Resolver) -> bool:
    return any(root_of(q) in OPAQUE_ROOTS for q in resolver.resolve(node))
