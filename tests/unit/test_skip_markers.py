"""Skip and xfail markers on added lines of test files, matched as text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.judge.globs import GlobSet
from gate.judge.policy import DEFAULT_TESTS
from gate.judge.skip_markers import MARKERS, added_skip_markers, find_marker
from tests.support.factories import added, change_set, deleted, lines, modified

TESTS = GlobSet(DEFAULT_TESTS)


@pytest.mark.parametrize(
    "line",
    [
        "@pytest.mark.skip",
        '@pytest.mark.skip(reason="flaky")',
        "@pytest.mark.skipif(sys.platform == 'win32', reason='x')",
        '@pytest.mark.xfail(reason="clock skew on CI")',
        "    pytest.skip('not today')",
        "    pytest.xfail('later')",
        "@unittest.skip('x')",
        "@unittest.skipIf(True, 'x')",
        "@unittest.skipUnless(False, 'x')",
        "@skip('x')",
        "@skipIf(True, 'x')",
        "@skipUnless(False, 'x')",
        "        self.skipTest('no network')",
        "np = pytest.importorskip('numpy')",
        "    @expectedFailure",
        "@skip_on_ci",  # matched as text: a home-made decorator counts
        "    xfail('flaky on CI')",  # the bare xfail token: from pytest import xfail
        "@xfail",
        "skipif = mark.skipif",
        "@mark.skip",  # from pytest import mark
        "pytestmark = pytest.mark.skip",
        "# pytest.mark.skip in a comment still counts",
    ],
)
def test_each_listed_marker_is_found(line: str) -> None:
    """Every token the contract lists (and text that contains one) is a skip marker."""
    assert find_marker(line) is not None


@pytest.mark.parametrize(
    "line",
    [
        "def test_skipping_logic():",  # 'skipping' contains none of the tokens
        "assert skip_count == 2",
        "result = compute()",
        "@pytest.mark.parametrize('x', [1, 2])",
        "import unittest",
        "@pytest.fixture",
    ],
)
def test_ordinary_lines_are_not_markers(line: str) -> None:
    """Lines that contain none of the listed tokens are not markers."""
    assert find_marker(line) is None


def test_marker_named_is_the_longest_token() -> None:
    """The report names the most specific token found on the line."""
    assert find_marker("@pytest.mark.skipif(x)") == "pytest.mark.skipif"
    assert find_marker("@unittest.skipUnless(x)") == "unittest.skipUnless"
    assert find_marker("@pytest.mark.xfail") == "pytest.mark.xfail"


@given(st.sampled_from(MARKERS), st.text(max_size=10), st.text(max_size=10))
def test_any_text_around_a_token_is_a_marker(token: str, before: str, after: str) -> None:
    """A token is found whatever text surrounds it."""
    assert find_marker(before + token + after) is not None


def test_only_added_lines_of_test_files_count() -> None:
    """Markers count on added lines of files matched by the tests globs, with head line numbers."""
    old = lines("import pytest", "", "def test_a():", "    pass")
    new = lines("import pytest", "", "@pytest.mark.skip", "def test_a():", "    pass")
    (change,) = change_set(modified("tests/test_a.py", old, new)).files
    (marker,) = added_skip_markers(change, TESTS)
    assert (marker.path, marker.line, marker.marker) == ("tests/test_a.py", 3, "pytest.mark.skip")


def test_removed_marker_lines_do_not_count() -> None:
    """Deleting a marker is not adding one."""
    old = lines("import pytest", "@pytest.mark.skip", "def test_a():", "    pass")
    new = lines("import pytest", "def test_a():", "    pass")
    (change,) = change_set(modified("tests/test_a.py", old, new)).files
    assert added_skip_markers(change, TESTS) == []
    (gone,) = change_set(deleted("tests/test_a.py", old)).files
    assert added_skip_markers(gone, TESTS) == []


@pytest.mark.parametrize(
    ("path", "counts"),
    [
        ("tests/test_a.py", True),
        ("tests/helpers/data.py", True),  # tests/** covers every file below tests/
        ("src/pkg/test_util.py", True),  # **/test_*.py at any depth
        ("src/pkg/util_test.py", True),
        ("src/pkg/util.py", False),
        ("docs/howto.md", False),
    ],
)
def test_only_files_matched_by_tests_globs(path: str, counts: bool) -> None:
    """A marker added outside the tests globs is not a skip marker."""
    (change,) = change_set(added(path, lines("@pytest.mark.skip", "def test_x(): pass"))).files
    assert bool(added_skip_markers(change, TESTS)) is counts


def test_custom_tests_globs() -> None:
    """With ``tests = ["spec/**"]`` only spec/ is looked at."""
    spec = GlobSet(["spec/**"])
    (in_spec,) = change_set(added("spec/x.py", lines("@pytest.mark.xfail"))).files
    (in_tests,) = change_set(added("tests/test_x.py", lines("@pytest.mark.xfail"))).files
    assert added_skip_markers(in_spec, spec)
    assert not added_skip_markers(in_tests, spec)
