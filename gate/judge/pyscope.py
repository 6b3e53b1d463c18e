"""Python structure of a touched file, as pure values: function spans and module-level names.

Contract v2 reads Python with the standard library's :mod:`ast` (no I/O: it is given the blobs the
read side already has) for three rules: scope inheritance (a touched line no test observes takes the
observers of the innermost function around it), rebinding (a new module-level binding of a name the
parent defines with ``def``/``class`` touches that whole definition) and edited observers (a test's
own function span). Parsing is bounded: a blob over :data:`MAX_PARSE_BYTES`, a syntax error, a null
byte or a recursion too deep for the parser gives ``None`` (no inheritance, no rebinding), never a
crash. The tree is walked with an explicit stack, so a deep tree cannot exhaust the recursion limit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

#: Larger Python files are not parsed (no inheritance for them): the cost stays bounded per file.
MAX_PARSE_BYTES = 2 * 1024 * 1024

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: Compound statements that do not open a scope: what they hold is still module level.
_MODULE_LEVEL_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)


@dataclass(frozen=True)
class FunctionSpan:
    """A ``def`` or ``async def``: first decorator line to last line, and where it sits.

    ``classes`` names the classes around it when only classes are (``None`` when a function encloses
    it): a test id ``f.py::A::test_x`` names the function ``test_x`` with ``classes == ("A",)``.
    """

    start: int
    end: int
    name: str
    classes: tuple[str, ...] | None

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and self.start <= line <= self.end


@dataclass(frozen=True)
class Binding:
    """A module-level statement (lines ``start``..``end``, decorators included) and the names it binds."""

    start: int
    end: int
    names: frozenset[str]


@dataclass(frozen=True)
class PythonFile:
    """What the v2 rules need of one parsed file."""

    functions: tuple[FunctionSpan, ...]
    definitions: dict[str, tuple[tuple[int, int], ...]]  # module-level def/class name -> its spans
    bindings: tuple[Binding, ...]

    def innermost_function(self, line: int) -> FunctionSpan | None:
        """The smallest function span holding ``line`` (spans nest, so the smallest is innermost)."""
        return self._innermost.get(line)

    @cached_property
    def _innermost(self) -> dict[int, FunctionSpan]:
        """Line -> innermost span, painted largest first so inner spans overwrite outer ones: one
        pass over the spans' lines instead of a scan of every function per asked line."""
        by_line: dict[int, FunctionSpan] = {}
        for span in sorted(self.functions, key=lambda f: f.start - f.end):
            for line in range(span.start, span.end + 1):
                by_line[line] = span
        return by_line

    def test_functions(self, nodeid: str) -> list[FunctionSpan]:
        """The spans of the function a test id names: its last ``::`` part without ``[...]``,
        inside exactly the classes the parts between name."""
        parts = nodeid.split("::")[1:]
        if not parts:
            return []
        name, classes = parts[-1].split("[", 1)[0], tuple(parts[:-1])
        return [f for f in self.functions if f.name == name and f.classes == classes]


def parse_python(blob: bytes | None) -> PythonFile | None:
    """Parse a blob; ``None`` when it is missing, too large or not parseable Python."""
    if blob is None or len(blob) > MAX_PARSE_BYTES:
        return None
    try:
        tree = ast.parse(blob)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        return PythonFile(
            functions=tuple(_function_spans(tree)),
            definitions=_definitions(tree),
            bindings=tuple(_bindings(tree)),
        )
    except RecursionError:  # pragma: no cover - the walks are iterative; belt and braces
        return None


def _span(node: ast.stmt) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def _function_spans(tree: ast.Module) -> Iterator[FunctionSpan]:
    stack: list[tuple[ast.AST, tuple[str, ...] | None]] = [(tree, ())]
    while stack:
        node, classes = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                start, end = _span(child)
                yield FunctionSpan(start, end, child.name, classes)
                stack.append((child, None))
            elif isinstance(child, ast.ClassDef):
                stack.append((child, None if classes is None else (*classes, child.name)))
            else:
                stack.append((child, classes))


def _module_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement at module scope, including those inside ``if``/``try``/``with``/loops."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, _MODULE_LEVEL_BLOCKS):
            inner: list[ast.stmt] = [*stmt.body, *getattr(stmt, "orelse", [])]
            if isinstance(stmt, ast.Try):
                inner += [s for h in stmt.handlers for s in h.body] + stmt.finalbody
            stack.extend(reversed(inner))


def _definitions(tree: ast.Module) -> dict[str, tuple[tuple[int, int], ...]]:
    found: dict[str, list[tuple[int, int]]] = {}
    for stmt in tree.body:
        if isinstance(stmt, _DEFINITIONS):
            found.setdefault(stmt.name, []).append(_span(stmt))
    return {name: tuple(spans) for name, spans in found.items()}


def _bindings(tree: ast.Module) -> Iterator[Binding]:
    for stmt in _module_statements(tree):
        names = frozenset(_bound_names(stmt))
        if names:
            start, end = _span(stmt)
            if isinstance(stmt, _MODULE_LEVEL_BLOCKS):
                end = start  # a block's own binding is its header; its body is walked on its own
            yield Binding(start, end, names)


def _bound_names(stmt: ast.stmt) -> Iterator[str]:
    if isinstance(stmt, _DEFINITIONS):
        yield stmt.name
    elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield from _target_names(target)
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        yield from _target_names(stmt.target)
    elif isinstance(stmt, ast.Import | ast.ImportFrom):
        for alias in stmt.names:
            if alias.name != "*":
                yield alias.asname or alias.name.split(".", 1)[0]
    elif isinstance(stmt, ast.For | ast.AsyncFor):
        yield from _target_names(stmt.target)
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        for item in stmt.items:
            if item.optional_vars is not None:
                yield from _target_names(item.optional_vars)


def _target_names(target: ast.expr) -> Iterator[str]:
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Tuple | ast.List):
            stack.extend(node.elts)
        elif isinstance(node, ast.Starred):
            stack.append(node.value)


def rebound_lines(parent: PythonFile, head: PythonFile, added: Iterable[int]) -> set[int]:
    """Parent lines touched by rebinding: every line of a parent module-level ``def``/``class`` whose
    name a *new* head module-level statement (all its lines added) binds again."""
    added_lines = set(added)
    touched: set[int] = set()
    for binding in head.bindings:
        if not all(n in added_lines for n in range(binding.start, binding.end + 1)):
            continue
        for name in binding.names:
            for start, end in parent.definitions.get(name, ()):
                touched.update(range(start, end + 1))
    return touched
