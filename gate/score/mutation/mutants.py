"""The mutants of one touched line (SCORING.md 2.4, step 1): pure, the standard ``ast`` only.

The file's text is parsed once; a mutant is the same tree with one node changed, compiled (never
written back, so formatting does not matter). Operators are tried in the contract's order, and
within an operator the line's nodes in source order; the first ``n`` that compile are the line's
mutants. The order is deterministic, so the process that runs a mutant rebuilds it from (file
text, line, ordinal) alone (:func:`mutated_code`).

A line is *arid* (never mutated) when it is blank, a comment, part of a docstring, of an
``import``, a ``pass``, an annotation alone, or a logging call.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import CodeType

COMPARE_FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
ARITHMETIC_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.Mult,
}
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


@dataclass(frozen=True)
class Mutant:
    path: str  # repository path of the file
    line: int  # head line
    ordinal: int  # its place among the line's mutants (0: the first applicable)
    operator: str  # "compare", "boolean", "arithmetic", "constant", "return", "statement"
    before: str  # the changed node's text, as ast.unparse gives it
    after: str

    @property
    def text(self) -> str:
        return f"{self.before} → {self.after}"


@dataclass(frozen=True)
class LineMutants:
    line: int
    arid: bool
    mutants: tuple[Mutant, ...] = ()


# -- arid lines ----------------------------------------------------------------------------------


def arid_lines(tree: ast.Module, lines: list[str]) -> set[int]:
    """Lines never mutated: blank, comments, docstrings, imports, ``pass``, bare annotations,
    logging calls (every line of such a statement)."""
    arid = {n for n, text in enumerate(lines, 1) if not text.strip() or text.strip().startswith("#")}
    for node in ast.walk(tree):
        if _has_docstring(node):
            arid |= _span(node.body[0])  # type: ignore[attr-defined]
        if isinstance(node, ast.Import | ast.ImportFrom | ast.Pass) or _is_logging_call(node):
            arid |= _span(node)
        if isinstance(node, ast.AnnAssign) and node.value is None:
            arid |= _span(node)
    return arid


def _has_docstring(node: ast.AST) -> bool:
    scopes = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    return isinstance(node, scopes) and bool(node.body) and _is_string_expression(node.body[0])


def _span(node: ast.AST) -> set[int]:
    start = getattr(node, "lineno", 0)
    return set(range(start, (getattr(node, "end_lineno", None) or start) + 1))


def _is_string_expression(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_logging_call(node: ast.AST) -> bool:
    """``logging.info(...)``, ``log.warning(...)``, ``self.logger.debug(...)`` as a statement."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    func = node.value.func
    if not isinstance(func, ast.Attribute) or func.attr not in LOG_METHODS:
        return False
    owner = func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
    return "log" in name.lower()


# -- operators -----------------------------------------------------------------------------------

# An operator: (name, does it apply to this node?, the replacement node built from a copy).
Rewrite = Callable[[ast.AST], ast.AST | None]


def _compare(node: ast.AST) -> ast.AST | None:
    if not isinstance(node, ast.Compare):
        return None
    for index, op in enumerate(node.ops):
        flipped = COMPARE_FLIPS.get(type(op))
        if flipped is not None:
            new = copy.deepcopy(node)
            new.ops[index] = flipped()
            return new
    return None


def _boolean(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.BoolOp):
        new = copy.deepcopy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return new
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return copy.deepcopy(node.operand)
    return None


def _arithmetic(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.BinOp | ast.AugAssign):
        swapped = ARITHMETIC_SWAPS.get(type(node.op))
        if swapped is not None:
            new = copy.deepcopy(node)
            new.op = swapped()
            return new
    return None


def _constant(node: ast.AST) -> ast.AST | None:
    if not isinstance(node, ast.Constant):
        return None
    value = node.value
    if isinstance(value, bool):
        replaced: bool | int | str | None = not value
    elif isinstance(value, int):
        replaced = value + 1
    elif isinstance(value, str) and value:
        replaced = ""
    elif value is None:
        replaced = 0
    else:
        return None
    return ast.Constant(value=replaced)


def _return(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.Return) and node.value is not None:
        if isinstance(node.value, ast.Constant) and node.value.value is None:
            return None
        return ast.Return(value=ast.Constant(value=None))
    return None


def _statement(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.stmt) and not isinstance(node, ast.Pass):
        return ast.Pass()
    return None


OPERATORS: tuple[tuple[str, Rewrite], ...] = (
    ("compare", _compare),
    ("boolean", _boolean),
    ("arithmetic", _arithmetic),
    ("constant", _constant),
    ("return", _return),
    ("statement", _statement),
)


# -- finding and applying ------------------------------------------------------------------------


def _nodes_on(tree: ast.Module, line: int, skip: set[int]) -> list[tuple[int, ast.AST]]:
    """(walk index, node) of every node that starts on ``line``, in source order (outer first)."""
    found = [
        (index, node)
        for index, node in enumerate(ast.walk(tree))
        if getattr(node, "lineno", None) == line and id(node) not in skip
    ]
    return sorted(found, key=lambda pair: (getattr(pair[1], "col_offset", 0), pair[0]))


def _docstring_nodes(tree: ast.Module) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if _has_docstring(node):
            first = node.body[0]  # type: ignore[attr-defined]
            out |= {id(first), id(getattr(first, "value", None))}
    return out


def _candidates(tree: ast.Module, line: int) -> Iterator[tuple[str, int, ast.AST, ast.AST]]:
    """(operator, walk index, node, replacement) for every applicable rewrite on ``line``, in order."""
    nodes = _nodes_on(tree, line, _docstring_nodes(tree))
    for name, rewrite in OPERATORS:
        for index, node in nodes:
            replacement = rewrite(node)
            if replacement is not None:
                yield name, index, node, replacement


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST) -> None:
        self.target, self.replacement = target, replacement

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return ast.copy_location(self.replacement, node)
        result: ast.AST = self.generic_visit(node)
        return result


def _apply(tree: ast.Module, index: int, replacement: ast.AST) -> ast.Module:
    mutated = copy.deepcopy(tree)
    target = next(node for i, node in enumerate(ast.walk(mutated)) if i == index)
    _Replace(target, copy.deepcopy(replacement)).visit(mutated)  # the module itself is never the target
    return ast.fix_missing_locations(mutated)


def _compiles(tree: ast.Module, filename: str) -> CodeType | None:
    try:
        return compile(tree, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None


def _text(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, AttributeError, RecursionError):
        return "?"
    first = text.splitlines()[0] if text else text
    return first if len(first) <= 120 else first[:117] + "..."


def line_mutants(source: str, path: str, lines: list[int], per_line: int = 1) -> list[LineMutants]:
    """The mutants of each of ``lines`` (at most ``per_line`` each), or the line marked arid.
    A file that does not parse has no mutants (the runs have failed on it already)."""
    try:
        tree = ast.parse(source, path)
    except (SyntaxError, ValueError, RecursionError):
        return [LineMutants(line, arid=False) for line in lines]
    arid = arid_lines(tree, source.splitlines())
    out = []
    for line in lines:
        if line in arid:
            out.append(LineMutants(line, arid=True))
            continue
        made: list[Mutant] = []
        for ordinal, (name, index, node, replacement) in enumerate(_candidates(tree, line)):
            if len(made) >= per_line:
                break
            if _compiles(_apply(tree, index, replacement), path) is None:
                continue
            made.append(Mutant(path, line, ordinal, name, _text(node), _text(replacement)))
        out.append(LineMutants(line, arid=False, mutants=tuple(made)))
    return out


def mutated_code(source: str, filename: str, line: int, ordinal: int) -> CodeType:
    """The module code of one mutant, rebuilt from the file's text (the mutant's own process)."""
    tree = ast.parse(source, filename)
    for position, (_name, index, _node, replacement) in enumerate(_candidates(tree, line)):
        if position == ordinal:
            code = _compiles(_apply(tree, index, replacement), filename)
            if code is None:
                raise ValueError(f"{filename}:{line}: mutant {ordinal} does not compile")
            return code
    raise ValueError(f"{filename}:{line}: no mutant {ordinal}")
