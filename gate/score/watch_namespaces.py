"""SCORING.md v2, 2.2: module namespaces keep what their text binds. Runs in the tests' process.

The diff verdict reads the change; a rebinding has always another spelling (``globals()`` reached
through a list, ``importlib.import_module(__name__)``, ``__import__`` with a computed name, an
assignment to a method of a class in the same file). So the scoring run watches the namespaces
themselves:

1. **When a module of the tree finishes executing its own body** (an import hook wraps the loader's
   ``exec_module``), each module-level name that the file binds exactly once, with a ``def`` or
   ``class`` statement, must be bound to what that statement created: a function whose code equals
   the code compiled from the statement (through ``__wrapped__``; a decorator's closure is accepted,
   a function defined elsewhere at top level is not), a class whose methods satisfy the same for the
   class body's ``def`` statements (through ``staticmethod``, ``classmethod``, ``property``).
2. **At the end of collection and of the session**, each such name, and each checked method, must
   still be bound to the object of the snapshot, and ``sys.modules`` must still hold the module.

Modules of the tree are ``.py`` files under the checkout that are neither test files (the policy's
``tests`` and ``harness`` globs: a test monkeypatching is ordinary, and the frozen tests' modules are
test files) nor installed (``site-packages``). A module pytest rewrites (``register_assert_rewrite``)
is loaded by pytest's own hook and not watched. Names bound more than once by the text (``overload``,
``try: ... except ImportError: def ...``, ``global`` in a function) are left out: the text itself
binds them in more than one way.

Standard library only; nothing here may import the tested code.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from opcode import opmap
from pathlib import Path
from typing import Any

MAX_UNWRAP = 50  # __wrapped__ links followed


@dataclass(frozen=True)
class Rebinding:
    """A name of a module of the tree not bound to what its text binds."""

    module: str
    path: str  # relative to the checkout
    name: str  # "f", or "C.m" for a method of class C
    when: str  # "its own body", "the end of collection", "the end of the session"
    what: str

    def document(self) -> dict[str, str]:
        return {
            "module": self.module,
            "path": self.path,
            "name": self.name,
            "when": self.when,
            "what": self.what,
        }


@dataclass
class NamespaceSnapshot:
    """One watched module's names and methods as first seen (not the bot's metrics snapshot)."""

    module: types.ModuleType
    path: str
    names: dict[str, object] = field(default_factory=dict)  # module-level name -> object
    methods: dict[tuple[str, str], object] = field(default_factory=dict)  # (class, name) -> raw entry


@dataclass(frozen=True)
class Definition:
    name: str
    code: types.CodeType | None  # the function's code, or (a class) its body's code
    decorated: bool
    methods: tuple[Definition, ...] = ()
    is_class: bool = False


class NamespaceWatch:
    """The snapshots of the tree's modules and what was found."""

    def __init__(self, root: Path, excluded: Callable[[str], bool]) -> None:
        self.root = root.resolve()
        self.excluded = excluded
        self.snapshots: dict[str, NamespaceSnapshot] = {}
        self.found: list[Rebinding] = []
        self._seen: set[tuple[str, str, str]] = set()

    # -- which modules ------------------------------------------------------------------------------

    def tree_path(self, origin: str | None) -> str | None:
        """``origin`` relative to the checkout when it is a watched ``.py`` file, else None."""
        if not origin or not origin.endswith(".py"):
            return None
        path = Path(origin)
        if "site-packages" in path.parts or "dist-packages" in path.parts:
            return None
        try:
            relative = path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None
        return None if self.excluded(relative) else relative

    # -- the snapshot -------------------------------------------------------------------------------

    def after_body(self, module: types.ModuleType, path: str, origin: str) -> None:
        """The module's body has run: record its definitions' objects and check them."""
        snapshot = NamespaceSnapshot(module, path)
        self.snapshots[module.__name__] = snapshot
        try:
            source = Path(origin).read_bytes()
            compiled = compile(source, origin, "exec", dont_inherit=True)
        except (OSError, SyntaxError, ValueError, RecursionError):
            return  # the module ran, so it compiles; a file changed since is not this check's to judge
        namespace = vars(module)
        star = any(True for _ in _names(compiled, _IMPORT_STAR, nested=False, with_arg=False))
        for definition in definitions(compiled, source.splitlines()):
            if definition.name not in namespace:
                self._report(snapshot, definition.name, "its own body", "the name is unbound")
                continue
            bound = namespace[definition.name]
            snapshot.names[definition.name] = bound
            problem = _mismatch(definition, bound, origin)
            if problem is not None and not (star and _imported(bound, module)):
                self._report(snapshot, definition.name, "its own body", problem)
            if definition.is_class and isinstance(bound, type):
                self._snapshot_methods(snapshot, definition, bound, origin)

    def _snapshot_methods(
        self, snapshot: NamespaceSnapshot, definition: Definition, cls: type, origin: str
    ) -> None:
        own = vars(cls)
        for method in definition.methods:
            if method.name not in own:
                continue  # a class decorator or metaclass took it out: not a rebinding of it
            raw = own[method.name]
            snapshot.methods[(definition.name, method.name)] = raw
            problem = _mismatch(method, _method_function(raw), origin)
            if problem is not None:
                self._report(snapshot, f"{definition.name}.{method.name}", "its own body", problem)

    # -- the checkpoints ----------------------------------------------------------------------------

    def checkpoint(self, when: str) -> None:
        """Every snapshot's names still bound to the snapshot's objects."""
        for name, snapshot in list(self.snapshots.items()):
            if sys.modules.get(name, snapshot.module) is not snapshot.module:
                self._report(snapshot, "(module)", when, f"sys.modules[{name!r}] is another object")
            namespace = vars(snapshot.module)
            for attr, obj in snapshot.names.items():
                if namespace.get(attr, _UNBOUND) is not obj:
                    self._report(snapshot, attr, when, "rebound after the module's body ran")
            for (cls_name, attr), raw in snapshot.methods.items():
                cls = snapshot.names.get(cls_name)
                if isinstance(cls, type) and vars(cls).get(attr, _UNBOUND) is not raw:
                    self._report(snapshot, f"{cls_name}.{attr}", when, "rebound after the module's body ran")

    def _report(self, snapshot: NamespaceSnapshot, name: str, when: str, what: str) -> None:
        key = (snapshot.module.__name__, name, what)
        if key in self._seen:
            return
        self._seen.add(key)
        self.found.append(Rebinding(snapshot.module.__name__, snapshot.path, name, when, what))


_UNBOUND = object()


# -- reading the file's own definitions ---------------------------------------------------------------
#
# From the code compiled from the file, not from its syntax tree: a module-level name is stored by
# ``STORE_NAME`` wherever the text binds it (``def``, ``class``, ``=``, ``import``, ``for``, ``with``,
# ``except ... as``, ``del``), and a function's ``global`` name by ``STORE_GLOBAL``; each ``def``/
# ``class`` statement's code object is a constant of its scope's code. One compile, no parse.

_STORES = frozenset({opmap["STORE_NAME"], opmap["DELETE_NAME"]})
_GLOBAL_STORES = frozenset({opmap["STORE_GLOBAL"], opmap["DELETE_GLOBAL"]})
_EXTENDED_ARG = opmap["EXTENDED_ARG"]
_IMPORT_STAR = frozenset({opmap["IMPORT_STAR"]} if "IMPORT_STAR" in opmap else ())  # 3.12: an intrinsic
_FUNCTION_FLAGS = 0x1 | 0x2  # CO_OPTIMIZED | CO_NEWLOCALS: a function's code, not a class body's


def definitions(compiled: types.CodeType, lines: Sequence[bytes]) -> Iterator[Definition]:
    """The module's ``def``/``class`` statements whose name the text binds exactly once (and no
    function of the file declares ``global``)."""
    declared_global = set(_names(compiled, _GLOBAL_STORES, nested=True))
    for code in _defined_once(compiled):
        if code.co_name in declared_global:
            continue
        decorated = _decorated(code, lines)
        if _is_function(code):
            yield Definition(code.co_name, code, decorated)
        else:
            methods = tuple(
                Definition(m.co_name, m, _decorated(m, lines)) for m in _defined_once(code) if _is_function(m)
            )
            yield Definition(code.co_name, code, decorated, methods, is_class=True)


def _defined_once(scope: types.CodeType) -> Iterator[types.CodeType]:
    """The code constants of ``scope`` made by a ``def``/``class`` whose name the scope stores once."""
    stores: dict[str, int] = {}
    for name in _names(scope, _STORES, nested=False):
        stores[name] = stores.get(name, 0) + 1
    codes = [c for c in scope.co_consts if isinstance(c, types.CodeType) and c.co_name.isidentifier()]
    named: dict[str, int] = {}
    for code in codes:
        named[code.co_name] = named.get(code.co_name, 0) + 1
    for code in codes:
        if stores.get(code.co_name) == 1 and named[code.co_name] == 1:
            yield code


def _names(
    code: types.CodeType, ops: frozenset[int], *, nested: bool, with_arg: bool = True
) -> Iterator[str]:
    """The names ``code`` stores with ``ops`` (and, ``nested``, every code inside it); ``with_arg``
    False: an empty name for each such instruction."""
    raw, extended = code.co_code, 0
    for index in range(0, len(raw), 2):
        op, arg = raw[index], raw[index + 1] | extended
        extended = arg << 8 if op == _EXTENDED_ARG else 0
        if op in ops:
            if not with_arg:
                yield ""
            elif arg < len(code.co_names):
                yield code.co_names[arg]
    if nested:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                yield from _names(const, ops, nested=True)


def _imported(bound: object, module: types.ModuleType) -> bool:
    """``bound`` comes from another module (a ``from M import *`` after the statement may bind it)."""
    return getattr(bound, "__module__", module.__name__) != module.__name__


def _is_function(code: types.CodeType) -> bool:
    return code.co_flags & _FUNCTION_FLAGS == _FUNCTION_FLAGS


def _decorated(code: types.CodeType, lines: Sequence[bytes]) -> bool:
    """The statement starts with a decorator (a decorated statement's code starts on its first one)."""
    number = code.co_firstlineno
    return 0 < number <= len(lines) and lines[number - 1].lstrip().startswith(b"@")


# -- comparing an object with its statement -----------------------------------------------------------


def _method_function(raw: object) -> object:
    """The function behind a class ``__dict__`` entry (``staticmethod``, ``classmethod``, ``property``,
    ``functools.cached_property``)."""
    if isinstance(raw, staticmethod | classmethod):
        return raw.__func__
    if isinstance(raw, property):
        return raw.fget
    func = getattr(raw, "func", None)  # functools.cached_property, partialmethod
    return func if func is not None and type(raw).__name__ == "cached_property" else raw


def _codes(obj: object) -> Iterator[types.CodeType]:
    current: Any = obj
    for _ in range(MAX_UNWRAP):
        code = getattr(current, "__code__", None)
        if isinstance(code, types.CodeType):
            yield code
        try:
            current = getattr(current, "__wrapped__", None)
        except Exception:  # noqa: BLE001 - a proxy object's __getattr__ may raise anything
            return
        if current is None:
            return


def _mismatch(definition: Definition, bound: object, origin: str) -> str | None:
    """Why ``bound`` is not what the statement created, or None."""
    if definition.code is None:
        return None  # the statement's code was not found (an unusual layout): nothing to compare
    if definition.is_class:
        return _class_mismatch(definition, bound)
    codes = list(_codes(bound))
    if definition.code in codes or (definition.decorated and _decorator_made(codes, origin)):
        return None
    if not codes:
        return f"bound to a {type(bound).__name__}, not the function the statement defines"
    first = codes[0]
    return f"bound to {first.co_qualname} ({_where(first)}), not the function the statement defines"


def _decorator_made(codes: list[types.CodeType], origin: str) -> bool:
    """What a decorator returns: an object without code (a command, a dispatcher), or closures."""
    return all(_made_by_a_decorator(code, origin) for code in codes)


def _class_mismatch(definition: Definition, bound: object) -> str | None:
    if definition.decorated:
        return None  # a class decorator may return another object; its methods are still checked
    if not isinstance(bound, type):
        return f"bound to a {type(bound).__name__}, not a class"
    return None if bound.__qualname__ == definition.name else f"bound to another class ({bound.__qualname__})"


def _made_by_a_decorator(code: types.CodeType, origin: str) -> bool:
    """A function made inside another one (a closure), or defined in another file: what a decorator
    returns. A top-level function of this same file is not."""
    return "<locals>" in code.co_qualname or Path(code.co_filename) != Path(origin)


def _where(code: types.CodeType) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}"


# -- the import hook ----------------------------------------------------------------------------------


class WatchingFinder:
    """First on ``sys.meta_path``: asks the finders after it, and wraps the ``exec_module`` of the
    loader of each watched module so the snapshot is taken when its body has run."""

    def __init__(self, watch: NamespaceWatch) -> None:
        self.watch = watch

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        later = False
        for finder in list(sys.meta_path):
            if finder is self:
                later = True
                continue
            if not later or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                self._wrap(spec)
                return spec
        return None

    def invalidate_caches(self) -> None:
        return None

    def _wrap(self, spec: Any) -> None:
        origin = spec.origin if isinstance(spec.origin, str) else None
        relative = self.watch.tree_path(origin)
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if relative is None or exec_module is None or origin is None:
            return
        watch = self.watch

        def exec_and_snapshot(module: types.ModuleType) -> None:
            exec_module(module)
            # One loader may serve many modules (pytest's assertion rewriter loads every file it
            # rewrites, `--doctest-modules` paths too): snapshot only the module this spec is for.
            if getattr(getattr(module, "__spec__", None), "origin", None) == origin:
                watch.after_body(module, relative, origin)

        try:
            loader.exec_module = exec_and_snapshot
        except (AttributeError, TypeError):
            return  # a loader that takes no attribute (slots): not watched


def install(root: Path, excluded: Callable[[str], bool]) -> NamespaceWatch:
    """Start watching: the finder goes first on ``sys.meta_path``."""
    watch = NamespaceWatch(root, excluded)
    sys.meta_path.insert(0, WatchingFinder(watch))
    return watch
