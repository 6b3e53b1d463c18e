"""The fixture lock: parsing and digest checks against head bytes, on plain values."""

from __future__ import annotations

import hashlib
import json

import pytest

from oracle_gate.judge.lock import FixtureLock, lock_breaks, parse_lock

CORPUS = b'[{"x": 1}]\n'
DIGEST = hashlib.sha256(CORPUS).hexdigest()


def lock_bytes(doc: object) -> bytes:
    return json.dumps(doc).encode()


def test_missing_lock_locks_nothing() -> None:
    """No lock file: no paths, no digests, no problem."""
    assert parse_lock(None) == FixtureLock()


def test_paths_only_lock_is_well_formed() -> None:
    """``sha256`` is optional: a lock with paths only (the freeze article's) is fine."""
    lock = parse_lock(lock_bytes({"paths": ["tests/fixtures/a.json"]}))
    assert lock.paths == ("tests/fixtures/a.json",)
    assert lock.sha256 == ()
    assert lock.problems == ()


def test_digests_are_read_and_normalised() -> None:
    """Digests are kept per path, lower-cased."""
    lock = parse_lock(lock_bytes({"paths": ["a.json"], "sha256": {"a.json": DIGEST.upper()}}))
    assert lock.sha256 == (("a.json", DIGEST),)
    assert lock.problems == ()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{", "not valid JSON"),
        (b"\xff", "not valid JSON"),
        (b'"paths"', "expected a JSON object"),
        (lock_bytes({}), "'paths' is required"),
        (lock_bytes({"paths": "a.json"}), "'paths' is required and must be a list"),
        (lock_bytes({"paths": ["a.json", 3]}), "not non-empty strings"),
        (lock_bytes({"paths": [""]}), "not non-empty strings"),
        (lock_bytes({"paths": [], "sha256": ["a"]}), "'sha256' must be an object"),
        (lock_bytes({"paths": ["a"], "sha256": {"a": "abc"}}), "is not a 64-digit hex digest"),
        (lock_bytes({"paths": ["a"], "sha256": {"a": 5}}), "is not a 64-digit hex digest"),
    ],
)
def test_malformed_lock_names_the_file(raw: bytes, problem: str) -> None:
    """Each malformation is a one-line problem naming the lock file."""
    lock = parse_lock(raw, "oracle/lock.json")
    assert len(lock.problems) == 1
    assert lock.problems[0].source == "oracle/lock.json"
    text = str(lock.problems[0])
    assert text.startswith("oracle/lock.json: ")
    assert problem in text
    assert "\n" not in text


def test_malformed_lock_keeps_its_good_paths() -> None:
    """A bad entry does not drop the good paths: they stay protected."""
    lock = parse_lock(lock_bytes({"paths": ["good.json", 3]}))
    assert lock.paths == ("good.json",)


def test_lock_breaks_on_different_bytes_and_missing_files() -> None:
    """A different digest or a missing head file is a lock break; equal bytes are not."""
    lock = FixtureLock(paths=("a", "b", "c"), sha256=(("a", DIGEST), ("b", DIGEST), ("c", DIGEST)))
    breaks = dict(lock_breaks(lock, {"a": CORPUS, "b": CORPUS + b" ", "c": None}))
    assert set(breaks) == {"b", "c"}
    assert "the lock says" in breaks["b"]
    assert breaks["c"] == "is missing in head"


def test_paths_without_digest_never_break() -> None:
    """A path listed without a digest is protected but has nothing to compare."""
    assert lock_breaks(FixtureLock(paths=("a",)), {}) == []
