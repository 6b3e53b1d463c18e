"""SCORING.md v2, 2.2 in one process: the namespace watch (oracle_gate.score.watch_namespaces) on a
module that uses every ordinary way of binding a definition (decorators with and without
``functools.wraps``, ``lru_cache``, dataclasses, enum, ``typing.overload``, properties) raises
nothing, and sees each rebinding spelling: in the file's own body, and afterwards."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_gate.score.watch_namespaces import NamespaceWatch, WatchingFinder, install

ORDINARY = """\
from __future__ import annotations

import dataclasses
import enum
import functools
import typing


def deco(f):
    def inner(*a):
        return f(*a)

    return inner


@deco
def plain_deco(x):
    return x


@functools.lru_cache
def cached(x: int) -> int:
    return x


@functools.wraps(cached)
def wrapped(x):
    return x


@dataclasses.dataclass
class D:
    a: int = 1

    def m(self) -> int:
        return self.a

    @property
    def p(self):
        return 1

    @p.setter
    def p(self, value):
        pass

    @staticmethod
    def s():
        return 2

    @classmethod
    def k(cls):
        return 3

    @functools.cached_property
    def c(self):
        return 4


class Color(enum.Enum):
    RED = 1

    def describe(self):
        return self.name


@typing.overload
def over(x: int) -> int: ...
@typing.overload
def over(x: str) -> str: ...
def over(x):
    return x


try:
    from json import loads as fast
except ImportError:
    def fast(x):
        return x


def later():
    global rebound_by_text
    rebound_by_text = 1


def rebound_by_text():
    return 0


later()
"""


@pytest.fixture
def watch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NamespaceWatch]:
    monkeypatch.syspath_prepend(str(tmp_path))
    watching = install(tmp_path, lambda path: path.startswith("tests/"))
    before = set(sys.modules)
    try:
        yield watching
    finally:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, WatchingFinder)]
        for name in set(sys.modules) - before:
            del sys.modules[name]


def write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def found(watch: NamespaceWatch) -> list[tuple[str, str, str]]:
    return [(r.module, r.name, r.when) for r in watch.found]


def test_ordinary_definitions_raise_nothing(watch: NamespaceWatch, tmp_path: Path) -> None:
    write(tmp_path, "wpkg/__init__.py", "")
    write(tmp_path, "wpkg/ordinary.py", ORDINARY)
    module = importlib.import_module("wpkg.ordinary")
    watch.checkpoint("the end of collection")
    assert module.over(1) == 1
    assert watch.found == []
    assert set(watch.snapshots) == {"wpkg", "wpkg.ordinary"}


@pytest.mark.parametrize(
    ("tail", "name"),
    [
        ("import importlib\nimportlib.import_module(__name__).frozen_only = _evil\n", "frozen_only"),
        ("[globals()][0]['frozen' + '_only'] = _evil\n", "frozen_only"),
        ("def _ns():\n    return globals()\n\n\n_ns()['frozen_only'] = _evil\n", "frozen_only"),
        ("Calc.method = lambda self: 2\n", "Calc.method"),
        ("Calc.method = _evil\n", "Calc.method"),
    ],
    ids=["import-module-name", "globals-in-a-list", "globals-from-a-function", "method-lambda", "method"],
)
def test_each_spelling_in_the_files_own_body_is_seen(
    watch: NamespaceWatch, tmp_path: Path, tail: str, name: str
) -> None:
    body = (
        "def frozen_only(x):\n    return x * 3\n\n\ndef _evil(x):\n    return 0\n\n\n"
        "class Calc:\n    def method(self):\n        return 1\n\n\n"
    )
    write(tmp_path, "wmod.py", body + tail)
    importlib.import_module("wmod")
    assert found(watch) == [("wmod", name, "its own body")]


def test_a_rebinding_after_the_body_ran_is_seen_at_the_checkpoint(
    watch: NamespaceWatch, tmp_path: Path
) -> None:
    write(tmp_path, "wcore.py", "def f():\n    return 1\n\n\nclass C:\n    def m(self):\n        return 1\n")
    write(tmp_path, "tests/test_x.py", "")  # a test file: never watched
    module = importlib.import_module("wcore")
    original = vars(module)["f"]
    vars(module)["f"] = abs
    setattr(vars(module)["C"], "m", abs)  # noqa: B010 - the module's attributes are unknown to mypy
    watch.checkpoint("the end of collection")
    assert found(watch) == [
        ("wcore", "f", "the end of collection"),
        ("wcore", "C.m", "the end of collection"),
    ]
    vars(module)["f"] = original  # put back: nothing new at the next checkpoint, the finding stays
    watch.checkpoint("the end of the session")
    assert len(watch.found) == 2


def test_a_reloaded_module_takes_a_new_snapshot(watch: NamespaceWatch, tmp_path: Path) -> None:
    write(tmp_path, "wreload.py", "def f():\n    return 1\n")
    module = importlib.import_module("wreload")
    importlib.reload(module)
    watch.checkpoint("the end of the session")
    assert watch.found == []


def test_a_star_import_after_a_definition_may_bind_its_name(watch: NamespaceWatch, tmp_path: Path) -> None:
    write(tmp_path, "wstar.py", "def dumps(x):\n    return x\n\n\nfrom json import *  # noqa\n")
    importlib.import_module("wstar")
    watch.checkpoint("the end of the session")
    assert watch.found == []


def test_a_loader_shared_by_many_modules_snapshots_each_module_only_as_itself(tmp_path: Path) -> None:
    """pytest's assertion rewriter is the loader of every file it rewrites (with --doctest-modules the
    tree's own modules too): wrapping it for one module must not snapshot the next as that one."""
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import types

    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "other.py").write_text("def sub(a, b):\n    return a - b\n")

    class SharedLoader(importlib.abc.Loader):
        def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
            return None

        def exec_module(self, module: types.ModuleType) -> None:
            origin = str(getattr(module.__spec__, "origin", ""))
            exec(compile(Path(origin).read_text(), origin, "exec", dont_inherit=True), vars(module))  # noqa: S102

    loader = SharedLoader()
    watch = NamespaceWatch(tmp_path, lambda relative: False)
    finder = WatchingFinder(watch)
    for name in ("calc", "other"):
        spec = importlib.util.spec_from_loader(name, loader, origin=str(tmp_path / f"{name}.py"))
        assert spec is not None
        finder._wrap(spec)
    for name in ("calc", "other"):
        spec = importlib.util.spec_from_loader(name, loader, origin=str(tmp_path / f"{name}.py"))
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    assert watch.found == []
    assert set(watch.snapshots) == {"calc", "other"}
