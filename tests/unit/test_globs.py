"""The contract's globs (v2): anchored, case-insensitive, ``*`` in a segment, ``**`` zero or more dirs."""

from __future__ import annotations

from fnmatch import fnmatchcase

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_gate.judge.globs import GlobSet, glob_matches, glob_may_match_below
from oracle_gate.judge.policy import _literal_globs


def reference_match(pattern: str, path: str) -> bool:
    """An independent matcher: segment by segment, fnmatch within a segment, ``**`` as dirs.

    Case-insensitive for ASCII (the strategies below draw ASCII only): both sides lowered.
    """
    pat = pattern.lower().strip("/").split("/")
    parts = path.lower().split("/")

    def walk(i: int, j: int) -> bool:
        if i == len(pat):
            return j == len(parts)
        if pat[i] == "**":
            return walk(i + 1, j) or (j < len(parts) and walk(i, j + 1))
        return j < len(parts) and fnmatchcase(parts[j], pat[i]) and walk(i + 1, j + 1)

    return walk(0, 0)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("freeze.json", "freeze.json", True),
        ("freeze.json", "a/freeze.json", False),  # anchored at the root, unlike .gitignore
        ("freeze.json", "Freeze.json", True),  # v2: case-insensitive
        ("freeze.json", "FREEZE.JSON", True),
        ("fixtures/**", "Fixtures/x", True),
        ("[a-c].py", "B.py", True),
        ("*.py", "setup.py", True),
        ("*.py", "src/setup.py", False),  # * stays within one segment
        ("src/*.py", "src/a/b.py", False),
        ("src/*.py", "src/b.py", True),
        ("**/test_*.py", "test_a.py", True),  # ** matches zero directories
        ("**/test_*.py", "a/b/c/test_a.py", True),
        ("**/test_*.py", "a/b/c/atest_a.py", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/x/y/bb", False),
        ("fixtures/**", "fixtures/x.json", True),
        ("fixtures/**", "fixtures/deep/er/x.json", True),
        ("fixtures/**", "fixtures", True),  # v2: dir/** matches dir itself (a file or link replacing it)
        ("fixtures/**", "FIXTURES", True),
        ("a/**/b/**", "a/x/b", True),
        ("fixtures/**", "fixturesX/x.json", False),
        ("fixtures/**", "a/fixtures/x.json", False),
        (".github/workflows/**", ".github/workflows/ci.yml", True),
        ("**", "anything/at/all", True),
        ("?.py", "a.py", True),
        ("?.py", "ab.py", False),
        ("[ab].py", "b.py", True),
        ("[!ab].py", "b.py", False),
        ("[^ab].py", "c.py", True),
        ("data[1].json", "data1.json", True),
        ("/freeze.json", "freeze.json", True),  # a leading slash is the root too
    ],
)
def test_glob_examples(pattern: str, path: str, expected: bool) -> None:
    """Each documented glob rule holds on a concrete path."""
    assert glob_matches(pattern, path) is expected


SEGMENT_CHARS = st.sampled_from(["a", "b", "A", "B", ".", "_"])
PATH_SEGMENT = st.text(SEGMENT_CHARS, min_size=1, max_size=3)
PATHS = st.lists(PATH_SEGMENT, min_size=1, max_size=4).map("/".join)
PATTERN_TOKEN = st.sampled_from(["a", "b", "A", ".", "_", "*", "?", "[ab]", "[!a]", "[a-b]", "[B]"])
PATTERN_SEGMENT = st.one_of(
    st.just("**"), st.lists(PATTERN_TOKEN, min_size=1, max_size=3).map("".join).filter(lambda s: s != "**")
)
PATTERNS = st.lists(PATTERN_SEGMENT, min_size=1, max_size=4).map("/".join)


@settings(max_examples=400)
@given(PATTERNS, PATHS)
def test_glob_matches_reference(pattern: str, path: str) -> None:
    """For random patterns and paths, the gate's globs agree with an independent matcher."""
    assert glob_matches(pattern, path) == reference_match(pattern, path)


@settings(max_examples=300)
@given(PATTERNS, st.lists(PATH_SEGMENT, min_size=1, max_size=3).map("/".join), PATHS)
def test_may_match_below_is_consistent(pattern: str, directory: str, rest: str) -> None:
    """If a pattern matches some path below a directory, may_match_below says so."""
    if glob_matches(pattern, f"{directory}/{rest}"):
        assert glob_may_match_below(pattern, directory)


def test_may_match_below_examples() -> None:
    """A directory counts as protected when a glob can match something below it."""
    assert glob_may_match_below("fixtures/**", "fixtures")
    assert glob_may_match_below("fixtures/**", "fixtures/sub")
    assert glob_may_match_below("**/test_*.py", "anywhere")
    assert glob_may_match_below("a/b/c.json", "a")
    assert not glob_may_match_below("a/b/c.json", "a/b/c.json")  # a file, not a directory above
    assert not glob_may_match_below("freeze.json", "src")
    assert not glob_may_match_below("fixtures/**", "fixturesX")


# Characters that mean something in a glob or a regular expression, to stress literal escaping.
NASTY = st.text(st.sampled_from(list("ab*?[]!^-&~|\\{}().+$ ")), min_size=1, max_size=6)


@settings(max_examples=300)
@given(st.lists(NASTY, min_size=1, max_size=3).map("/".join), st.lists(NASTY, min_size=1, max_size=3))
def test_literal_lock_paths_match_only_themselves(path: str, other_segments: list[str]) -> None:
    """A lock path protects exactly itself, whatever glob characters it contains."""
    protected = GlobSet(_literal_globs([path]))
    assert protected.match(path) is not None
    other = "/".join(other_segments)
    if other.lower() != path.lower():
        assert protected.match(other) is None


@settings(max_examples=300)
@given(st.lists(NASTY, min_size=1, max_size=3).map("/".join), PATHS)
def test_any_pattern_compiles_without_warning_or_error(pattern: str, path: str) -> None:
    """No glob text (unclosed or reversed classes, regex set operators) breaks matching."""
    assert glob_matches(pattern, path) in (True, False)


def test_reversed_range_matches_nothing() -> None:
    """A reversed class range like ``[z-a]`` matches no character, as in fnmatch."""
    assert not glob_matches("x[z-a].py", "xb.py")
    assert not glob_matches("x[z-a].py", "x-.py")
    assert glob_matches("x[z-ab].py", "xb.py")


def test_globset_reports_the_first_matching_pattern() -> None:
    """A GlobSet answers with the first of its patterns that matches, deduplicated."""
    globs = GlobSet(["src/**", "**/*.py", "src/**"])
    assert globs.patterns == ("src/**", "**/*.py")
    assert globs.match("src/a.py") == "src/**"
    assert globs.match("lib/a.py") == "**/*.py"
    assert globs.match("lib/a.txt") is None
    assert "lib/a.py" in globs
    assert 3 not in globs


@settings(max_examples=400)
@given(PATTERNS, PATHS, st.data())
def test_matching_ignores_case_of_path_and_pattern(pattern: str, path: str, data: st.DataObject) -> None:
    """v2: re-casing any letters of the path or the pattern never changes the answer."""
    flip = data.draw(st.lists(st.booleans(), min_size=len(path), max_size=len(path)))
    recased = "".join(c.swapcase() if f else c for c, f in zip(path, flip, strict=True))
    assert glob_matches(pattern, recased) == glob_matches(pattern, path)
    assert glob_matches(pattern.upper(), path) == glob_matches(pattern.lower(), path.upper())


@settings(max_examples=200)
@given(st.lists(PATH_SEGMENT, min_size=1, max_size=4).map("/".join))
def test_dir_double_star_matches_the_directory_itself(directory: str) -> None:
    """v2: ``dir/**`` matches ``dir``, whatever its case, and everything below it."""
    assert glob_matches(f"{directory}/**", directory)
    assert glob_matches(f"{directory}/**", directory.upper())
    assert glob_matches(f"{directory}/**", f"{directory}/x")


def test_hostile_long_paths_match_without_recursion_or_backtracking() -> None:
    """A 3000-segment path under ``**/x/**`` (or a long segment under many stars) answers at once."""
    deep = "/".join(["a"] * 3000)
    assert not glob_matches("**/x/**", deep)
    assert glob_matches("**/x/**", deep + "/x/y")
    assert glob_may_match_below("**/x/**", deep)
    assert not glob_may_match_below("a/b.json", deep)
    assert not glob_matches("*a*a*a*a*a*b", "a" * 20000)
