"""The head file of a changed ``.py`` file as the v3 syntax rules read it: parsed within the gate's
bound, and walked only where the change added lines (the cost follows the change, not the file)."""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from oracle_gate.judge.pyscope import MAX_PARSE_BYTES


def parse_tree(blob: bytes | None) -> ast.Module | None:
    """The syntax tree of a blob; ``None`` when missing, over the parse limit, or not Python."""
    if blob is None or len(blob) > MAX_PARSE_BYTES:
        return None
    try:
        return ast.parse(blob)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class AddedLines:
    """A file's added line numbers, asked "which added line lies in lines ``start``..``end``?"."""

    def __init__(self, numbers: Iterable[int]) -> None:
        self.numbers = sorted(set(numbers))

    def first_in(self, start: int, end: int | None) -> int | None:
        i = bisect_left(self.numbers, start)
        if i < len(self.numbers) and self.numbers[i] <= (end if end is not None else start):
            return self.numbers[i]
        return None

    def of(self, node: ast.AST) -> int | None:
        """The first added line within ``node``'s own lines (None: the node is not on an added line)."""
        start = getattr(node, "lineno", None)
        return None if start is None else self.first_in(start, getattr(node, "end_lineno", None))


def nodes_on_added_lines(tree: ast.Module, lines: AddedLines) -> Iterator[tuple[ast.AST, ast.AST]]:
    """Every node inside a statement that holds an added line, with its innermost statement.

    A statement whose lines hold no added line is skipped whole, so the cost follows the change,
    not the file; the caller still checks each node's own lines. Iterative: no recursion limit.
    """
    stack: list[tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, ast.stmt) and lines.of(node) is None:
            continue
        yield node, statement
        for child in ast.iter_child_nodes(node):
            stack.append((child, child if isinstance(child, ast.stmt) else statement))
