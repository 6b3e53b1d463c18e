"""No import cycle among the modules of ``gate/maps/`` (issue 27: ``build`` <-> ``command`` and
``collector`` <-> ``trace_collector`` were two).

A cycle works only as long as one side imports the other lazily or late, and it ties modules that the
three parts of ``maps`` (the ``map`` command, :mod:`oracle_gate.maps.inside`, :mod:`oracle_gate.maps.reader`)
keep apart. The graph is read with ``ast``: every ``import`` and ``from ... import`` of a module, at
module level or inside a function (lazy), except under ``if TYPE_CHECKING:`` (never run). ``from
package import module`` is an edge to the module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

GATE = Path(__file__).resolve().parents[2] / "gate"
MAPS = "oracle_gate.maps"


def module_name(path: Path) -> str:
    parts = ["oracle_gate", *path.relative_to(GATE).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, but not under ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        if _type_checking_only(node):
            stack.extend(getattr(node, "orelse", []))
            continue
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(source: str, module: str, is_module: bool, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that ``source`` (the module ``module``; ``is_module``: not a
    package's ``__init__``) imports."""
    names = set(known)
    package = module.rsplit(".", 1)[0] if is_module else module
    found: set[str] = set()
    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            candidates = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in candidates:
            if name in names:
                found.add(name)
                if isinstance(node, ast.ImportFrom):
                    break  # ``from pkg import mod``: the module, not the package as well
    found.discard(module)
    return found


def gate_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in sorted(GATE.rglob("*.py"))}
    return {
        name: imported_modules(path.read_text(), name, path.name != "__init__.py", paths)
        for name, path in paths.items()
    }


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def one_cycle(graph: Mapping[str, Iterable[str]], component: list[str]) -> list[str]:
    """A closed path through ``component`` from its first module, for the message: a -> b -> a."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:  # breadth-first back to the start
        nxt = []
        for node in frontier:
            for child in sorted(set(graph.get(node, ())) & members):
                if child == start:
                    path = [child]
                    back = node
                    while back != start:
                        path.append(back)
                        back = parents[back]
                    return [start, *reversed(path[1:]), start]
                if child not in seen:
                    seen.add(child)
                    parents[child] = node
                    nxt.append(child)
        frontier = nxt
    return component  # pragma: no cover - a strongly connected component always closes


def cycles_through(graph: Mapping[str, Iterable[str]], prefix: str) -> list[str]:
    """Each cycle with a module under ``prefix``, as ``a -> b -> a``."""
    return [
        " -> ".join(one_cycle(graph, component))
        for component in strongly_connected(graph)
        if any(m == prefix or m.startswith(prefix + ".") for m in component)
    ]


def test_no_import_cycle_touches_gate_maps() -> None:
    cycles = cycles_through(gate_graph(), MAPS)
    print("\n".join(["import cycles through oracle_gate.maps:", *cycles]) if cycles else "no import cycle")
    assert not cycles, "import cycles through gate/maps/:\n" + "\n".join(cycles)


def test_the_graph_sees_lazy_and_from_package_imports() -> None:
    """The reader finds a lazy import in a function and ``from package import module``, and skips
    ``if TYPE_CHECKING:``: what the two cycles of issue 27 were made of."""
    known = ["oracle_gate.maps.build", "oracle_gate.maps.command", "oracle_gate.maps.inside", "oracle_gate.git"]
    known.append("oracle_gate.maps.inside.collector")
    source = (
        "from typing import TYPE_CHECKING\n"
        "from oracle_gate.maps.inside import collector\n"
        "if TYPE_CHECKING:\n    from oracle_gate.git import Git\n"
        "def run():\n    from oracle_gate.maps.build import build_map\n"
    )
    found = imported_modules(source, "oracle_gate.maps.command", True, known)
    assert found == {"oracle_gate.maps.inside.collector", "oracle_gate.maps.build"}


def test_a_cycle_is_found_and_printed() -> None:
    graph = {
        "oracle_gate.maps.build": {"oracle_gate.maps.command", "oracle_gate.git"},
        "oracle_gate.maps.command": {"oracle_gate.maps.build"},
        "oracle_gate.maps.inside.collector": {"oracle_gate.maps.inside.trace_collector"},
        "oracle_gate.maps.inside.trace_collector": {"oracle_gate.maps.inside.collector"},
        "oracle_gate.git": set(),
        "oracle_gate.a": {"oracle_gate.b"},
        "oracle_gate.b": {"oracle_gate.a"},
    }
    assert cycles_through(graph, MAPS) == [
        "oracle_gate.maps.build -> oracle_gate.maps.command -> oracle_gate.maps.build",
        "oracle_gate.maps.inside.collector -> oracle_gate.maps.inside.trace_collector"
        " -> oracle_gate.maps.inside.collector",
    ]
    long = {"oracle_gate.maps.a": {"oracle_gate.maps.b"}, "oracle_gate.maps.b": {"oracle_gate.maps.c"}}
    long["oracle_gate.maps.c"] = {"oracle_gate.maps.a"}
    assert cycles_through(long, MAPS) == [
        "oracle_gate.maps.a -> oracle_gate.maps.b -> oracle_gate.maps.c -> oracle_gate.maps.a"
    ]
