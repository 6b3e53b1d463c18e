"""Contract v3.8 rule 1: whether code other than pytest's own run of a new test can reach it.

A new test, or a method of a new test class, may carry its own markers only while nothing but
pytest running that test can call it. Read from one file's syntax tree, failing closed:

- :func:`file_loads`: every name the file loads, attribute it looks up, and string literal that
  spells an identifier (``getattr(case, "prep")``, ``globals()["TestNew"]``), counted;
- :func:`calls_in_own_methods`: of those, the ones a class's own methods make as a direct call
  (``self.prep()``, ``super().setUp()``): they run in that class's own test; any other load of a
  member's name (``type(self).prep`` handed on, ``c.prep(self)`` in another class) may run it for
  another test, or at import;
- :func:`reaches_by_reflection`: a change that adds a look-up of objects by computed names or
  through the interpreter's registries (``vars(cls)``, ``cls.__dict__``, ``__subclasses__()``,
  ``globals()``, ``getattr(x, name)``, frames, ``gc``, ``inspect``, pytest's collected items) can
  reach any test of the file without naming it (such uses the parent already had, as many times,
  are the parent's: a plugin framework's tests ``getattr`` all the time);
- :func:`installs`: a decorator that is not an imported API (a function or class of this file, or
  an expression) is handed the test or class when the file is imported and may call it, or bind it
  under an old test's name (``global test_old; test_old = test``); so may a metaclass or any other
  class keyword. A decorator defined in the file exactly as on the parent is the parent's: it did
  the same to the parent's tests (simplejson's ``@skip_if_speedups_missing`` on new tests);
- :func:`binds_attribute_of`: code that binds an attribute of an old test or test class
  (``TestOld.setUp = ...``, ``setattr(TestOld, ...)``) installs code on old tests.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from oracle_gate.judge.pyrefs import GLOBALS, Resolver

#: (first line, its column, last line, its end column) of a stretch of source
Span = tuple[int, int, int, int]
#: Builtin decorators that hand the function to nothing but the class machinery.
SAFE_BUILTIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})
#: Calls that reach a namespace or evaluate code (the name alone is enough: it may be passed on).
REFLECTIVE_NAMES = frozenset(
    {"globals", "locals", "vars", "eval", "exec", "compile", "__import__", "dir", "gc", "inspect"}
    | {"attrgetter", "methodcaller"}
)
#: Attributes that reach a namespace, a class's subclasses, frames, or pytest's collected items.
REFLECTIVE_ATTRIBUTES = frozenset(
    {"__dict__", "__subclasses__", "__globals__", "__getattribute__", "__getattr__"}
    | {"f_globals", "f_locals", "f_back", "_getframe", "currentframe", "getmembers"}
    | {"get_referrers", "get_objects", "session", "runtest", "obj", "_obj", "collect"}
)
#: Called with a name that is not a string literal, these look up anything.
NAME_LOOKUPS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
ATTRIBUTE_SETTERS = frozenset({"setattr", "delattr"})


def file_loads(tree: ast.AST) -> Counter[str]:
    """Each name loaded, attribute looked up, and identifier-like string literal, with its count."""
    return Counter(_loads(ast.walk(tree)))


def calls_in_own_methods(methods: Iterable[ast.FunctionDef | ast.AsyncFunctionDef]) -> Counter[str]:
    """The loads in these methods' bodies that are a direct call's function (``self.prep()``)."""
    found: Counter[str] = Counter()
    for method in methods:
        for node in (n for stmt in method.body for n in ast.walk(stmt)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                found.update(_loads([node.func]))
    return found


def _loads(nodes: Iterable[ast.AST]) -> Iterable[str]:
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            yield node.value


def reaches_by_reflection(tree: ast.AST, previous: ast.AST | None, skip: Collection[Span] = ()) -> bool:
    """Whether the file has a reflective use (see the module docstring), outside the ``skip`` line
    spans, that ``previous`` (the parent side; None: absent or unreadable) does not have as many
    times."""
    before = reflective_uses(previous) if previous is not None else Counter()
    return bool(reflective_uses(tree, skip) - before)


def body_span(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Span:
    """Where a function's body is: from its first statement to the end of its last, so neither its
    decorators nor its signature (they run when it is defined) fall inside."""
    first, last = node.body[0], node.body[-1]
    return first.lineno, first.col_offset, last.end_lineno or last.lineno, last.end_col_offset or 0


def reflective_uses(tree: ast.AST, skip: Collection[Span] = ()) -> Counter[str]:
    """Each use that reaches objects without naming them, as source text, with its count."""
    found: Counter[str] = Counter()
    for node in ast.walk(tree):
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if any(span[:2] <= where <= span[2:] for span in skip):
            continue
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        reflective = name in REFLECTIVE_NAMES or (
            isinstance(node, ast.Attribute) and name in REFLECTIVE_ATTRIBUTES
        )
        if reflective or (isinstance(node, ast.Call) and _computed_lookup(node)):
            found[ast.unparse(node)] += 1
    return found


def binds_attribute_of(tree: ast.AST, names: Collection[str]) -> bool:
    """Whether the file binds or deletes an attribute of one of ``names`` (``TestOld.setUp = f``,
    ``setattr(TestOld, "setUp", f)``): it installs code on what those names are."""
    return any(_bound_object(node) in names for node in ast.walk(tree))


def _bound_object(node: ast.AST) -> str | None:
    """The name whose attribute ``node`` binds or deletes, if it is a plain name."""
    target: ast.AST | None = None
    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
        target = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ATTRIBUTE_SETTERS:
        target = node.args[0] if node.args else None
    return target.id if isinstance(target, ast.Name) else None


def _computed_lookup(call: ast.Call) -> bool:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name not in NAME_LOOKUPS:
        return False
    looked_up = call.args[1] if len(call.args) > 1 else None
    return not (isinstance(looked_up, ast.Constant) and isinstance(looked_up.value, str))


@dataclass(frozen=True)
class Bindings:
    """What the file's names are, for :func:`installs`."""

    #: every name the file binds (a local ``staticmethod`` is not the builtin)
    bound: frozenset[str] = frozenset()
    #: the functions and classes defined once, bound no other way, exactly as on the parent
    unchanged: frozenset[str] = frozenset()


def installs(decorator: ast.expr, resolver: Resolver, names: Bindings) -> bool:
    """Whether a decorator may do more with what it decorates than an imported API does: it is
    defined in this file (it resolves to no import) and not :attr:`Bindings.unchanged`, or is no
    name at all (``@(lambda f: ...)``)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name) and target.id in SAFE_BUILTIN_DECORATORS - names.bound:
        return False
    if isinstance(target, ast.Name) and target.id in names.unchanged:
        return False
    return not any(not q.startswith(GLOBALS) for q in resolver.resolve(target))


def class_installs(cls: ast.ClassDef, resolver: Resolver, names: Bindings) -> bool:
    """A class decorator that :func:`installs`, or a keyword (``metaclass=``: its code runs with the
    class when the file is imported)."""
    return bool(cls.keywords) or any(installs(d, resolver, names) for d in cls.decorator_list)


def read_bindings(tree: ast.AST, previous: ast.AST | None) -> Bindings:
    """The file's :class:`Bindings`; ``previous``: the parent side (None: absent or unreadable). Only
    the definitions of names used as decorators are compared (a dump of every ``def`` is costly)."""
    binds: Counter[str] = Counter()
    decorators: set[str] = set()
    for node in ast.walk(tree):
        for name in _binds(node):
            binds[name] += 1
        for decorator in getattr(node, "decorator_list", []):
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            decorators.update([target.id] if isinstance(target, ast.Name) else [])
    wanted = {name for name in decorators if binds[name] == 1}
    head = {n.name: ast.dump(n) for n in _definitions(tree) if n.name in wanted}
    before = (
        {ast.dump(n) for n in _definitions(previous) if n.name in head} if previous is not None else set()
    )
    return Bindings(frozenset(binds), frozenset(name for name, dump in head.items() if dump in before))


def _definitions(tree: ast.AST) -> Iterable[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    return (n for n in ast.walk(tree) if isinstance(n, _DEFINITIONS))


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _binds(node: ast.AST) -> Iterable[str]:
    """The names one node binds: a definition, an assignment target, a parameter, an import."""
    if isinstance(node, _DEFINITIONS):
        yield node.name
    elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        yield node.id
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.alias):
        yield (node.asname or node.name).split(".", 1)[0]
