"""Contract v3.1: skip and exit markers read from the syntax tree (oracle_gate.judge.syntax_markers)."""

from __future__ import annotations

import pytest

from oracle_gate.judge.policy import Policy
from oracle_gate.judge.syntax_markers import listed_api, syntax_markers
from tests.support.factories import added, dedent, judge, lines, modified

TEST_PARENT = dedent(
    """
    import pytest


    def test_live():
        assert 1 + 1 == 2
    """
)


def skipping_test(*body: str, header: str = "") -> bytes:
    """The parent test file with ``header`` lines on top and ``body`` lines added to ``test_live``."""
    text = header + TEST_PARENT.replace("    assert 1 + 1 == 2\n", "".join(f"    {b}\n" for b in body))
    return (text + "    assert 1 + 1 == 2\n").encode()


def markers_of(source: str, added_lines: list[int] | None = None) -> list[tuple[int, str]]:
    blob = dedent(source).encode()
    found = syntax_markers(blob, added_lines or list(range(1, blob.count(b"\n") + 2)))
    assert found is not None
    return found


# -- the issue's evasions: the text rule cannot read them, the syntax tree can ----------------------

EVASIONS = {
    "skip.Exception": skipping_test("raise pytest.skip.Exception('not today')"),
    "_pytest alias": skipping_test("x('not today')", header="from _pytest.outcomes import skip as x\n"),
    "Skipped": skipping_test("raise Skipped('not today')", header="from _pytest.outcomes import Skipped\n"),
    "computed getattr": skipping_test("getattr(pytest, 'sk' + 'ip')('not today')"),
    "__import__": skipping_test("__import__('pytest').skip('not today')"),
}


@pytest.mark.parametrize("head", EVASIONS.values(), ids=EVASIONS.keys())
def test_each_evasion_of_the_issue_is_skip_marker_added(head: bytes) -> None:
    """On v2 these scored pass_clean (the test's new line is observed by nobody in the empty map)."""
    v = judge(modified("tests/test_x.py", TEST_PARENT.encode(), head))
    assert (v.verdict, [str(c) for c in v.codes]) == ("fail", ["skip_marker_added"])


@pytest.mark.parametrize("head", EVASIONS.values(), ids=EVASIONS.keys())
def test_each_evasion_counts_in_a_source_file_too(head: bytes) -> None:
    v = judge(modified("src/pkg/helpers.py", TEST_PARENT.encode(), head))
    assert "skip_marker_added" in v.codes


def test_forbid_skip_markers_false_turns_the_syntax_rule_off_too() -> None:
    v = judge(
        modified("tests/test_x.py", TEST_PARENT.encode(), EVASIONS["Skipped"]),
        policy=Policy(forbid_skip_markers=False),
    )
    assert "skip_marker_added" not in v.codes


@pytest.mark.parametrize(
    "source",
    [
        "import pytest as p\np.skip('x')",
        "from pytest import skip as s\ns('x')",
        "from pytest import mark\n@mark.xfail\ndef test(): pass",
        "import pytest\nm = pytest.mark\n@m.skipif(True, reason='x')\ndef test(): pass",
        "import pytest\nsk = pytest.skip\nsk('x')",
        "import pytest\nsk, other = pytest.skip, 1\nsk('x')",
        "import pytest\nsk = [pytest.skip][0]\nsk('x')",
        "import pytest\nx = pytest.exit.Exception",
        "import pytest\npytest.importorskip('numpy')",
        "import pytest\nraise pytest.xfail.Exception('x')",
        "from unittest import SkipTest as S\nraise S('x')",
        "import unittest\n@unittest.skipUnless(False, 'x')\ndef test(): pass",
        "import unittest.case\nraise unittest.case.SkipTest('x')",
        "from unittest import case\n@case.expectedFailure\ndef test(): pass",
        "class T:\n    def test_a(self):\n        self.skipTest('x')",
        "import sys\nsys.modules['pytest'].skip('x')",
        "import importlib\nimportlib.import_module('pytest')",
        "import pytest\ngetattr(pytest, name)('x')",
        "import pytest\npytest.__dict__['sk' + 'ip']('x')",
        "import pytest\nvars(pytest)['skip']('x')",
        "from unittest import TestCase\ngetattr(TestCase, 'skip' + 'Test')",
        "import _pytest",
        "import _pytest.outcomes as o",
        "from _pytest import skipping",
        "from pytest import *\nskip('x')",
        "import pytest\ndef f(s=pytest.skip):\n    s('x')",
        "import pytest\nclass H:\n    s = pytest.skip\nH().s('x')",
        "import pytest\ngetattr(pytest, 'skip')('x')",
        "import pytest\npytest.mark.__getattr__(name)",
        "import pytest\nclass MySkip(pytest.skip.Exception):\n    pass\nraise MySkip('x')",
        "import functools, pytest\nlater = functools.partial(pytest.skip, 'x')\nlater()",
    ],
)
def test_references_resolved_through_aliases_are_markers(source: str) -> None:
    assert markers_of(source), source


def test_a_subclass_of_a_skip_exception_defined_on_an_old_line_counts_where_it_is_raised() -> None:
    source = "import pytest\n\n\nclass MySkip(pytest.skip.Exception):\n    pass\n\n\nraise MySkip('x')\n"
    assert markers_of(source, [8]) == [(8, "pytest.skip")]
    assert markers_of("class Plain(Exception):\n    pass\nraise Plain()\n", [3]) == []


def test_a_marker_used_on_an_added_line_counts_through_an_alias_bound_on_an_old_line() -> None:
    source = "import pytest\nsk = pytest.skip\n\n\ndef test_x():\n    sk('x')\n"
    assert markers_of(source, [6]) == [(6, "pytest.skip")]
    assert markers_of(source, [5]) == []  # the def line refers to nothing listed


@pytest.mark.parametrize(
    "source",
    [
        "import pytest\npytest.raises(ValueError)",
        "import pytest\n@pytest.mark.parametrize('x', [1])\ndef test(x): pass",
        "import pytest\ngetattr(pytest, 'raises')",  # a literal naming something outside the list
        "import pytest\ngetattr(pytest.mark, 'parametrize')",
        "import unittest\nclass T(unittest.TestCase):\n    pass",
        "if mode == 'skip':\n    pass",
        "def skip(x):\n    return x\nskip(1)",  # the file's own skip, not pytest's
        "import importlib\nimportlib.import_module(name)",  # a computed module name: plugin loaders
        "import importlib\nimportlib.import_module('json')",
        "import pytest",
        "import unittest",
        "from . import skip\nskip()",  # a relative import is the project's own
    ],
)
def test_ordinary_code_is_not_a_marker(source: str) -> None:
    assert markers_of(source) == [], source


def test_a_file_that_does_not_parse_is_left_to_the_text_rule() -> None:
    assert syntax_markers(b"def broken(:\n    raise Skipped()\n", [1, 2]) is None
    v = judge(modified("tests/test_x.py", b"x = 1\n", b"x = 1\ndef (:\n    pytest.skip('x')\n"))
    assert "skip_marker_added" in v.codes  # the v2 text rule still reads it


def test_only_added_lines_are_checked() -> None:
    head = dedent(
        """
        from _pytest.outcomes import Skipped


        def test_a():
            raise Skipped()
        """
    ).encode()
    v = judge(modified("tests/test_x.py", head, head + b"\n\ndef test_b():\n    assert True\n"))
    assert v.verdict == "pass_clean"


def test_a_line_the_text_rule_flags_is_reported_once() -> None:
    v = judge(added("tests/test_x.py", lines("import pytest", "pytest.skip('x')")))
    assert [r.line for r in v.reasons if r.code == "skip_marker_added"] == [2]


@pytest.mark.parametrize(
    ("qualified", "api"),
    [
        ("pytest.skip", "pytest.skip"),
        ("pytest.skip.Exception", "pytest.skip"),
        ("pytest.mark.skipif", "pytest.mark.skipif"),
        ("_pytest.outcomes.Exit", "_pytest.outcomes.Exit"),
        ("unittest.skipIf", "unittest.skipIf"),
        ("unittest.case.SkipTest", "unittest.case.SkipTest"),
        ("unittest.TestCase.skipTest", "TestCase.skipTest"),
        ("pytest.skipper", None),
        ("pytest.mark.skipping", None),
        ("unittest.TestCase", None),
        ("pytest.fail", None),
    ],
)
def test_the_listed_apis(qualified: str, api: str | None) -> None:
    assert listed_api(qualified) == api


def test_a_namespace_read_with_a_literal_naming_something_outside_the_list_is_not_a_marker() -> None:
    assert markers_of("import pytest\npytest.__dict__['raises']") == []
    assert markers_of("import pytest\nvars(pytest)['raises']") == []
    assert markers_of("import pytest\npytest.__dict__['skip']") == [(2, "pytest.skip")]
    assert markers_of("import pytest\npytest.__dict__.get('raises')") != []  # not a literal key


def test_dunder_import_binds_the_top_package_unless_given_a_fromlist() -> None:
    assert markers_of("o = __import__('_pytest.outcomes')\n\n\n\no.skip('x')", [5]) == []
    source = "o = __import__('_pytest.outcomes', None, None, ['skip'])\n\n\n\no.skip('x')"
    assert markers_of(source, [5]) == [(5, "_pytest.outcomes.skip")]


def test_deep_chains_are_bounded_not_a_crash() -> None:
    """Hostile input: attribute and subscript chains far deeper than any resolver limit."""
    n = 900
    source = f"import pytest\nsk = pytest\nx = sk{'.a' * n}\ny = sk{'[0]' * n}\nsk.skip()\n"
    assert syntax_markers(source.encode(), [1, 2, 3, 4, 5]) == [(5, "pytest.skip")]


# -- issue 30, 8: the module object itself, used other than as module.attribute -------------------

MODULE_ESCAPES = {
    "in a container": skipping_test("mods = [pytest]", "mods[0].skip('not today')"),
    "returned from a helper": skipping_test(
        "helper().skip('not today')", header="import pytest as _p\n\n\ndef helper():\n    return _p\n\n\n"
    ),
    "passed to a function": skipping_test("(lambda m: m.skip('not today'))(pytest)"),
    "unittest in a dict": skipping_test("{'u': unittest}['u'].SkipTest", header="import unittest\n"),
}


@pytest.mark.parametrize("head", MODULE_ESCAPES.values(), ids=MODULE_ESCAPES.keys())
def test_a_skip_module_used_as_a_value_is_skip_marker_added(head: bytes) -> None:
    v = judge(modified("tests/test_x.py", TEST_PARENT.encode(), head))
    assert (v.verdict, [str(c) for c in v.codes]) == ("fail", ["skip_marker_added"])


def test_the_module_used_through_its_attributes_is_no_marker() -> None:
    source = """
        import pytest
        import unittest


        @pytest.fixture
        def f():
            assert getattr(pytest, "approx") and hasattr(unittest, "TestCase")
            return pytest.approx(1.0), isinstance(1, unittest.TestCase), pytest.mark.slow
    """
    assert markers_of(source) == []


def test_a_list_of_parametrize_cases_is_data_not_the_module_hidden() -> None:
    """pluggy 5d7bd2cc0 (an honest commit the history sweep stopped): ``[pytest.param(...)]`` resolves
    to ``pytest.param`` and ``pytest``; passing it to ``parametrize`` is no module used as a value."""
    source = """
        import pytest

        _funcs = [
            pytest.param(1, id="a"),
        ]


        @pytest.mark.parametrize("func", _funcs)
        def test_x(func):
            pass
    """
    assert markers_of(source) == []
    aliased = "import pytest\nsk = pytest\n\n\ndef helper(m):\n    return m\n\n\nhelper(sk)\n"
    assert markers_of(aliased) == [
        (9, "the pytest module used as a value (in a container, returned or passed), not as pytest.name")
    ]
