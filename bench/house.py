"""Print the shape of the house: rooms, their size, the import cycles, and who reads ``check``.

``python bench/house.py`` from the repository root. Imports are read with ``ast`` (lazy imports
inside functions included), as ``tests/unit/test_import_rules.py`` reads them, so two runs on two
commits show a move of rooms as figures: modules and lines per room, every cycle between modules,
and which rooms import the read side (``oracle_gate.check``) that only the judgement should use.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

GATE = Path(__file__).resolve().parents[1] / "gate"
PACKAGE = "oracle_gate"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(GATE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(GATE.rglob("*.py")) if "__pycache__" not in p.parts}


def imported(path: Path, name: str, known: set[str]) -> set[str]:
    """The package modules ``path`` imports (``from pkg import mod`` counts as ``pkg.mod``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m in known and m != name}


def room(name: str, path: Path) -> str:
    """A module's room: its package under ``gate/`` (``oracle_gate.bot.jobs``), or the top-level module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return package if package != PACKAGE else name


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    mods = modules()
    known = set(mods)
    graph = {name: imported(path, name, known) for name, path in mods.items()}
    # a package's __init__ importing its own submodules is not a cycle of design
    graph = {
        n: {m for m in deps if not n.startswith(m + ".") and not m.startswith(n + ".")}
        for n, deps in graph.items()
    }
    sizes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, path in mods.items():
        sizes[room(name, path)][0] += 1
        sizes[room(name, path)][1] += len(path.read_text(encoding="utf-8").splitlines())
    print(f"{'room':32} {'modules':>7} {'lines':>7}")
    for r, (count, lines) in sorted(sizes.items()):
        print(f"{r:32} {count:>7} {lines:>7}")
    print(f"{'total':32} {sum(c for c, _ in sizes.values()):>7} {sum(n for _, n in sizes.values()):>7}")
    print("\nimport cycles between modules:")
    found = cycles(graph)
    for component in found:
        print("  " + " <-> ".join(component))
    if not found:
        print("  none")
    print("\nmodules importing oracle_gate.check:")
    for name in sorted(n for n, deps in graph.items() if "oracle_gate.check" in deps):
        print(f"  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
