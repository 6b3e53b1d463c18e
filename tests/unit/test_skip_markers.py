"""Skip and xfail markers on added lines of test files, matched as text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.policy import DEFAULT_TESTS
from oracle_gate.judge.pytest_config import addopts_of, joined_addopts
from oracle_gate.judge.skip_markers import (
    MARKER_APIS,
    MARKERS,
    added_skip_markers,
    addopts_words,
    find_marker,
    find_marker_api,
)
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
        # v2: whitespace removed, new tokens
        "    pytest.skip ('not today')",
        "@pytest . mark . skip",
        "    raise unittest.SkipTest('later')",
        "    pytest.exit(returncode=0)",
        '    getattr(pytest, "skip")("x")',
        "    getattr(pytest, 'xfail')('x')",
        "@ skip_on_ci",
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
        ("src/pkg/util.py", True),  # v2: a marker API in any .py file
        ("docs/howto.md", False),
    ],
)
def test_test_files_and_python_files(path: str, counts: bool) -> None:
    """A marker API counts in any .py file; outside .py files and the tests globs nothing does (on a
    helper: v3.8 lets a new *test* carry its own markers)."""
    (change,) = change_set(added(path, lines("@pytest.mark.skip", "def helper(): pass"))).files
    assert bool(added_skip_markers(change, TESTS)) is counts


def test_custom_tests_globs() -> None:
    """With ``tests = ["spec/**"]`` only spec/ is looked at."""
    spec = GlobSet(["spec/**"])
    (in_spec,) = change_set(added("spec/x.py", lines("@pytest.mark.xfail"))).files
    (in_tests,) = change_set(added("tests/test_x.py", lines("@pytest.mark.xfail"))).files
    (in_tests_text,) = change_set(added("tests/notes.txt", lines("xfail"))).files
    assert added_skip_markers(in_spec, spec)
    assert added_skip_markers(in_tests, spec)  # v2: still a .py file using the marker API
    assert not added_skip_markers(in_tests_text, spec)


@pytest.mark.parametrize(
    "line",
    [
        'if mode == "skip":',
        "def skip_blank(lines):",
        "xfail_count = 0",
        "@skip_on_ci",  # a home-made decorator: a marker in a test file only
        "self.skipped = True",
    ],
)
def test_source_lines_that_are_not_marker_apis(line: str) -> None:
    """v2: in a non-test .py file only the marker APIs count, not words like "skip"."""
    assert find_marker_api(line) is None


@pytest.mark.parametrize(
    "line",
    [
        "pytest.skip ('x')",
        "raise SkipTest",
        "@pytest.mark.xfail",
        "pytest . exit ( 0 )",
        "unittest.expectedFailure",
        "np = pytest.importorskip('numpy')",
    ],
)
def test_marker_apis_in_source_lines(line: str) -> None:
    """v2: the marker APIs count in any .py file, whatever the whitespace."""
    assert find_marker_api(line) is not None


@given(st.sampled_from(MARKER_APIS), st.text(max_size=10), st.text(max_size=10))
def test_any_text_around_an_api_is_a_marker(token: str, before: str, after: str) -> None:
    """A marker API is found whatever text surrounds it."""
    assert find_marker_api(before + token + after) is not None


@given(st.sampled_from(MARKERS), st.lists(st.sampled_from([" ", "\t", "\x0b"]), min_size=1))
def test_whitespace_inside_a_token_is_ignored(token: str, spaces: list[str]) -> None:
    """v2: whitespace anywhere inside a token does not hide it."""
    cut = len(token) // 2
    assert find_marker(token[:cut] + "".join(spaces) + token[cut:]) is not None


def test_mark_named_in_parent_addopts_counts() -> None:
    """v2: ``@pytest.mark.slow`` is a skip marker when the parent's addopts deselects ``slow``."""
    words = addopts_words("-q -m 'not slow and not net'")
    assert find_marker("@pytest.mark.slow", words) == "pytest.mark.slow (named in the parent's addopts)"
    assert find_marker_api("@pytest.mark.net", words) is not None
    assert find_marker("@pytest.mark.slowish", words) is None
    assert find_marker("@pytest.mark.slow") is None  # no addopts: an ordinary mark
    assert find_marker("@pytest.mark.parametrize('x', [1])", words) is None


def test_addopts_read_from_each_configuration_file() -> None:
    """The parent's addopts come from every pytest configuration file, joined."""
    assert addopts_of("pytest.ini", b"[pytest]\naddopts = -m 'not slow'\n") == "-m 'not slow'"
    assert addopts_of("setup.cfg", b"[tool:pytest]\naddopts = -m net\n") == "-m net"
    assert addopts_of("pyproject.toml", b'[tool.pytest.ini_options]\naddopts = "-m gpu"\n') == "-m gpu"
    assert addopts_of("pytest.toml", b'[pytest]\naddopts = ["-m", "not db"]\n') == "-m not db"
    assert addopts_of("tox.ini", b"[tox]\nenvlist = py\n") == ""
    assert addopts_of("pyproject.toml", b"[" * 100_000) == ""  # unparseable or too deep: nothing
    files = {"pytest.ini": b"[pytest]\naddopts = -m a\n", "tox.ini": None, "setup.cfg": b"[x]\n"}
    assert joined_addopts(files) == "-m a"
