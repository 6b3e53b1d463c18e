"""Contract v3.2: rebinding the syntax cannot name (oracle_gate.judge.rebinding, rebinding_sites, modules)."""

from __future__ import annotations

import pytest

from oracle_gate.judge.changes import ChangeSet
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.modules import ModuleIndex
from oracle_gate.judge.observer_rules import parse_parent_files
from oracle_gate.judge.policy import DEFAULT_TESTS
from oracle_gate.judge.rebinding import (
    dynamic_rebinding_sites,
    modules_to_read,
    needs_module_index,
    with_dynamic_rebinding,
)
from oracle_gate.judge.rebinding_sites import ModuleWrite, rebinding_sites
from oracle_gate.judge.verdict import Evidence, Verdict, evaluate
from tests.support.factories import Edit, added, change_set, dedent, evidence, freeze_of, modified, observed

TESTS = GlobSet(DEFAULT_TESTS)
RETRY = "src/pkg/retry.py"
RETRY_PY = dedent(
    """
    import time


    def frozen_only(x):
        return x * 3


    def live(x):
        return x + 1
    """
).encode()
FROZEN_LINES = [4, 5]  # def frozen_only .. its return
LIVE_LINES = [8, 9]
INDEX = ModuleIndex(frozenset({RETRY, "src/pkg/__init__.py", "src/pkg/other.py", "tools/x.py"}))


def between_functions(code: str) -> bytes:
    """RETRY_PY with ``code`` inserted on the blank lines between the two functions."""
    return RETRY_PY.replace(b"    return x * 3\n\n", b"    return x * 3\n\n" + code.encode() + b"\n")


def sites(source: str) -> tuple[list[tuple[str, str]], list[str]]:
    blob = dedent(source).encode()
    found = rebinding_sites(blob, frozenset(range(1, blob.count(b"\n") + 2)))
    counted = [o.what for o in found.opaque if o.module is None or INDEX.resolve(o.module, "src/pkg/m.py")]
    return [(w.module, w.name) for w in found.writes], counted


def judged(
    changes: ChangeSet, index: ModuleIndex = INDEX, blobs: dict[str, bytes | None] | None = None
) -> Verdict:
    """What ``oracle_gate.check.gather`` does for v3.2, then the verdict (frozen_only is frozen-only)."""
    parents = parse_parent_files(changes)
    changes = with_dynamic_rebinding(changes, TESTS, index, blobs or {RETRY: RETRY_PY}, parents)
    coverage = observed({RETRY: {5: ["t::frozen"], 9: ["t::live"]}})
    base = evidence(changes, coverage=coverage, freeze=freeze_of("t::frozen"))
    return evaluate(Evidence(**{**base.__dict__, "modules": index, "parents": parse_parent_files(changes)}))


# -- the evasions, on blank lines between functions ------------------------------------------

IN_FILE_EVASIONS = {
    "globals": "globals()['frozen_only'] = live",
    "sys.modules": "import sys\nsetattr(sys.modules[__name__], 'frozen_only', live)",
    "exec": "exec('def frozen_only(x): return x')",
    "__code__": "frozen_only.__code__ = (lambda x: x).__code__",
}


@pytest.mark.parametrize("code", IN_FILE_EVASIONS.values(), ids=IN_FILE_EVASIONS.keys())
def test_each_in_file_evasion_touches_every_definition_and_is_dynamic_rebinding(code: str) -> None:
    v = judged(change_set(modified(RETRY, RETRY_PY, between_functions(code))))
    assert v.verdict == "unscored"
    assert {str(c) for c in v.codes} == {"freeze_overlap", "dynamic_rebinding"}
    assert set(FROZEN_LINES + LIVE_LINES) <= set(v.touched[RETRY])
    assert v.overlap == {RETRY: FROZEN_LINES}
    reason = next(r for r in v.reasons if r.code == "dynamic_rebinding")
    assert (reason.path, reason.line) == (RETRY, 7 + code.count("\n"))  # the write's own line


def test_a_module_attribute_written_from_another_module_touches_that_definition() -> None:
    other = "src/pkg/other.py"
    changes = change_set(added(other, b"from pkg import retry\n\nretry.frozen_only = retry.live\n"))
    assert modules_to_read(changes, TESTS, INDEX) == [RETRY]
    v = judged(changes)
    assert (v.verdict, [str(c) for c in v.codes]) == ("unscored", ["freeze_overlap"])
    assert v.touched == {RETRY: FROZEN_LINES}
    assert v.overlap == {RETRY: FROZEN_LINES}


@pytest.mark.parametrize(
    "code",
    [
        "import pkg.retry\npkg.retry.frozen_only = None",
        "import pkg.retry as r\nr.frozen_only = None",
        "from . import retry\nretry.frozen_only = None",
        "from pkg import retry\ndel retry.frozen_only",
        "from pkg import retry\nsetattr(retry, 'frozen_only', None)",
        "from pkg import retry\ndelattr(retry, 'frozen_only')",
        "import importlib\nr = importlib.import_module('pkg.retry')\nr.frozen_only = None",
        "r = __import__('pkg.retry')\nr.retry.frozen_only = None",
        "from pkg import retry\ndef patch():\n    retry.frozen_only += 1",
    ],
)
def test_module_writes_in_every_spelling_touch_the_definition(code: str) -> None:
    v = judged(change_set(added("src/pkg/other.py", code.encode() + b"\n")))
    assert v.touched.get(RETRY) == FROZEN_LINES, code
    assert "dynamic_rebinding" not in v.codes


def test_setattr_on_a_module_with_a_computed_name_is_dynamic_rebinding() -> None:
    code = b"from pkg import retry\nfor name in ('frozen_only',):\n    setattr(retry, name, None)\n"
    v = judged(change_set(modified("src/pkg/other.py", b"x = 1\n", b"x = 1\n" + code)))
    assert "dynamic_rebinding" in v.codes


def test_setattr_with_a_computed_name_on_an_object_is_ordinary_code() -> None:
    code = b"class A:\n    def __init__(self, **kw):\n        for k, v in kw.items():\n"
    code += b"            setattr(self, k, v)\n"
    v = judged(change_set(modified("src/pkg/other.py", b"x = 1\n", b"x = 1\n" + code)))
    assert v.codes == ["live_surface_covers_diff"]


def test_a_test_file_is_not_judged_for_rebinding() -> None:
    code = b"from pkg import retry\nretry.frozen_only = None\nexec('x = 1')\n"
    v = judged(change_set(added("tests/test_other.py", code)))
    assert RETRY not in v.touched
    assert "dynamic_rebinding" not in v.codes


def test_a_module_that_is_not_a_parent_file_touches_nothing() -> None:
    v = judged(change_set(added("src/pkg/other.py", b"import os\nos.getcwd = None\n")))
    assert v.touched == {}
    assert v.codes == ["live_surface_covers_diff"]


def test_a_name_the_parent_module_does_not_define_with_def_or_class_touches_nothing() -> None:
    v = judged(change_set(added("src/pkg/other.py", b"from pkg import retry\nretry.time = None\n")))
    assert v.touched == {}


def test_an_added_file_with_exec_has_no_parent_definitions_but_is_reported() -> None:
    v = judged(change_set(added("src/pkg/new.py", b"exec('x = 1')\n")))
    assert v.touched == {}
    assert v.verdict == "unscored"
    assert "dynamic_rebinding" in v.codes


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("globals().update(f=g)", "writes through globals()/vars()"),
        ("g = globals()\ng['f'] = 1", "writes through globals()/vars()"),
        ("vars()['f'] = 1", "writes through globals()/vars()"),
        ("import sys\nsys.modules['pkg.retry'] = object()", "writes through sys.modules"),
        ("import sys\nsys.modules[__name__].f = g", "writes through sys.modules"),
        ("import builtins\nbuiltins.open = g", "writes through builtins"),
        ("__builtins__['open'] = g", "writes through builtins"),
        ("f.__defaults__ = (1,)", "assigns __defaults__"),
        ("obj.__class__ = Other", "assigns __class__"),
        ("setattr(f, '__code__', g.__code__)", "sets __code__"),
        ("eval('1 + 1')", "calls eval"),
        ("import builtins\nbuiltins.exec('x = 1')", "calls exec"),
        ("object.__setattr__(sys.modules[__name__], 'f', g)", "writes through sys.modules"),
    ],
)
def test_the_writes_the_gate_cannot_name(source: str, expected: str) -> None:
    assert expected in sites(source)[1], source


@pytest.mark.parametrize(
    "source",
    [
        "self.x = 1",
        "obj.f = g",  # obj is not bound by an import
        "self.__dict__.update(kw)",
        "x = globals().get('f')",
        "if 'f' in globals():\n    pass",
        "model.eval()",
        "d = {}\nd['f'] = 1",
        "import os\nos.environ['X'] = '1'",  # an item of a module's object, not a name of the module
    ],
)
def test_ordinary_code_is_not_a_rebinding_site(source: str) -> None:
    assert sites(source) == ([], []), source


def test_module_writes_are_found_with_the_module_as_the_file_names_it() -> None:
    blob = b"from .. import retry\nretry.f = 1\n"
    assert rebinding_sites(blob, frozenset({2})).writes == (ModuleWrite(2, "..retry", "f"),)


def test_an_unchanged_write_is_not_a_site() -> None:
    assert rebinding_sites(b"import retry\nretry.f = 1\nx = 2\n", frozenset({3})).writes == ()


def test_dynamic_rebinding_sites_report_one_reason_per_line() -> None:
    changes = change_set(added("src/pkg/new.py", b"exec('a'); eval('b')\nexec('c')\n"))
    assert [(p, n) for p, n, _ in dynamic_rebinding_sites(changes, TESTS, INDEX)] == [
        ("src/pkg/new.py", 1),
        ("src/pkg/new.py", 2),
    ]


# -- module resolution ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "importer", "paths", "expected"),
    [
        ("pkg.retry", "x.py", {"src/pkg/retry.py"}, "src/pkg/retry.py"),
        ("pkg.retry", "x.py", {"pkg/retry.py", "src/pkg/retry.py"}, "pkg/retry.py"),  # root first
        ("pkg", "x.py", {"pkg/__init__.py", "pkg.py"}, "pkg/__init__.py"),  # package before module
        ("a", "x.py", {"lib/src/a.py", "src/a.py"}, "src/a.py"),  # shallowest src first
        ("a", "x.py", {"b/src/a.py", "a/src/a.py"}, "a/src/a.py"),  # then in path order
        (".retry", "src/pkg/other.py", {"src/pkg/retry.py"}, "src/pkg/retry.py"),
        ("..util", "src/pkg/sub/m.py", {"src/pkg/util.py"}, "src/pkg/util.py"),
        (".", "src/pkg/m.py", {"src/pkg/__init__.py"}, "src/pkg/__init__.py"),
        ("....x", "a/b.py", {"x.py"}, None),  # above the root
        ("retry", "x.py", {"lib/retry.py"}, None),  # neither at the root nor in a src directory
        ("os", "x.py", set(), None),
    ],
)
def test_module_resolution(name: str, importer: str, paths: set[str], expected: str | None) -> None:
    assert ModuleIndex(frozenset(paths)).resolve(name, importer) == expected


def test_a_top_level_module_of_the_parent() -> None:
    index = ModuleIndex(frozenset({"src/gate/__init__.py", "tools/x.py"}))
    assert index.has_top_level("gate")
    assert not index.has_top_level("tools.x")
    assert not ModuleIndex(frozenset({"lib/gate/__init__.py"})).has_top_level("gate")
    assert ModuleIndex(frozenset({"gate.py"})).has_top_level("gate")


def test_a_function_rebinding_a_global_name_touches_that_definition() -> None:
    """Not in the contract's letter (README choice): rule 6's rebinding, done from inside a function."""
    code = "def _init():\n    global frozen_only\n    frozen_only = live\n"
    v = judged(change_set(modified(RETRY, RETRY_PY, RETRY_PY + b"\n\n" + code.encode())))
    assert v.overlap == {RETRY: FROZEN_LINES}
    assert "dynamic_rebinding" not in v.codes


def test_a_local_of_the_same_name_is_not_a_global_write() -> None:
    code = "def _init():\n    frozen_only = 1\n    return frozen_only\n"
    v = judged(change_set(modified(RETRY, RETRY_PY, RETRY_PY + b"\n\n" + code.encode())))
    assert v.overlap == {}


@pytest.mark.parametrize(
    ("edit", "needed"),
    [
        (added("src/pkg/other.py", b"from pkg import retry\nretry.f = None\n"), True),
        (added("src/pkg/other.py", b"from pkg import retry\nsetattr(retry, name, None)\n"), True),
        (added("tests/test_x.py", b"import oracle_gate\n"), True),  # the gate's package: the parent's own?
        (added("src/pkg/other.py", b"exec('x')\n"), False),  # unconditional: no lookup needed
        (added("src/pkg/other.py", b"x = 1\n"), False),
        (added("tests/test_x.py", b"from pkg import retry\nretry.f = None\n"), False),  # a test file
    ],
)
def test_the_parent_tree_is_listed_only_when_a_rule_needs_it(edit: Edit, needed: bool) -> None:
    assert needs_module_index(change_set(edit), TESTS) is needed
