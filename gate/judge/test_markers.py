"""Contract v3.8 rule 1: skip markers compared per test.

The v2 text rule and the v3.1 syntax rule find a marker *reference* on an added line. Here such a
line of a test file is judged against the test it applies to:

- outside every test function and test class (module level, a helper, a fixture), it counts, as
  before; so does a fixture method of a test class, a statement of the class's body (it runs at
  import), and a method's decorators and signature;
- in the body of a test class's other methods (``setUp``, ``setUpClass``, a helper), it applies to
  every test of that class, as the class's decorators do, unless the method is reachable otherwise
  (below);
- on a test the parent also has (same file after rename detection, same classes and function
  name), it counts unless each marker on the line is **equal** to one that test carried on the
  parent: its own decorators and body, the classes around it, the module's ``pytestmark``. Equal is
  the same kind (skip, xfail, exit, or a mark the parent's ``addopts`` deselects) and the same
  condition, compared as syntax trees (positions, reasons and messages left out);
- on a test that is new on head, it does not count: a new test observes nothing on the parent.

A class decorator or a ``pytestmark`` in a class body applies to every test of that class, a
module-level ``pytestmark`` to every test of the file: such a line is judged for each of them.

Where the contract is silent, the choices (``docs/contract-choices.md``) fail closed:

- the condition of a marker also holds its **guards**, the ``if``/``while``/``except``/``with``/
  ``for``/``match`` headers, short-circuit operands and nested ``def``s between the test and the
  marker, so an unconditional ``pytest.skip()`` added where the parent had ``if rare:
  pytest.skip()`` is not equal; ``skipUnless(c)`` is ``skipIf(not c)``; a pytest mark's every
  positional condition counts, as pytest reads them all;
- a marker still counts when it reaches beyond its test: ``pytest.exit`` in a new test (ends the
  whole run), ``allow_module_level=`` (skips the file), a marker in a ``def``/``lambda``/class
  nested in a new test (it can be installed on an old one), a mark decorator *used* in a test's
  body (``unittest.skip("x")(Other.test_a)``), a new test (or class) the file's own code refers to
  by name or by a string (a "test" called as a helper, ``TestOld = TestNew``) or subclasses, one
  reachable otherwise (:mod:`oracle_gate.judge.test_reach`: a decorator of the file's own or a class
  keyword is handed it; the change adds reflection outside new tests' bodies; the file binds an
  attribute of an old test or test class), a new class's method named anywhere but as a direct
  call in the class's own methods (``case.prep(self)`` in an old test, ``cls.setUp(None)`` in a
  base's ``__init_subclass__``), and anything that runs when the test is
  *defined*, at import, other than the decorator (or ``pytestmark`` item) being a mark itself: a
  marker in a default or an annotation, inside a decorator's arguments, or a mark called with one
  non-literal argument (``pytest.mark.skip(test_old)`` marks ``test_old``);
- a case's mark (``pytest.param(2, marks=skip)``) marks that case: it equals the same mark on the
  same case's values only;
- a marker reached through a name bound to anything but a plain reference (``win =
  pytest.mark.skipif(c, ...)``; ``@win``) has a condition the syntax cannot read: it equals no
  other marker, on either side;
- tests are what pytest collects by default, in files matched by the policy's ``tests`` globs:
  functions named ``test*`` at module level or in a test class, not decorated as fixtures; classes
  named ``Test*`` or deriving from a ``*TestCase``;
- a marker the syntax cannot place (a text match such as ``"skip"`` in a string) counts on a test
  the parent has, and not on a new test; a file that does not parse on head keeps every marker,
  and a parent side that does not parse makes every test count as one the parent has, unmarked.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TypeGuard

from oracle_gate.judge.pyrefs import Resolver, build_resolver
from oracle_gate.judge.pysource import parse_tree
from oracle_gate.judge.syntax_markers import listed_api
from oracle_gate.judge.test_reach import (
    Bindings,
    Span,
    binds_attribute_of,
    body_span,
    calls_in_own_methods,
    class_installs,
    file_loads,
    installs,
    reaches_by_reflection,
    read_bindings,
)

SKIP, XFAIL, EXIT = "skip", "xfail", "exit"
PYTEST_KINDS = {
    "pytest.skip": SKIP,
    "pytest.mark.skip": SKIP,
    "pytest.mark.skipif": SKIP,
    "pytest.importorskip": SKIP,
    "pytest.xfail": XFAIL,
    "pytest.mark.xfail": XFAIL,
    "pytest.exit": EXIT,
}
OUTCOME_KINDS = {
    "skip": SKIP,
    "Skipped": SKIP,
    "importorskip": SKIP,
    "xfail": XFAIL,
    "XFailed": XFAIL,
    "exit": EXIT,
    "Exit": EXIT,
}
#: Marks whose positional arguments are all conditions (``pytest.mark.skipif(c1, c2, reason=...)``).
PYTEST_CONDITIONAL = frozenset({"pytest.mark.skipif", "pytest.mark.xfail"})
#: APIs that mark something else when called (a decorator), as opposed to acting on the running test.
DECORATOR_APIS = ("pytest.mark.", "unittest.skip", "unittest.case.skip", "unittest.expectedFailure")
DECORATOR_APIS_EXACT = frozenset({"unittest.case.expectedFailure"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)
PYTESTMARK = "pytestmark"
FIXTURE_NAMES = frozenset({"fixture", "yield_fixture"})

Key = tuple[str, ...]  # the classes around a test and its name; a class: the classes and its name

#: ``importorskip`` returns the module it imported (a name bound to that result is no marker).
IMPORTORSKIP = frozenset({"pytest.importorskip", "_pytest.outcomes.importorskip"})


@dataclass(frozen=True)
class Marker:
    """One marker: what it does (``kind``), when (``condition``, guards included), and its lines."""

    kind: str
    condition: str
    start: int
    end: int
    #: a decorator-style API used in a test's body: it marks something else, not the running test
    reaches_out: bool = False
    #: reached through a name bound to something derived (``sk = pytest.mark.skipif(c, ...)``,
    #: ``pytestmark = marks``): its condition cannot be read here, so it equals no other marker
    opaque: bool = False
    #: ``allow_module_level=`` given: it means to skip the whole file, which only code run at import
    #: can, so wherever it sits it reaches beyond its test
    module_level: bool = False
    #: inside a ``def``, ``lambda`` or class nested in the test (or method): code that may be
    #: installed elsewhere (``Old.test_a = lambda self: pytest.skip()``) and run for other tests
    nested: bool = False

    @property
    def identity(self) -> tuple[str, str]:
        return self.kind, self.condition

    def holds(self, line: int) -> bool:
        return self.start <= line <= self.end


@dataclass
class Scope:
    """A test function or a test class: its lines and the markers it carries itself."""

    key: Key
    start: int
    end: int
    markers: list[Marker] = field(default_factory=list)
    #: a class: the lines of its decorators and of its ``pytestmark`` statements
    mark_lines: list[tuple[int, int]] = field(default_factory=list)
    #: a class: the body lines of its methods that are neither tests nor fixtures (``setUp``, a
    #: helper): they run for the class's tests only, so their markers apply to each of them
    member_lines: list[tuple[int, int]] = field(default_factory=list)
    #: of those, the methods the file names other than as a direct call in the class's own method
    #: bodies (the class body calls it, a decorator or another class reaches it), or that a
    #: decorator of the file's own is handed at import (:func:`installs`): their lines count
    named_members: list[tuple[int, int]] = field(default_factory=list)
    #: a decorator of this file's own (or a class keyword) is handed the test or class at import:
    #: it may call it or bind it under an old test's name
    installed: bool = False
    #: where the body of the test, or of each member method, is (not its decorators or signature,
    #: which run at import): code there runs for this test (or class) only
    bodies: list[Span] = field(default_factory=list)

    def holds(self, line: int) -> bool:
        return self.start <= line <= self.end


@dataclass
class TestLayout:
    """The tests of one file and the markers each carries."""

    functions: dict[Key, Scope] = field(default_factory=dict)
    classes: dict[Key, Scope] = field(default_factory=dict)
    module: list[Marker] = field(default_factory=list)  # module-level ``pytestmark``
    module_mark_lines: list[tuple[int, int]] = field(default_factory=list)
    #: names the file loads, attributes it looks up, identifier-like strings (``f()``, ``self.f``,
    #: bases, ``getattr(x, "f")``), each with its count
    loads: Counter[str] = field(default_factory=Counter)
    #: the file looks objects up by computed names or through registries: any test can be reached
    reflective: bool = False

    @property
    def referenced(self) -> Collection[str]:
        return self.loads.keys()

    def carried(self, key: Key) -> set[tuple[str, str]]:
        """Every marker that applies to the test ``key``: its own, its classes', the module's."""
        markers = [*self.functions[key].markers, *self.module]
        for depth in range(1, len(key)):
            scope = self.classes.get(key[:depth])
            if scope is not None:
                markers += scope.markers
        return {m.identity for m in markers if not m.opaque}

    def tests_below(self, prefix: Key) -> list[Key]:
        return [k for k in self.functions if k[: len(prefix)] == prefix]


def counting_marker_lines(
    head: bytes | None,
    parent: bytes | None,
    parent_exists: bool,
    lines: Collection[int],
    deselected: Collection[str] = (),
) -> set[int]:
    """Of the added lines of a test file that hold a marker reference, those that still count.

    ``parent``: the file's parent side (after rename detection); ``parent_exists`` False for an
    added file (every test is new). ``deselected``: the mark names of the parent's ``addopts``."""
    wanted = set(lines)
    head_tree = parse_tree(head)
    if head_tree is None or not wanted:
        return wanted
    try:
        parent_tree = parse_tree(parent) if parent_exists else None
        head_layout = read_layout(head_tree, deselected, parent_tree)
        parent_layout: TestLayout | None = TestLayout()
        if parent_exists:
            parent_layout = read_layout(parent_tree, deselected) if parent_tree is not None else None
        if parent_layout is not None:
            head_layout.reflective = _reaches_old_tests(head_tree, parent_tree, head_layout, parent_layout)
    except RecursionError:  # a condition nested deeper than ast.dump can walk: every marker counts
        return wanted
    return {line for line in wanted if _counts(line, head_layout, parent_layout)}


def _reaches_old_tests(
    tree: ast.Module, previous: ast.Module | None, head: TestLayout, parent: TestLayout
) -> bool:
    """Whether code that runs for the parent's tests or at import gained a reflective use
    (:func:`~oracle_gate.judge.test_reach.reaches_by_reflection`), or any code binds an attribute of
    one of the parent's tests or test classes (``TestOld.setUp = getattr(type(self), name)``): then
    a new test, or a new class's method, may run for old tests without the file naming it. A
    reflective use in the body of a new test or of a new class's method runs for that new test only.
    """
    new_lines = [b for k, s in head.functions.items() if k not in parent.functions for b in s.bodies]
    new_lines += [b for k, c in head.classes.items() if k not in parent.classes for b in c.bodies]
    old_names = {part for key in [*parent.functions, *parent.classes] for part in key}
    return reaches_by_reflection(tree, previous, skip=new_lines) or binds_attribute_of(tree, old_names)


def _counts(line: int, head: TestLayout, parent: TestLayout | None) -> bool:
    site = _site(line, head)
    if site is None or not site.tests or parent is None:
        return True  # outside every test (as before), on no test, or no parent to compare with
    if any(m.reaches_out for m in site.markers):
        return True  # it marks something else than the tests it sits on: whatever they carried
    for key in site.tests:
        if key not in parent.functions:  # new on head: its own markers, unless they reach beyond it
            if site.helper or any(m.kind == EXIT or m.module_level or m.nested for m in site.markers):
                return True
        elif not _equal_to_carried(site.markers, parent.carried(key)):
            return True
    return False


def _equal_to_carried(markers: list[Marker], carried: set[tuple[str, str]]) -> bool:
    """Each marker of the line equals one the test carried on the parent (one whose condition is
    hidden behind a derived name equals nothing)."""
    readable = markers and not any(m.opaque for m in markers)
    return bool(readable) and {m.identity for m in markers} <= carried


@dataclass(frozen=True)
class Site:
    """Where a marker line sits: the tests it applies to, the markers on it, and whether its tests
    are referred to by the file's own code (a new "test" called as a helper is not a test)."""

    tests: list[Key]
    markers: list[Marker]
    helper: bool


def _site(line: int, layout: TestLayout) -> Site | None:
    """None: the line is in no test and on no class- or module-level marker."""
    function = _innermost(line, layout.functions.values())
    if function is not None:
        markers = [m for m in function.markers if m.holds(line)]
        return Site([function.key], markers, _reachable(function.key, layout))
    cls = _innermost(line, layout.classes.values())
    if cls is not None:
        return _class_site(line, cls, layout)
    if any(a <= line <= b for a, b in layout.module_mark_lines):
        return Site(
            list(layout.functions), _statement_markers(line, layout.module_mark_lines, layout.module), False
        )
    return None


def _class_site(line: int, cls: Scope, layout: TestLayout) -> Site | None:
    """Where a line of a test class (outside its tests) applies: on a decorator, a ``pytestmark`` or
    in a member method's body, to every test of the class; elsewhere (None) it counts as before."""
    in_marks = any(a <= line <= b for a, b in cls.mark_lines)
    if not in_marks and not any(a <= line <= b for a, b in cls.member_lines):
        return None  # a fixture of the class, a statement of its body, a method's decorator
    named = not in_marks and any(a <= line <= b for a, b in cls.named_members)
    if _reachable(cls.key, layout) or named:
        # subclassed or used, its marks reach other tests; a method named outside the methods
        # (the class body calls it, a decorator reaches it) may run at import
        return Site([], [], True)
    if in_marks:
        markers = _statement_markers(line, cls.mark_lines, cls.markers)
    else:  # in a setUp or a helper method: it runs for the class's tests
        markers = [m for m in cls.markers if m.holds(line)]
    return Site(layout.tests_below(cls.key), markers, False)


def _reachable(key: Key, layout: TestLayout) -> bool:
    """Whether code other than pytest running the test (or class) ``key`` can reach it: the file
    names it or a class around it (a helper, a base, ``TestOld = TestNew``), a decorator of the
    file's own (or a class keyword) is handed one of them, or the file reaches objects by
    reflection."""
    if layout.reflective:
        return True
    for depth in range(1, len(key) + 1):
        scope = layout.functions.get(key) if depth == len(key) else None
        scope = scope or layout.classes.get(key[:depth])
        if key[depth - 1] in layout.referenced or (scope is not None and scope.installed):
            return True
    return False


def _statement_markers(line: int, statements: list[tuple[int, int]], markers: list[Marker]) -> list[Marker]:
    """The markers of the decorator or ``pytestmark`` statement holding ``line``: each of its lines
    (``pytestmark = [``, a renamed ``marks = [``) is judged by everything the statement marks."""
    a, b = next((a, b) for a, b in statements if a <= line <= b)
    return [m for m in markers if a <= m.start and m.end <= b]


def _innermost(line: int, scopes: Collection[Scope]) -> Scope | None:
    holding = [s for s in scopes if s.holds(line)]
    return min(holding, key=lambda s: s.end - s.start) if holding else None


# -- reading a file's tests ---------------------------------------------------------------------------


def read_layout(
    tree: ast.Module, deselected: Collection[str] = (), previous: ast.Module | None = None
) -> TestLayout:
    """The tests of a parsed file, the markers each carries, and the names the file refers to.
    ``previous``: the parent side of a head file (what the parent already had does not make its
    tests reachable: :mod:`oracle_gate.judge.test_reach`); None: absent or unreadable."""
    resolver = build_resolver(tree)
    reader = _MarkerReader(resolver, frozenset(deselected), _derived_bindings(tree, resolver))
    layout = TestLayout(loads=file_loads(tree))
    for stmt in _body_statements(tree.body):
        if _is_pytestmark(stmt):
            layout.module += reader.markers_in(
                stmt, guards=_guards_of(stmt, tree), own=_pytestmark_marks(stmt)
            )
            layout.module_mark_lines.append(_lines(stmt))
    _read_scopes(tree.body, (), layout, reader, names=read_bindings(tree, previous))
    return layout


def _read_scopes(
    body: list[ast.stmt],
    classes: Key,
    layout: TestLayout,
    reader: _MarkerReader,
    *,
    names: Bindings,
    run_test: bool = False,
) -> None:
    """``run_test``: the body is a ``TestCase``'s without ``test*`` methods, whose ``runTest`` pytest
    collects as its one test. ``names``: what the file's names are (:func:`installs`)."""
    for stmt in _body_statements(body):
        if isinstance(stmt, _FUNCTIONS) and _is_test_function(stmt, reader.resolver, run_test):
            key = (*classes, stmt.name)
            scope = Scope(key, *_lines(stmt), bodies=[body_span(stmt)])
            scope.installed = any(installs(d, reader.resolver, names) for d in stmt.decorator_list)
            for decorator in stmt.decorator_list:
                cases = reader.case_marks(decorator)
                scope.markers += reader.markers_in(decorator, guards=(), own=(decorator,), cases=cases)
            for part in _signature(stmt):  # defaults and annotations: run when the test is defined
                scope.markers += reader.markers_in(part, guards=(), own=())
            for inner in stmt.body:
                scope.markers += reader.markers_in(inner, guards=(), in_body=True)
            layout.functions[key] = scope
        elif isinstance(stmt, ast.ClassDef) and _is_test_class(stmt):
            runs_run_test = _runs_run_test(stmt, reader.resolver)
            key = (*classes, stmt.name)
            scope = Scope(key, *_lines(stmt), installed=class_installs(stmt, reader.resolver, names))
            for decorator in stmt.decorator_list:
                scope.markers += reader.markers_in(decorator, guards=(), own=(decorator,))
                scope.mark_lines.append(_lines(decorator))
            members: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
            for inner in _body_statements(stmt.body):
                if _is_pytestmark(inner):
                    scope.markers += reader.markers_in(
                        inner, guards=_guards_of(inner, stmt), own=_pytestmark_marks(inner)
                    )
                    scope.mark_lines.append(_lines(inner))
                elif _is_member(inner, reader.resolver, runs_run_test):
                    scope.markers += _member_markers(inner, reader)
                    scope.member_lines.append((inner.body[0].lineno, _lines(inner)[1]))
                    scope.bodies.append(body_span(inner))
                    members.append(inner)
            methods = [s for s in _body_statements(stmt.body) if isinstance(s, _FUNCTIONS)]
            for member in _reached_members(members, methods, layout.loads, reader.resolver, names):
                scope.named_members.append((member.body[0].lineno, _lines(member)[1]))
            layout.classes[key] = scope
            _read_scopes(stmt.body, key, layout, reader, names=names, run_test=runs_run_test)


def _reached_members(
    members: list[ast.FunctionDef | ast.AsyncFunctionDef],
    methods: list[ast.FunctionDef | ast.AsyncFunctionDef],
    loads: Counter[str],
    resolver: Resolver,
    names: Bindings,
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The members of a test class that may run for other tests or at import: named other than as
    a direct call in the class's own ``methods``, handed to a decorator of the file's own, or called
    directly by such a method, a test included (``cls.outer(cls)`` in a base's
    ``__init_subclass__`` runs ``outer``, and ``outer``'s ``self.prep()`` then runs ``prep``)."""
    own_calls = calls_in_own_methods(methods)
    reached = {
        m.name
        for m in methods
        if loads[m.name] > own_calls[m.name] or any(installs(d, resolver, names) for d in m.decorator_list)
    }
    frontier = [m for m in methods if m.name in reached]
    while frontier:
        for called in calls_in_own_methods([frontier.pop()]):
            if called not in reached:
                reached.add(called)
                frontier += [m for m in methods if m.name == called]
    return [m for m in members if m.name in reached]


def _runs_run_test(cls: ast.ClassDef, resolver: Resolver) -> bool:
    """A ``*TestCase`` with no ``test*`` method of its own: pytest collects its ``runTest``."""
    own = [s for s in _body_statements(cls.body) if isinstance(s, _FUNCTIONS)]
    return _derives_from_testcase(cls) and not any(_is_test_function(s, resolver) for s in own)


def _is_member(
    stmt: ast.stmt, resolver: Resolver, run_test: bool
) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    """A method of a test class that is neither a test nor a fixture (``setUp``, a helper)."""
    return (
        isinstance(stmt, _FUNCTIONS)
        and not _is_test_function(stmt, resolver, run_test)
        and not any(_is_fixture(d, resolver) for d in stmt.decorator_list)
    )


def _member_markers(method: ast.FunctionDef | ast.AsyncFunctionDef, reader: _MarkerReader) -> list[Marker]:
    """The markers in a member method's body, each under the method's name (a marker moved from
    ``setUp`` into a helper is not the same marker). Its decorators and signature run when the class
    is defined, not for its tests: they are not read here, and a marker there counts as before."""
    guard = (f"method:{method.name}",)
    return [m for inner in method.body for m in reader.markers_in(inner, guards=guard, in_body=True)]


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """What Python evaluates when it defines the function, besides its decorators: the defaults and
    the annotations of its arguments and its return annotation."""
    return [node.args, *([node.returns] if node.returns is not None else [])]


def _pytestmark_marks(stmt: ast.stmt) -> tuple[ast.AST, ...]:
    """The marks a ``pytestmark`` statement gives: its value, or each item of a list or tuple."""
    value = getattr(stmt, "value", None)
    if isinstance(value, ast.List | ast.Tuple):
        return tuple(value.elts)
    return () if value is None else (value,)


def _applies_to_what_it_decorates(api: str, node: ast.AST) -> bool:
    """Whether a mark in a decorator's (or a ``pytestmark`` item's) place marks only what it
    decorates: a decorator-style API, not called with one argument that may be a test to mark
    (``pytest.mark.skip(test_old)`` and ``unittest.skip(test_old)`` mark ``test_old``; a reason is a
    string literal, and a condition that is not one needs ``reason=``)."""
    if not (api.startswith(DECORATOR_APIS) or api in DECORATOR_APIS_EXACT):
        return False
    if not isinstance(node, ast.Call):
        return True
    one_target = len(node.args) == 1 and not node.keywords
    return not (one_target and not isinstance(node.args[0], ast.Constant | ast.JoinedStr))


@dataclass(frozen=True)
class Derived:
    """The names and attributes a file binds to something other than a plain reference (a call's
    result, a list, a lambda, a loop variable): what a marker reached through them is, and under
    which condition, the syntax cannot say."""

    names: frozenset[str] = frozenset()
    attributes: frozenset[str] = frozenset()
    #: names bound only to ``pytest.importorskip(...)``'s result: the module it imported, whose use
    #: (``monkeypatch.setattr(pkg, ...)``) skips nothing more than the call did: such a use is
    #: compared with the parent's as a plain reference, not hidden behind a derived binding
    imported: frozenset[str] = frozenset()

    def through_imported(self, node: ast.AST) -> bool:
        """Whether a reference is ``pkg`` or ``pkg.attr...`` for a name bound only to importorskip's
        result, through no attribute some binding derives."""
        while isinstance(node, ast.Attribute):
            if node.attr in self.attributes:
                return False
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.imported

    def hides(self, node: ast.AST) -> bool:
        """Whether a marker reference goes through such a binding (or is no plain reference at all)."""
        while isinstance(node, ast.Attribute):
            if node.attr in self.attributes:
                return True
            node = node.value
        return not isinstance(node, ast.Name) or node.id in self.names


def _derived_bindings(tree: ast.Module, resolver: Resolver) -> Derived:
    """Of the names and attributes the resolver binds to a marker API's module, those some binding
    derives (``self.skip = False`` binds nothing the resolver follows: ``pytest.skip`` stays plain)."""
    names: set[str] = set()
    attributes: set[str] = set()
    imported: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(tree):
        for target, value, in_class in _bindings(node):
            if isinstance(target, ast.Name):
                is_import = isinstance(value, ast.Call) and bool(IMPORTORSKIP & resolver.resolve(value.func))
                (imported if is_import else other).add(target.id)
            if _plain_reference(value):
                continue
            for bound in ast.walk(target):
                if isinstance(bound, ast.Name):
                    (attributes if in_class else names).add(bound.id)
                    names.add(bound.id)
                elif isinstance(bound, ast.Attribute):
                    attributes.add(bound.attr)
    return Derived(
        frozenset(names & resolver.names.keys()),
        frozenset(attributes & resolver.attributes.keys()),
        frozenset(imported - other),
    )


def _bindings(node: ast.AST) -> Iterator[tuple[ast.expr, ast.expr | None, bool]]:
    """(target, value, in a class body) of each binding ``node`` makes (value None: not a plain one)."""
    if isinstance(node, ast.ClassDef):
        yield ast.Name(id=node.name, ctx=ast.Store()), None, False
        for stmt in node.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    yield target, _value(stmt), True
    elif isinstance(node, ast.Assign):
        yield from ((t, node.value, False) for t in node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
        yield node.target, _value(node), False
    elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        yield node.target, None, False
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield node.optional_vars, None, False
    elif isinstance(node, ast.arguments):  # a parameter binds what its default is (the resolver's view)
        positional = [*node.posonlyargs, *node.args]
        pairs = list(zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True))
        pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
        yield from ((ast.Name(id=a.arg, ctx=ast.Store()), d, False) for a, d in pairs)


def _value(node: ast.AST) -> ast.expr | None:
    """An assignment's value; None for an augmented one (``x += ...`` derives from what x was)."""
    return None if isinstance(node, ast.AugAssign) else getattr(node, "value", None)


def _plain_reference(value: ast.expr | None) -> bool:
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Name)


def _body_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module or class body, including those inside ``if``/``try``/... blocks
    (still the same namespace), but not inside functions or classes."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, _BLOCKS):
            inner: list[ast.stmt] = [*stmt.body, *getattr(stmt, "orelse", [])]
            if isinstance(stmt, ast.Try):
                inner += [s for h in stmt.handlers for s in h.body] + stmt.finalbody
            stack.extend(reversed(inner))


def _guards_of(stmt: ast.stmt, container: ast.AST) -> tuple[str, ...]:
    """The block headers between ``container`` (a module or class) and one of its statements."""
    path = _path_to(container, stmt)[1:]  # the container's own body is not a guard
    return tuple(g for parent, child in pairwise(path) for g in _guard(parent, child))


def _path_to(root: ast.AST, target: ast.AST) -> list[ast.AST]:
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(root, [root])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        stack.extend((child, [*path, child]) for child in ast.iter_child_nodes(node))
    return [root, target]  # pragma: no cover - the statement came from the container's own walk


def _lines(node: ast.AST) -> tuple[int, int]:
    start = getattr(node, "lineno", 0)
    for decorator in getattr(node, "decorator_list", []):
        start = min(start, decorator.lineno)
    return start, getattr(node, "end_lineno", None) or start


def _is_pytestmark(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == PYTESTMARK for t in stmt.targets)
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == PYTESTMARK
    return False


def _is_test_function(
    node: ast.FunctionDef | ast.AsyncFunctionDef, resolver: Resolver | None = None, run_test: bool = False
) -> bool:
    """Named ``test*`` (or ``runTest`` where pytest collects it) and not a fixture: no decorator
    named ``fixture``, or that resolves to one (``fx = pytest.fixture``, ``auto =
    functools.partial(pytest.fixture, autouse=True)``): an autouse fixture called ``test_setup``
    that skips is not a new test, it skips every test."""
    named = node.name.startswith("test") or (run_test and node.name == "runTest")
    return named and not any(_is_fixture(d, resolver) for d in node.decorator_list)


def _is_fixture(decorator: ast.expr, resolver: Resolver | None) -> bool:
    if _last_name(decorator) in FIXTURE_NAMES:
        return True
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    found = resolver.resolve(target) if resolver is not None else frozenset()
    return any(q.rsplit(".", 1)[-1] in FIXTURE_NAMES for q in found)


def _is_test_class(node: ast.ClassDef) -> bool:
    return node.name.startswith("Test") or _derives_from_testcase(node)


def _derives_from_testcase(node: ast.ClassDef) -> bool:
    """A base named ``*TestCase`` (``unittest.TestCase``, ``IsolatedAsyncioTestCase``, a project's)."""
    return any(_last_name(b).endswith("TestCase") for b in node.bases)


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _dump(node: ast.AST | None) -> str:
    return "" if node is None else ast.dump(node)


def _guard(parent: ast.AST, child: ast.AST) -> tuple[str, ...]:
    """What ``parent`` adds to the condition under which ``child`` runs (nothing for most nodes)."""
    rule = next((r for kinds, r in _GUARDS if isinstance(parent, kinds)), None)
    guard = rule(parent, child) if rule is not None else None
    return (f"{type(parent).__name__}:{guard}",) if guard is not None else ()


def _conditional(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.If | ast.While | ast.IfExp):
        return None
    if child is parent.test:
        return None
    return f"{'body' if _in(child, parent.body) else 'else'}:{_dump(parent.test)}"


def _loop(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return None
    return None if child is parent.iter else f"{_dump(parent.target)}:{_dump(parent.iter)}"


def _handler(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.ExceptHandler):
        return None
    return None if child is parent.type else _dump(parent.type)


def _try(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.Try | ast.TryStar):
        return None
    return "else" if _in(child, parent.orelse) else None


def _with(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.With | ast.AsyncWith):
        return None
    return ",".join(_dump(i.context_expr) for i in parent.items) if _in(child, parent.body) else None


def _short_circuit(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.BoolOp):
        return None
    index = next((i for i, v in enumerate(parent.values) if v is child), 0)
    before = parent.values[:index]
    return f"{type(parent.op).__name__}:" + ",".join(_dump(v) for v in before) if before else None


def _case(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.match_case):
        return None
    return None if child is parent.pattern else f"{_dump(parent.pattern)}:{_dump(parent.guard)}"


def _match(parent: ast.AST, child: ast.AST) -> str | None:
    if not isinstance(parent, ast.Match):
        return None
    return None if child is parent.subject else _dump(parent.subject)


def _definition(parent: ast.AST, child: ast.AST) -> str | None:
    return str(getattr(parent, "name", "lambda"))


_GUARDS: tuple[tuple[type | tuple[type, ...], Callable[[ast.AST, ast.AST], str | None]], ...] = (
    ((ast.If, ast.While, ast.IfExp), _conditional),
    ((ast.For, ast.AsyncFor, ast.comprehension), _loop),
    (ast.ExceptHandler, _handler),
    ((ast.Try, ast.TryStar), _try),
    ((ast.With, ast.AsyncWith), _with),
    (ast.BoolOp, _short_circuit),
    (ast.match_case, _case),
    (ast.Match, _match),
    ((ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef), _definition),
)


#: the guards :func:`_definition` writes: a definition nested between the test and the marker
_NESTED = ("FunctionDef:", "AsyncFunctionDef:", "Lambda:", "ClassDef:")


def _in(node: ast.AST, body: object) -> bool:
    return isinstance(body, list) and any(node is item for item in body)


@dataclass
class _MarkerReader:
    """Finds the markers inside one node, with their kind, condition and guards."""

    resolver: Resolver
    deselected: frozenset[str]
    derived: Derived = field(default_factory=Derived)

    def markers_in(
        self,
        root: ast.AST,
        guards: tuple[str, ...],
        in_body: bool = False,
        own: tuple[ast.AST, ...] | None = None,
        cases: dict[int, str] | None = None,
    ) -> list[Marker]:
        """The markers in ``root``. ``own``: ``root`` runs when the test (or class, or module) is
        defined, and only a mark in one of these places marks it; any other marker there reaches
        beyond it (it runs at import: ``pytest.skip(allow_module_level=True)`` in a default skips
        the whole file; ``pytest.mark.skip(test_old)`` in a decorator's argument marks another test).
        ``cases``: the marks of ``pytest.param(..., marks=...)`` cases (:meth:`case_marks`), which
        mark that case only: their kind says so and their condition holds the case's values."""
        found: list[Marker] = []
        cases = cases or {}
        stack: list[tuple[ast.AST, tuple[str, ...]]] = [(root, guards)]
        while stack:
            node, where = stack.pop()
            marker, skip_child = self._marker(node, where, in_body)
            if marker is not None and id(node) in cases:
                marker = replace(
                    marker,
                    kind=f"case:{marker.kind}",
                    condition=f"{marker.condition}\0{cases[id(node)]}",
                    reaches_out=not self._marks_itself(node, (node,)),
                )
            elif marker is not None and own is not None and not self._marks_itself(node, own):
                marker = replace(marker, reaches_out=True)
            if marker is not None:
                found.append(marker)
            for child in ast.iter_child_nodes(node):
                if child is not skip_child and not (marker is not None and skip_child is None):
                    stack.append((child, where + _guard(node, child)))
        return found

    def _marker(
        self, node: ast.AST, guards: tuple[str, ...], in_body: bool
    ) -> tuple[Marker | None, ast.AST | None]:
        """The marker ``node`` is, and the child not to look into (a call's function)."""
        if isinstance(node, ast.Call):
            api = self._api(node.func)
            if api is None:
                return None, None
            return self._make(api, node, _condition(api, node), guards, in_body), node.func
        if isinstance(node, ast.Attribute | ast.Name):
            if not isinstance(node.ctx, ast.Load):
                return None, None  # a name being bound (``pytestmark = ...``) marks nothing itself
            api = self._api(node)
            return (self._make(api, node, "", guards, in_body), None) if api else (None, None)
        return None, None

    def _make(
        self, api: str, node: ast.AST, condition: str, guards: tuple[str, ...], in_body: bool
    ) -> Marker:
        start, end = _lines(node)
        reaches = in_body and (api.startswith(DECORATOR_APIS) or api in DECORATOR_APIS_EXACT)
        kind = marker_kind(api) or f"mark:{api}"
        target = node.func if isinstance(node, ast.Call) else node
        # skipTest: any object's; a name bound only to importorskip's result reads as the parent's did
        imported = self.derived.through_imported(target)  # a use of the module importorskip returned
        opaque = api != "TestCase.skipTest" and self.derived.hides(target) and not imported
        module_level = isinstance(node, ast.Call) and any(
            k.arg == "allow_module_level" for k in node.keywords
        )
        nested = not imported and any(g.startswith(_NESTED) for g in guards)
        condition = "\0".join((condition, *guards))
        return Marker(kind, condition, start, end, reaches, opaque, module_level, nested)

    def case_marks(self, decorator: ast.AST) -> dict[int, str]:
        """The marks given to one case of a parametrized test, ``pytest.param(2, marks=M)`` (M, or
        each item of a list or tuple M), by node, with the case's values as a syntax-tree dump: a
        skip of case 2 is not a skip of the test, nor of case 1."""
        found: dict[int, str] = {}
        for node in ast.walk(decorator):
            if not (isinstance(node, ast.Call) and "pytest.param" in self.resolver.resolve(node.func)):
                continue
            values = "|".join(_dump(arg) for arg in node.args)
            for keyword in node.keywords:
                if keyword.arg == "marks":
                    marks = keyword.value
                    items = marks.elts if isinstance(marks, ast.List | ast.Tuple) else [marks]
                    found.update({id(item): values for item in items})
        return found

    def _marks_itself(self, node: ast.AST, own: tuple[ast.AST, ...]) -> bool:
        if not any(node is place for place in own):
            return False
        target = node.func if isinstance(node, ast.Call) else node
        api = self._api(target) if isinstance(target, ast.expr) else None
        return api is not None and _applies_to_what_it_decorates(api, node)

    def _api(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Attribute) and node.attr == "skipTest":
            return "TestCase.skipTest"
        for qualified in sorted(self.resolver.resolve(node)):
            api = listed_api(qualified)
            if api:
                return api
            name = qualified.removeprefix("pytest.mark.")
            if qualified.startswith("pytest.mark.") and name in self.deselected:
                return qualified
        return None


def marker_kind(api: str) -> str | None:
    """skip, xfail or exit for a listed API (None: one whose kind cannot be told)."""
    if api in PYTEST_KINDS:
        return PYTEST_KINDS[api]
    for module in ("_pytest.outcomes.", "_pytest.skipping."):
        if api.startswith(module):
            return OUTCOME_KINDS.get(api.removeprefix(module).split(".", 1)[0])
    last = api.rsplit(".", 1)[-1]
    if api.startswith("unittest") or api == "TestCase.skipTest":
        return XFAIL if last == "expectedFailure" else SKIP
    return None


def _condition(api: str, call: ast.Call) -> str:
    """A conditional marker's condition as a syntax-tree dump (reasons and messages left out)."""
    keyword = {k.arg: k.value for k in call.keywords if k.arg}
    parts: list[ast.expr | None]
    if api in PYTEST_CONDITIONAL:
        parts = [*call.args, keyword.get("condition")]
    elif api.endswith(".skipIf"):
        parts = [call.args[0] if call.args else keyword.get("condition")]
    elif api.endswith(".skipUnless"):
        given = call.args[0] if call.args else keyword.get("condition")
        parts = [ast.UnaryOp(ast.Not(), given) if given is not None else None]
    elif api.endswith("importorskip"):
        parts = [*call.args[:2], keyword.get("modname"), keyword.get("minversion"), keyword.get("exc_type")]
    else:
        return ""
    return "|".join(_dump(p) for p in parts if p is not None)
