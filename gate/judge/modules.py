"""Which parent file a module name means (contract v3.2), from the parent tree's ``.py`` paths.

``a.b`` is looked up from the repository root first, then from every directory named ``src``,
shallowest first; in each, the package ``a/b/__init__.py`` before the module ``a/b.py``; a relative
name (``.retry``, ``..pkg.mod``: one leading dot per level) from the importing file's own directory.
The first that exists wins. The read side lists the parent's ``.py`` paths (one ``git ls-tree``);
nothing here reads a file.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cached_property

SRC = "src"


@dataclass(frozen=True)
class ModuleIndex:
    """Every ``.py`` path of the parent tree (repo-relative POSIX paths)."""

    paths: frozenset[str] = field(default_factory=frozenset)

    @cached_property
    def roots(self) -> tuple[str, ...]:
        """Where absolute imports are looked up: the root (``""``), then each ``src`` directory,
        shallowest first (ties in path order), each with a trailing slash."""
        found = set()
        for path in self.paths:
            parts = path.split("/")[:-1]
            for i, part in enumerate(parts):
                if part == SRC:
                    found.add("/".join(parts[: i + 1]) + "/")
        return ("", *sorted(found, key=lambda d: (d.count("/"), d)))

    def resolve(self, name: str, importer: str) -> str | None:
        """The parent file module ``name`` means when imported from file ``importer`` (None: none)."""
        if name.startswith("."):
            level = len(name) - len(name.lstrip("."))
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                if not base:
                    return None
                base = posixpath.dirname(base)
            return self._first([base + "/" if base else ""], name[level:])
        return self._first(self.roots, name)

    def _first(self, roots: tuple[str, ...] | list[str], dotted: str) -> str | None:
        stem = dotted.replace(".", "/")
        if any(not part for part in dotted.split(".")) and dotted:
            return None
        for root in roots:
            candidates = [f"{root}{stem}/__init__.py", f"{root}{stem}.py"] if stem else [f"{root}__init__.py"]
            for candidate in candidates:
                if candidate in self.paths:
                    return candidate
        return None

    def has_top_level(self, name: str) -> bool:
        """Whether the parent has its own top-level module or package ``name`` (at the root or in a
        ``src`` directory; a namespace package counts: any ``.py`` file below ``name/``)."""
        for root in self.roots:
            if f"{root}{name}.py" in self.paths or any(p.startswith(f"{root}{name}/") for p in self.paths):
                return True
        return False
