"""Touched parent lines and added lines: the contract's rules on hand-made changes.

Only git's diff of bytes runs here (``oracle_gate.git.diff_blob_pairs`` through the pure
``build_changes``); repositories come in the integration tier.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from oracle_gate.git import diff_blob_pairs
from oracle_gate.judge.changes import is_binary, line_count
from tests.support.factories import (
    added,
    change_set,
    deleted,
    lines,
    modified,
    numbered,
    renamed,
    touched_of,
)


def test_removed_lines_are_touched() -> None:
    """Every removed line's parent number is touched, and nothing else."""
    old = numbered(6)
    assert touched_of(old, lines("l1", "l2", "l4", "l5", "l6")) == [3]
    assert touched_of(old, lines("l1", "l5", "l6")) == [2, 3, 4]
    assert touched_of(old, lines("l2", "l3", "l4", "l5")) == [1, 6]


def test_pure_insertion_at_start_touches_line_1() -> None:
    """An insertion before the first line touches line 1 only (line 0 does not exist)."""
    assert touched_of(numbered(3), lines("new", "l1", "l2", "l3")) == [1]


def test_pure_insertion_in_the_middle_touches_both_neighbours() -> None:
    """An insertion after line k touches k and k + 1."""
    assert touched_of(numbered(5), lines("l1", "l2", "new", "more", "l3", "l4", "l5")) == [2, 3]


def test_pure_insertion_at_end_touches_the_last_line() -> None:
    """An insertion after the last line n touches n only (n + 1 does not exist)."""
    assert touched_of(numbered(4), lines("l1", "l2", "l3", "l4", "new")) == [4]


def test_insertion_into_an_empty_file_touches_nothing() -> None:
    """An empty parent file has no line to touch."""
    assert touched_of(b"", lines("new")) == []


def test_replacement_touches_only_the_removed_lines() -> None:
    """Added lines right after removed ones are no pure insertion: only the removed lines count."""
    old = numbered(6)
    assert touched_of(old, lines("l1", "l2", "X", "l4", "l5", "l6")) == [3]
    assert touched_of(old, lines("l1", "X", "Y", "Z", "W", "l4", "l5", "l6")) == [2, 3]


def test_several_blocks_are_each_judged() -> None:
    """A replacement and a pure insertion in one file each follow their own rule."""
    old = numbered(10)
    new = lines("l1", "X", "l3", "l4", "l5", "l6", "l7", "new", "l8", "l9", "l10")
    assert touched_of(old, new) == [2, 7, 8]


def test_losing_the_final_newline_touches_the_last_line() -> None:
    """Adding or removing the final newline changes the last line's bytes: it is touched."""
    assert touched_of(lines("a", "b"), lines("a", "b", newline=False)) == [2]
    assert touched_of(lines("a", "b", newline=False), lines("a", "b", "c")) == [2]


def test_crlf_change_is_a_text_change() -> None:
    """Line-ending changes are visible: the diff is not normalised."""
    assert touched_of(b"a\r\nb\r\n", b"a\nb\n") == [1, 2]


def test_deleted_file_touches_all_its_lines() -> None:
    """A deleted file touches every parent line and adds nothing."""
    (change,) = change_set(deleted("src/a.py", numbered(7))).files
    assert sorted(change.touched) == list(range(1, 8))
    assert change.added == ()
    assert change.status == "deleted"


def test_added_file_touches_nothing_and_adds_every_line() -> None:
    """An added file has no parent lines; all its lines are added lines."""
    (change,) = change_set(added("src/new.py", lines("a", "b"))).files
    assert change.touched == frozenset()
    assert [(a.number, a.text) for a in change.added] == [(1, "a"), (2, "b")]


def test_rename_with_edits_uses_the_old_path_and_parent_coordinates() -> None:
    """A renamed file's touched lines are parent lines keyed by the old path."""
    cs = change_set(renamed("src/old.py", "src/new.py", numbered(5), lines("l1", "l2", "X", "l4", "l5")))
    (change,) = cs.files
    assert change.path == "src/old.py"
    assert cs.touched() == {"src/old.py": [3]}
    assert [(a.number, a.text) for a in change.added] == [(3, "X")]


def test_pure_rename_touches_and_adds_nothing() -> None:
    """A rename without edits changes no line."""
    (change,) = change_set(renamed("a.py", "b.py", numbered(3), numbered(3))).files
    assert change.touched == frozenset()
    assert change.added == ()


def test_binary_on_both_sides_touches_nothing() -> None:
    """A NUL byte in the first 8000 bytes of both sides: nothing touched, nothing added."""
    (change,) = change_set(modified("data.py", numbered(5) + b"\0", numbered(6) + b"\0")).files
    assert change.binary
    assert change.touched == frozenset()
    assert change.added == ()


def test_text_turned_binary_touches_every_parent_line() -> None:
    """v2: text in the parent, binary in head: every parent line is touched, as for a deletion."""
    (change,) = change_set(modified("data.py", numbered(5), numbered(5) + b"\0")).files
    assert change.binary
    assert change.touched == frozenset(range(1, 6))
    assert change.added == ()


def test_binary_turned_text_adds_every_head_line() -> None:
    """Choice: binary in the parent, text in head: no parent line, every head line added (markers seen)."""
    (change,) = change_set(modified("data.py", numbered(5) + b"\0", numbered(3))).files
    assert change.touched == frozenset()
    assert [a.number for a in change.added] == [1, 2, 3]


def test_binary_probe_is_the_first_8000_bytes() -> None:
    """A NUL at byte 7999 makes a blob binary; one at byte 8000 does not."""
    assert is_binary(b"x" * 7999 + b"\0")
    assert not is_binary(b"x" * 8000 + b"\0")
    text_with_late_nul = lines(*(["y" * 99] * 81)) + b"\0"  # 8100 bytes, then a NUL
    assert touched_of(text_with_late_nul, lines(*(["y" * 99] * 80))) == [81, 82]


def test_mode_only_change_touches_nothing() -> None:
    """Making a file executable changes no line."""
    (change,) = change_set(modified("run.py", numbered(3), numbered(3), new_mode="100755")).files
    assert change.mode_only
    assert change.touched == frozenset()
    assert change.added == ()


def test_mode_change_with_edit_is_judged_by_its_lines() -> None:
    """A mode change together with an edit touches the edited lines."""
    (change,) = change_set(modified("run.py", numbered(3), lines("l1", "X", "l3"), new_mode="100755")).files
    assert sorted(change.touched) == [2]


def test_file_to_symlink_is_a_deletion_plus_an_addition() -> None:
    """A file replaced by a symlink touches all its parent lines; the link text is added."""
    (change,) = change_set(modified("a.py", numbered(4), b"b.py", new_mode="120000")).files
    assert change.status == "type_changed"
    assert sorted(change.touched) == [1, 2, 3, 4]
    assert [a.text for a in change.added] == ["b.py"]


def test_symlink_to_file_is_a_deletion_plus_an_addition() -> None:
    """A symlink replaced by a file touches the link's one line and adds every file line."""
    (change,) = change_set(modified("a.py", b"b.py", lines("x", "y"), old_mode="120000")).files
    assert sorted(change.touched) == [1]
    assert [a.text for a in change.added] == ["x", "y"]


def test_retargeted_symlink_touches_its_line() -> None:
    """A symlink pointing elsewhere is a one-line text change of the link blob."""
    (change,) = change_set(modified("l", b"a.py", b"b.py", old_mode="120000", new_mode="120000")).files
    assert sorted(change.touched) == [1]


def test_submodule_pointer_touches_nothing() -> None:
    """A submodule pointer change has no lines."""
    (change,) = change_set(modified("vendor/lib", b"", b"", old_mode="160000", new_mode="160000")).files
    assert change.touched == frozenset()
    assert change.added == ()


def test_file_replaced_by_submodule_touches_the_file_lines() -> None:
    """A file turned into a submodule is deleted as a file (its lines touched)."""
    (change,) = change_set(modified("vendor/lib", numbered(2), b"", new_mode="160000")).files
    assert sorted(change.touched) == [1, 2]
    assert change.added == ()


def test_many_files_in_one_diff_keep_their_own_lines() -> None:
    """With a dozen files diffed together, each file gets exactly the lines it gets alone."""
    edits = [
        modified(f"f{i:02}.py", numbered(12), lines(*(f"l{j}" if j != i else "X" for j in range(1, 13))))
        for i in range(1, 13)
    ]
    cs = change_set(*edits)
    assert cs.touched() == {f"f{i:02}.py": [i] for i in range(1, 13)}


def test_changeset_touched_leaves_out_files_without_lines() -> None:
    """ChangeSet.touched lists only files with touched lines, sorted."""
    cs = change_set(
        added("new.py", lines("a")),
        modified("c.py", numbered(3), numbered(3), new_mode="100755"),
        modified("b.py", numbered(5), lines("l1", "X", "l3", "Y", "l5")),
    )
    assert cs.touched() == {"b.py": [2, 4]}


def test_line_count_follows_git() -> None:
    """Lines are LF-separated; a last line without LF counts; CR alone is not a line break."""
    assert line_count(b"") == 0
    assert line_count(b"a") == 1
    assert line_count(b"a\n") == 1
    assert line_count(b"a\nb") == 2
    assert line_count(b"a\rb\x0cc\n") == 1


# ---------------------------------------------------------------- properties over random text pairs

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
LINE = st.sampled_from(["a", "b", "c", "", "  a", "x\r", "\x0cpage", "é", "@@ -1 +1 @@"])


@st.composite
def texts(draw: st.DrawFn) -> bytes:
    body = draw(st.lists(LINE, max_size=9))
    if not body:
        return b""
    return lines(*body, newline=draw(st.booleans()))


def split_lines(data: bytes) -> list[bytes]:
    """Lines as git sees them (LF only), each with its terminator."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    return out + ([parts[-1]] if parts[-1] else [])


@settings(max_examples=150, deadline=None)
@given(texts(), texts())
def test_touched_lines_follow_the_rules_for_random_pairs(old: bytes, new: bytes) -> None:
    """For random small text pairs: removed lines touched, insertions touch k/k+1, all within [1, n]."""
    (change,) = change_set(modified("f.py", old, new)).files
    n = line_count(old)
    removed: set[int] = set()
    expected: set[int] = set()
    for start, count in ((int(m[1]), int(m[2] or 1)) for m in HUNK.finditer(diff_blob_pairs([(old, new)]))):
        if count:
            removed |= set(range(start, start + count))
        else:
            expected |= {k for k in (start, start + 1) if 1 <= k <= n}
    expected |= removed
    assert change.touched <= set(range(1, n + 1))
    assert removed <= change.touched
    assert change.touched == expected
    # The lines neither removed nor added are the same sequence on both sides.
    added_numbers = {a.number for a in change.added}
    kept_old = [line for i, line in enumerate(split_lines(old), 1) if i not in removed]
    kept_new = [line for i, line in enumerate(split_lines(new), 1) if i not in added_numbers]
    assert kept_old == kept_new
    assert [a.text.encode() for a in change.added] == [
        line.rstrip(b"\n") for i, line in enumerate(split_lines(new), 1) if i in added_numbers
    ]


@settings(max_examples=60, deadline=None)
@given(texts(), st.lists(LINE, min_size=1, max_size=4), st.data())
def test_inserting_lines_touches_at_most_the_two_neighbours(
    old: bytes, inserted: list[str], data: st.DataObject
) -> None:
    """Inserting whole lines into a file touches at most two parent lines, all within [1, n]."""
    old_lines = split_lines(old)
    if old_lines and not old_lines[-1].endswith(b"\n"):
        old_lines[-1] += b"\n"
        old = b"".join(old_lines)
    at = data.draw(st.integers(0, len(old_lines)))
    new = b"".join([*old_lines[:at], lines(*inserted), *old_lines[at:]])
    touched = touched_of(old, new)
    n = len(old_lines)
    assert set(touched) <= set(range(1, n + 1))
    assert len(touched) <= 2
    if n:
        assert touched  # an insertion into a non-empty file always touches a neighbour
