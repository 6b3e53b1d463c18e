"""Red team of contract v3.8 rule 1 (skip markers per test): markers that reach beyond the test they
sit on, and markers whose condition the syntax cannot read. Each case failed on the code before its
fix (judged "not added") and is ``skip_marker_added`` now; the honest cases beside them stay green."""

from __future__ import annotations

import pytest

from tests.unit.test_contract_v38 import PARENT, appended, edited, judge_test_file

REACHING = {
    # Python evaluates a test's defaults, annotations and decorators when it defines the test: at import.
    "a new test's default skips the whole module": appended(
        """
        def test_new(_=pytest.skip("x", allow_module_level=True)):
            assert io.read()
        """
    ),
    "a new test's default marks an old test": appended(
        """
        def test_new(_=pytest.mark.skip(test_tell)):
            assert io.read()
        """
    ),
    "a new test's return annotation marks an old test": appended(
        """
        def test_new() -> pytest.mark.skip(test_tell):
            assert io.read()
        """
    ),
    "a mark inside a new test's decorator marks an old test": appended(
        """
        @pytest.mark.parametrize("x", [pytest.mark.skip(test_tell)])
        def test_new(x):
            assert io.read()
        """
    ),
    "an importorskip inside a new test's decorator skips the module": appended(
        """
        @pytest.mark.skipif(pytest.importorskip("no_such_module") is None, reason="x")
        def test_new():
            assert io.read()
        """
    ),
    "a new test decorated by an old test marked with unittest.skip": appended(
        """
        @unittest.skip(test_tell)
        def test_new(request):
            pass
        """
    ),
    "a new class's pytestmark marks an old test": appended(
        """
        class TestNew:
            pytestmark = [pytest.mark.skip(test_tell) and pytest.mark.xfail]

            def test_x(self):
                assert io.read()
        """
    ),
}

HIDDEN_CONDITION = {
    # The parent's marker reached through a name bound to a conditional mark read as unconditional.
    "an unconditional skip where a module pytestmark skipped on a condition": (
        PARENT + '\npytestmark = pytest.mark.skipif(sys.platform == "win32", reason="x")\n',
        ("def test_tell():", "@pytest.mark.skip\ndef test_tell():"),
    ),
    "an unconditional skip where a class pytestmark skipped on a condition": (
        edited(
            "class TestWrite(unittest.TestCase):\n",
            "class TestWrite(unittest.TestCase):\n    pytestmark = pytest.mark.skipif(io.slow, reason='x')\n",
        ),
        ("    def test_flush(self):", "    @pytest.mark.skip\n    def test_flush(self):"),
    ),
    "an unconditional skip where an alias skipped on a condition": (
        edited(
            '@pytest.mark.skipif(sys.platform == "win32", reason="no windows")\ndef test_read():',
            'win = pytest.mark.skipif(sys.platform == "win32", reason="x")\n\n\n@win\ndef test_read():',
        ),
        ("@win\ndef test_read", "@pytest.mark.skip\ndef test_read"),
    ),
}


@pytest.mark.parametrize("head", REACHING.values(), ids=REACHING.keys())
def test_a_new_tests_marker_that_runs_at_definition_and_reaches_beyond_it_counts(head: str) -> None:
    assert "skip_marker_added" in judge_test_file(head)


@pytest.mark.parametrize(("parent", "change"), HIDDEN_CONDITION.values(), ids=HIDDEN_CONDITION.keys())
def test_a_marker_reached_through_a_derived_name_equals_nothing(parent: str, change: tuple[str, str]) -> None:
    head = edited(*change, text=parent)
    assert "skip_marker_added" in judge_test_file(head, parent)


HONEST = {
    "a new test with a plain default and its own skip": appended(
        """
        @pytest.mark.skip("later")
        def test_new(mode="r") -> None:
            assert io.read(mode)
        """
    ),
    "a new test with a skipif and a reason": appended(
        """
        @pytest.mark.skipif(sys.platform == "win32", reason="posix")
        def test_new():
            assert io.read()
        """
    ),
}


@pytest.mark.parametrize("head", HONEST.values(), ids=HONEST.keys())
def test_a_new_tests_own_decorators_still_do_not_count(head: str) -> None:
    assert "skip_marker_added" not in judge_test_file(head)


def test_an_old_skip_test_re_wrapped_is_still_equal() -> None:
    parent = edited(
        "        self.assertTrue(io.flush())",
        "        self.skipTest('no')\n        self.assertTrue(io.flush())",
    )
    head = edited("self.skipTest('no')", "self.skipTest(\n            'no flush'\n        )", parent)
    assert "skip_marker_added" not in judge_test_file(head, parent)


def test_a_plain_alias_replaced_by_its_mark_is_still_equal() -> None:
    parent = edited(
        '@pytest.mark.skipif(sys.platform == "win32", reason="no windows")\ndef test_read():',
        "skip = pytest.mark.skip\n\n\n@skip\ndef test_read():",
    )
    head = edited("@skip\ndef test_read", "@pytest.mark.skip(reason='x')\ndef test_read", parent)
    assert "skip_marker_added" not in judge_test_file(head, parent)


def test_renaming_a_pytestmark_list_into_pytestmark_counts() -> None:
    """``marks = [...]`` renamed ``pytestmark = [...]``: only the first line is added, and it marks."""
    parent = PARENT + "\nmarks = [\n    pytest.mark.skip,\n]\n"
    head = parent.replace("marks = [", "pytestmark = [")
    assert "skip_marker_added" in judge_test_file(head, parent)


PARAMETRIZED = appended(
    """
    @pytest.mark.parametrize("v", [1, pytest.param(2, marks=pytest.mark.skip)])
    def test_param(v):
        assert io.seek(v)
    """
)


def test_a_whole_test_skipped_where_the_parent_skipped_one_case_counts() -> None:
    """A ``pytest.param(2, marks=skip)`` skips case 2, not ``test_param``: skipping every case is new."""
    head = edited(
        '@pytest.mark.parametrize("v"', '@pytest.mark.skip\n@pytest.mark.parametrize("v"', PARAMETRIZED
    )
    assert "skip_marker_added" in judge_test_file(head, PARAMETRIZED)


def test_a_case_mark_moved_to_another_case_counts() -> None:
    head = edited(
        "[1, pytest.param(2, marks=pytest.mark.skip)]",
        "[pytest.param(1, marks=pytest.mark.skip), 2]",
        PARAMETRIZED,
    )
    assert "skip_marker_added" in judge_test_file(head, PARAMETRIZED)


def test_a_case_mark_re_wrapped_and_a_new_tests_case_marks_do_not_count() -> None:
    head = edited(
        "[1, pytest.param(2, marks=pytest.mark.skip)]",
        "[\n        1,\n        pytest.param(2, marks=[pytest.mark.skip]),\n    ]",
        PARAMETRIZED,
    )
    assert "skip_marker_added" not in judge_test_file(head, PARAMETRIZED)
    new = appended(
        """
        @pytest.mark.parametrize("v", [1, pytest.param(2, marks=[pytest.mark.xfail(reason="bug")])])
        def test_new_param(v):
            assert io.seek(v)
        """
    )
    assert "skip_marker_added" not in judge_test_file(new)


FIXTURES = {
    "a fixture decorator aliased": appended(
        """
        fx = pytest.fixture


        @fx(autouse=True)
        def test_setup():
            pytest.skip("later")
        """
    ),
    "a fixture decorator through functools.partial": appended(
        """
        import functools

        auto = functools.partial(pytest.fixture, autouse=True)


        @auto
        def test_setup():
            pytest.skip("later")
        """
    ),
}


@pytest.mark.parametrize("head", FIXTURES.values(), ids=FIXTURES.keys())
def test_an_autouse_fixture_named_like_a_test_is_no_new_test(head: str) -> None:
    """pytest runs it before every test of the file (and does not collect it): its skip skips them."""
    assert "skip_marker_added" in judge_test_file(head)


def test_an_attribute_named_skip_set_to_a_value_leaves_pytest_skip_plain() -> None:
    """Only names bound to a marker API's module are derived: ``self.skip = False`` is not one."""
    parent = edited(
        "    assert io.tell()",
        "    self_skip = io.Options()\n    self_skip.skip = False\n    assert io.tell()",
    )
    parent = edited('pytest.skip("no seek on mac")', 'pytest.skip("no")', parent)
    head = edited('pytest.skip("no")', 'pytest.skip(\n            "no seek here"\n        )', parent)
    assert "skip_marker_added" not in judge_test_file(head, parent)
