"""Contract v3.6: seed corpora grow, never change.

A file under the policy's ``append_only`` globs may only be extended: for a file that parses as a
JSON array on both sides, the parent's elements, in order and unchanged, must be the first elements
of head's; for any other file, the parent's bytes must be the first bytes of head's. A deletion, a
rename away, a type change or any other edit rewrites the corpus (``seed_rewritten``), and no
approval lifts that: a rewrite needs the policy changed first.

v3.9.4, records: in a text file (UTF-8, no NUL) that is not a JSON array and whose parent does not
end with a newline, the parent's last line is a record head could still extend (``2,4`` to
``2,40`` keeps every parent byte as a prefix): the first byte head adds must be a newline. An empty
parent has no record to extend; a binary file keeps the byte-prefix rule.

Pure: the change set carries both blobs of every changed file (the read side reads them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from oracle_gate.judge.changes import FileChange, FileStatus, Kind
from oracle_gate.judge.globs import GlobSet

_UNSET = object()


def seed_rewrites(change: FileChange, append_only: GlobSet) -> Iterator[tuple[str, str]]:
    """(path, what happened) for a change that rewrites an append-only file; nothing for an append
    or a new file."""
    old = change.old_path
    if old is None:  # a new file (added, or renamed in from elsewhere): the corpus grows
        return
    glob = append_only.match(old)
    if not glob:
        return
    why = _rewrite(change)
    if why is not None:
        yield old, f"{why} (append-only by '{glob}')"


def _rewrite(change: FileChange) -> str | None:
    """Why the change is not an append (None when it is one)."""
    if change.status == FileStatus.DELETED or change.new_path is None:
        return "deleted"
    if change.status == FileStatus.RENAMED or change.new_path != change.old_path:
        return f"renamed to {change.new_path}"
    if change.old_kind != change.new_kind or change.new_kind != Kind.FILE:
        return "type changed" if change.old_kind != change.new_kind else "not a regular file"
    if change.old_blob is None or change.new_blob is None:
        return "edited, and too large to check that it only grows"
    return _edit_rewrite(change.old_blob, change.new_blob)


def _edit_rewrite(old: bytes, new: bytes) -> str | None:
    """Why an edit of a regular file is not an append (None when it is one)."""
    if not appends(old, new):
        return "edited: the parent's content is not kept as a prefix"
    if extends_last_record(old, new):
        return "edited: extends the parent's last record (it ends with no newline, and head adds none first)"
    return None


def appends(old: bytes, new: bytes) -> bool:
    """Whether ``new`` only appends to ``old``: element-wise for two JSON arrays, else byte-wise."""
    old_items, new_items = _json_array(old), _json_array(new)
    if isinstance(old_items, list) and isinstance(new_items, list):
        if len(new_items) < len(old_items):
            return False
        try:
            return all(_canonical(a) == _canonical(b) for a, b in zip(old_items, new_items, strict=False))
        except (ValueError, RecursionError):  # too deep to compare as values: compare the bytes
            pass
    return new.startswith(old)


def extends_last_record(old: bytes, new: bytes) -> bool:
    """v3.9.4: whether ``new`` (which keeps ``old`` as a prefix) continues the last line of a text
    file ``old`` that is not a JSON array and does not end with a newline."""
    if not old or old.endswith(b"\n") or len(new) <= len(old) or b"\0" in old:
        return False
    if isinstance(_json_array(old), list):
        return False
    try:
        old.decode("utf-8")
    except UnicodeDecodeError:  # binary: the byte-prefix rule of v3.6 only
        return False
    return new[len(old) : len(old) + 1] != b"\n"


def _json_array(data: bytes) -> object:
    """The file's elements when it is a JSON array, else a sentinel (never an exception)."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _UNSET
    return doc if isinstance(doc, list) else _UNSET


def _canonical(value: object) -> str:
    """An element as text that tells ``1``, ``1.0`` and ``true`` apart (Python's ``==`` does not)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True)
