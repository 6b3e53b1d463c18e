"""Contract v3.6 in the core: append-only seed corpora may only grow, approved or not."""

from __future__ import annotations

import dataclasses

import pytest

from oracle_gate.judge.approvals import Approval
from oracle_gate.judge.changes import FileChange, FileStatus
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.policy import parse_policy
from oracle_gate.judge.seeds import appends, seed_rewrites
from oracle_gate.judge.verdict import Verdict, evaluate
from tests.support.factories import HEAD, Edit, added, change_set, deleted, evidence, judge, modified, renamed

APPROVALS = b'[approvals]\noracle = ["alice"]\n'
SEED = "seeds/corpus.json"


def codes(v: Verdict) -> set[str]:
    return {str(c) for c in v.codes}


def approved(*edits: Edit, policy: bytes = APPROVALS) -> Verdict:
    ev = evidence(change_set(*edits), policy=parse_policy(policy))
    return evaluate(
        dataclasses.replace(ev, approvals=(Approval("alice", HEAD, (), "write"),), author="agent")
    )


@pytest.mark.parametrize(
    ("old", "new", "grows"),
    [
        (b"[1, 2]\n", b"[1, 2, 3]\n", True),
        (b"[1, 2]", b'[\n  1,\n  2,\n  {"a": [3]}\n]\n', True),  # reformatted: elements compare
        (b'[{"a": 1, "b": 2}]', b'[{"b": 2, "a": 1}, 5]', True),  # same object, keys reordered
        (b"[1, 2]", b"[2, 1, 3]", False),  # reordered
        (b"[1, 2]", b"[1]", False),  # shrunk
        (b"[1, 2]", b"[1.0, 2, 3]", False),  # 1 and 1.0 are not the same element
        (b"[true]", b"[1]", False),
        (b"[1, 2]", b'{"a": 1}', False),  # no longer an array: bytes compare, and differ
        (b"abc\n", b"abc\ndef\n", True),  # bytes: prefix kept
        (b"abc\n", b"abd\n", False),
        (b"abc\n", b"", False),
        (b"", b"anything", True),
        (b"\x00\x01bin", b"\x00\x01bin\x02", True),
        (b"[1]", b"[1]x", True),  # head is no JSON array: the byte rule, and the bytes are kept
    ],
)
def test_appends(old: bytes, new: bytes, grows: bool) -> None:
    assert appends(old, new) is grows


def test_deeply_nested_arrays_do_not_crash() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    assert appends(deep, deep + b"\n") is True


@pytest.mark.parametrize(
    ("edit", "what"),
    [
        (deleted(SEED, b"[1]\n"), "deleted"),
        (renamed(SEED, "seeds/other.json", b"[1]\n", b"[1]\n"), "renamed to seeds/other.json"),
        (modified(SEED, b"[1, 2]\n", b"[2]\n"), "not kept as a prefix"),
        (Edit(SEED, SEED, b"[1]\n", b"target", new_mode="120000"), "type changed"),
    ],
)
def test_rewrites_are_seed_rewritten_approved_or_not(edit: Edit, what: str) -> None:
    plain = judge(edit)
    assert plain.verdict == "fail"
    assert {"seed_rewritten", "oracle_edit_forbidden"} <= codes(plain)
    seed = next(r for r in plain.reasons if r.code == "seed_rewritten")
    assert seed.path == SEED
    assert what in seed.detail
    after = approved(edit)
    assert after.verdict == "fail"
    assert "seed_rewritten" in codes(after)
    assert "oracle_edit_forbidden" not in codes(after)  # approved: replaced
    assert "oracle_change_approved" in codes(after)


def test_unapproved_append_keeps_oracle_edit_forbidden_only() -> None:
    v = judge(modified(SEED, b"[1]\n", b"[1, 2]\n"))
    assert (v.verdict, codes(v)) == ("fail", {"oracle_edit_forbidden"})


def test_approved_append_passes() -> None:
    v = approved(modified(SEED, b"[1]\n", b"[1, 2]\n"))
    assert (v.verdict, codes(v)) == ("pass_clean", {"oracle_change_approved", "live_surface_covers_diff"})


def test_a_new_seed_file_is_growth() -> None:
    v = approved(added("seeds/new.txt", b"1337\n"))
    assert "seed_rewritten" not in codes(v)


def test_append_only_key_is_its_own_glob_set() -> None:
    policy = b'append_only = ["corpus/**"]\nprotected = ["corpus/**"]\n'
    v = judge(modified("corpus/a.txt", b"a\n", b"b\n"), policy=parse_policy(policy))
    assert "seed_rewritten" in codes(v)
    # seeds/ is no longer append-only (still protected by the default? no: protected was replaced)
    v = judge(modified("seeds/a.txt", b"a\n", b"b\n"), policy=parse_policy(policy))
    assert "seed_rewritten" not in codes(v)


def test_malformed_append_only_keeps_the_default_and_is_incomplete() -> None:
    policy = parse_policy(b'append_only = ["corpus/**", 3]\n')
    assert set(policy.append_only) == {"seeds/**", "corpus/**"}
    assert any("append_only" in str(p) for p in policy.problems)


def test_mode_only_change_is_not_a_rewrite() -> None:
    v = judge(modified(SEED, b"[1]\n", b"[1]\n", new_mode="100755"))
    assert "seed_rewritten" not in codes(v)


def test_an_append_only_side_too_large_to_read_is_a_rewrite() -> None:
    """Over the blob cap neither side is read: it cannot be shown to only grow (fail closed)."""
    big = FileChange(FileStatus.MODIFIED, SEED, SEED, "100644", "100644", None, None, oversized=True)
    ((path, what),) = seed_rewrites(big, GlobSet(["seeds/**"]))
    assert path == SEED
    assert "too large" in what


# v3.9.4: a record extended, not appended (issue 29). The parent's last line has no newline, so
# "2,4" -> "2,40" keeps every parent byte as a prefix: it must still be seed_rewritten.
RECORDS = "seeds/cases.csv"
UNPROTECTED = b'append_only = ["seeds/**"]\nprotected = ["fixtures/**"]\n[approvals]\noracle = ["alice"]\n'


@pytest.mark.parametrize(
    ("old", "new", "extends"),
    [
        (b"1,2\n2,4", b"1,2\n2,40", True),  # the attack: the last record grows by a byte
        (b"1,2\n2,4", b"1,2\n2,4 more\n", True),
        (b"1,2\n2,4", b"1,2\n2,4\n3,9\n", False),  # a newline first: a new record
        (b"1,2\n2,4\n", b"1,2\n2,4\n3,9", False),  # the parent ends its last record
        (b"", b"3,9", False),  # an empty parent has no record to extend
        (b"[1, 2]", b"[1, 2]x", False),  # a JSON array: the element or byte rule of v3.6
        (b"\x00\x01bin", b"\x00\x01bin\x02", False),  # binary: the byte-prefix rule only
        (b"caf\xc3", b"caf\xc3\xa9", False),  # not UTF-8: binary
        (b"1,2\n2,4", b"1,2\n2,4", False),  # unchanged
    ],
)
def test_a_record_extended_is_told_from_one_appended(old: bytes, new: bytes, extends: bool) -> None:
    v = judge(modified(RECORDS, old, new))
    assert ("seed_rewritten" in codes(v)) is extends, v.reasons


def test_an_extended_record_is_never_approved() -> None:
    v = approved(modified(RECORDS, b"1,2\n2,4", b"1,2\n2,40"))
    assert v.verdict == "fail"
    assert "seed_rewritten" in codes(v)
    seed = next(r for r in v.reasons if r.code == "seed_rewritten")
    assert seed.path == RECORDS
    assert "extends the parent's last record" in seed.detail


def test_an_extended_record_fails_with_no_approval_when_seeds_are_not_protected() -> None:
    v = judge(modified(RECORDS, b"1,2\n2,4", b"1,2\n2,40"), policy=parse_policy(UNPROTECTED))
    assert (v.verdict, codes(v)) == ("fail", {"seed_rewritten"})
    grown = judge(modified(RECORDS, b"1,2\n2,4", b"1,2\n2,4\n3,9"), policy=parse_policy(UNPROTECTED))
    assert "seed_rewritten" not in codes(grown)
