"""v2 normal paths: freeze nodeids and lock paths must be normal; a lock path protects its normal form."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_gate.judge.freeze import parse_freeze
from oracle_gate.judge.lock import lock_breaks, parse_lock
from oracle_gate.judge.paths import normalize_path, path_problem
from oracle_gate.judge.policy import Policy
from tests.support.factories import sha256_hex

NAME = st.text(st.sampled_from(list("abZ_-")), min_size=1, max_size=4)
NORMAL = st.lists(NAME, min_size=1, max_size=4).map("/".join)
PREFIX = st.sampled_from(["", "./", "/", ".//", "/./"])
SEPARATOR = st.sampled_from(["/", "//", "/./", "/.//"])


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("tests/t.py", None),
        ("a", None),
        ("./tests/t.py", "starts with './'"),
        ("/tests/t.py", "starts with '/'"),
        ("a//b", "has an empty segment"),
        ("a/", "has an empty segment"),
        ("a/./b", "has a '.' segment"),
        ("a/../b", "has a '..' segment"),
        ("a\\b", "contains a backslash"),
        ("", "is empty"),
    ],
)
def test_path_problems(path: str, problem: str | None) -> None:
    """Each way of not being a normal repo-relative POSIX path is named."""
    assert path_problem(path) == problem


@settings(max_examples=300)
@given(NORMAL)
def test_normal_paths_are_fixed_points(path: str) -> None:
    """A normal path has no problem and normalizes to itself."""
    assert path_problem(path) is None
    assert normalize_path(path) == path


@settings(max_examples=300)
@given(st.lists(NAME, min_size=1, max_size=4), PREFIX, st.data())
def test_noise_normalizes_away_and_is_reported(parts: list[str], prefix: str, data: st.DataObject) -> None:
    """Leading ``/`` or ``./`` and doubled or ``.`` segments normalize to the clean path, and are problems."""
    seps = data.draw(st.lists(SEPARATOR, min_size=len(parts) - 1, max_size=len(parts) - 1))
    noisy = prefix + parts[0] + "".join(sep + part for sep, part in zip(seps, parts[1:], strict=True))
    clean = "/".join(parts)
    assert normalize_path(noisy) == clean
    assert (path_problem(noisy) is None) == (noisy == clean)


@settings(max_examples=200)
@given(NORMAL)
def test_normalization_is_idempotent_and_never_leaves_the_repo(path: str) -> None:
    """normalize(normalize(p)) == normalize(p); ``..`` above the root normalizes to nothing."""
    for candidate in (path, "./" + path, "../" + path, path + "/../..", "a\\" + path):
        norm = normalize_path(candidate)
        if norm is not None:
            assert normalize_path(norm) == norm
            assert path_problem(norm) is None
    assert normalize_path("../" + path) is None


def test_lock_path_written_loosely_protects_its_normal_form() -> None:
    """``./a//b`` in the lock is a problem naming the file, and protects ``a/b``."""
    lock = parse_lock(json.dumps({"paths": ["./fixtures//data.json"]}).encode())
    assert [str(p) for p in lock.problems] == [
        "fixture_lock.json: 'paths' entry './fixtures//data.json' is not a normal repo-relative path: "
        "starts with './'"
    ]
    assert Policy(protected=()).protected_globs(lock.named_paths).match("fixtures/data.json")


def test_lock_digest_key_written_loosely_is_checked_in_normal_form() -> None:
    """A ``sha256`` key ``./x`` checks the bytes of ``x`` (a break is reported, not lost)."""
    lock = parse_lock(json.dumps({"paths": [], "sha256": {"./x.json": sha256_hex(b"ok")}}).encode())
    assert len(lock.problems) == 1
    assert "'sha256' key './x.json'" in str(lock.problems[0])
    assert lock_breaks(lock, {"x.json": b"ok"}) == []
    assert lock_breaks(lock, {"x.json": b"changed"})[0][0] == "x.json"


def test_freeze_nodeid_with_dot_slash_is_a_problem_and_still_freezes() -> None:
    """``./tests/t.py::test_a`` is reported and still freezes exactly what it names as written."""
    doc = {"schema": 1, "frozen": [{"nodeid": "./tests/t.py::test_a", "reason": "r", "bound_sha": "abcd"}]}
    freeze = parse_freeze(json.dumps(doc).encode())
    assert [str(p) for p in freeze.problems] == [
        "freeze.json: freeze entry 0 ('./tests/t.py::test_a'): path './tests/t.py' is not a normal "
        "repo-relative path: starts with './'"
    ]
    assert freeze.is_frozen("./tests/t.py::test_a")


def test_deeply_nested_json_oracle_files_are_problems() -> None:
    """v2 hostile input: JSON nested past the parser's limit is a problem, not a RecursionError."""
    deep = b"[" * 200_000 + b"]" * 200_000
    assert "nested too deeply" in str(parse_freeze(deep).problems[0])
    assert "nested too deeply" in str(parse_lock(deep).problems[0])
