"""The change set: what a change does to each file, in parent coordinates.

Pure: :func:`build_changes` (the read side, :mod:`gate.check`, asks git for its inputs) turns
the tree-level change list, the blobs and git's unified diff of those blobs (parsed with unidiff) into
:class:`FileChange` values carrying the touched parent lines and the added
lines, following the contract's rules for renames, deletions, binaries, modes,
symlinks and submodules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchedFile, PatchSet

from gate.errors import GitError

BINARY_PROBE = 8000  # bytes git itself inspects for a NUL


class Kind(StrEnum):
    FILE = "file"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"


TEXT_KINDS = (Kind.FILE, Kind.SYMLINK)  # kinds whose blob has bytes to diff

MODE_KINDS = {
    "100644": Kind.FILE,
    "100755": Kind.FILE,
    "100664": Kind.FILE,
    "120000": Kind.SYMLINK,
    "160000": Kind.SUBMODULE,
}


@dataclass(frozen=True)
class RawChange:
    """One entry of ``git diff-tree -r -M --raw`` between two commits."""

    status: str  # one letter: A, D, M, R, T (C is never produced: no -C)
    old_path: str | None
    new_path: str | None
    old_mode: str
    new_mode: str
    old_sha: str | None
    new_sha: str | None


class FileStatus(StrEnum):
    """What a change does to a file (the contract's words)."""

    ADDED = "added"
    DELETED = "deleted"
    MODIFIED = "modified"
    RENAMED = "renamed"
    TYPE_CHANGED = "type_changed"


#: git's one-letter raw status -> the file's status.
STATUS_NAMES = {
    "A": FileStatus.ADDED,
    "D": FileStatus.DELETED,
    "M": FileStatus.MODIFIED,
    "R": FileStatus.RENAMED,
    "T": FileStatus.TYPE_CHANGED,
}


@dataclass(frozen=True)
class AddedLine:
    number: int  # line number in the head file
    text: str


@dataclass(frozen=True)
class FileChange:
    status: FileStatus
    old_path: str | None
    new_path: str | None
    old_mode: str | None
    new_mode: str | None
    old_blob: bytes | None = field(default=None, repr=False)
    new_blob: bytes | None = field(default=None, repr=False)
    binary: bool = False
    touched: frozenset[int] = frozenset()
    added: tuple[AddedLine, ...] = ()
    #: v2, for inner touched lines: the removed lines' parent numbers, and each pure insertion's
    #: anchors (k, k + 1) in parent coordinates (k may be 0, k + 1 past the end: not clipped here).
    removed: frozenset[int] = frozenset()
    insertions: tuple[tuple[int, int], ...] = ()

    @property
    def path(self) -> str:
        """The parent-side path when there is one (the contract's coordinates)."""
        return self.old_path or self.new_path or ""

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p))

    @property
    def old_kind(self) -> Kind | None:
        return kind_of(self.old_mode)

    @property
    def new_kind(self) -> Kind | None:
        return kind_of(self.new_mode)

    @property
    def content_changed(self) -> bool:
        return self.old_blob != self.new_blob or self.old_kind != self.new_kind

    @property
    def mode_only(self) -> bool:
        return (
            self.status == FileStatus.MODIFIED and not self.content_changed and self.old_mode != self.new_mode
        )


@dataclass(frozen=True)
class ChangeSet:
    parent: str
    head: str
    files: tuple[FileChange, ...]

    def touched(self) -> dict[str, list[int]]:
        """Parent path -> sorted touched lines, files without any left out."""
        return {f.path: sorted(f.touched) for f in self.files if f.touched}


def kind_of(mode: str | None) -> Kind | None:
    if mode is None or set(mode) == {"0"}:
        return None
    return MODE_KINDS.get(mode, Kind.FILE)


def is_binary(blob: bytes | None) -> bool:
    return blob is not None and b"\0" in blob[:BINARY_PROBE]


def line_count(blob: bytes) -> int:
    """Lines as git counts them: split on LF, a last line without LF counts."""
    return blob.count(b"\n") + (1 if blob and not blob.endswith(b"\n") else 0)


def build_changes(
    parent: str,
    head: str,
    raw: Sequence[RawChange],
    blobs: Mapping[str, bytes],
    differ: Callable[[Sequence[tuple[bytes, bytes]]], str],
) -> ChangeSet:
    """Pure: raw changes + blobs + a blob differ -> :class:`ChangeSet`.

    ``differ`` turns (parent bytes, head bytes) pairs into one ``-U0`` unified diff whose file names
    are the pairs' indexes (the read side passes :func:`gate.git.diff_blob_pairs`).
    """
    pairs: list[tuple[bytes, bytes]] = []
    plan: list[tuple[RawChange, bytes | None, bytes | None, bool, list[int]]] = []
    for change in raw:
        old = blobs.get(change.old_sha or "") if kind_of(change.old_mode) in TEXT_KINDS else None
        new = blobs.get(change.new_sha or "") if kind_of(change.new_mode) in TEXT_KINDS else None
        binary = is_binary(old) or is_binary(new)
        indexes: list[int] = []
        if not binary:
            for pair in _line_pairs(change, old, new):
                indexes.append(len(pairs))
                pairs.append(pair)
        plan.append((change, old, new, binary, indexes))
    diff_text = differ(pairs) if pairs else ""
    shapes: dict[int, tuple[set[int], list[tuple[int, int]]]] = {}
    per_pair = _parse_pairs(diff_text, pairs, shapes)
    files = []
    for change, old, new, binary, indexes in plan:
        touched: set[int] = set()
        added: list[AddedLine] = []
        removed: set[int] = set()
        insertions: list[tuple[int, int]] = []
        for i in indexes:
            t, a = per_pair.get(i, (set(), []))
            touched |= t
            added += a
            r, ins = shapes.get(i, (set(), []))
            removed |= r
            insertions += ins
        files.append(
            FileChange(
                status=STATUS_NAMES.get(change.status, FileStatus.MODIFIED),
                old_path=change.old_path,
                new_path=change.new_path,
                old_mode=None if change.old_path is None else change.old_mode,
                new_mode=None if change.new_path is None else change.new_mode,
                old_blob=old,
                new_blob=new,
                binary=binary,
                touched=frozenset(touched),
                added=tuple(added),
                removed=frozenset(removed),
                insertions=tuple(insertions) if len(indexes) == 1 else (),
            )
        )
    files.sort(key=lambda f: (f.path, f.new_path or ""))
    return ChangeSet(parent, head, tuple(files))


def _line_pairs(change: RawChange, old: bytes | None, new: bytes | None) -> list[tuple[bytes, bytes]]:
    """The (parent, head) byte pairs whose line diff defines this change.

    A change of kind (file <-> symlink, anything <-> submodule) is a deletion
    plus an addition; a submodule side contributes no lines.
    """
    old_kind, new_kind = kind_of(change.old_mode), kind_of(change.new_mode)
    if old_kind == new_kind or old_kind is None or new_kind is None:
        if old is None and new is None:
            return []
        return [(old or b"", new or b"")] if old != new else []
    pairs = []
    if old is not None:
        pairs.append((old, b""))
    if new is not None:
        pairs.append((b"", new))
    return pairs


def _parse_pairs(
    diff_text: str,
    pairs: Sequence[tuple[bytes, bytes]],
    shapes: dict[int, tuple[set[int], list[tuple[int, int]]]] | None = None,
) -> dict[int, tuple[set[int], list[AddedLine]]]:
    try:
        patch = PatchSet(diff_text)
    except UnidiffParseError as exc:
        raise GitError(f"cannot parse git's diff: {exc}") from exc
    result: dict[int, tuple[set[int], list[AddedLine]]] = {}
    for patched in patch:
        index = int(patched.source_file.rsplit("/", 1)[-1])
        parent_lines = line_count(pairs[index][0])
        result[index] = _touched_and_added(patched, parent_lines)
        if shapes is not None:
            shapes[index] = _hunk_shape(patched)
    return result


def _hunk_shape(patched: PatchedFile) -> tuple[set[int], list[tuple[int, int]]]:
    """One pair's removed parent lines and the anchors (k, k + 1) of each pure insertion: contract
    v2's inner touched lines must tell an insertion's anchors from removed lines."""
    removed: set[int] = set()
    insertions: list[tuple[int, int]] = []
    for hunk in patched:
        lines = [line.source_line_no for line in hunk if line.is_removed and line.source_line_no is not None]
        removed.update(lines)
        if not lines and hunk.added:
            insertions.append((hunk.source_start, hunk.source_start + 1))
    return removed, insertions


def _touched_and_added(patched: PatchedFile, parent_lines: int) -> tuple[set[int], list[AddedLine]]:
    """Apply the contract's rules to the ``-U0`` hunks of one file.

    With no context lines every hunk is one change block: removed lines (their
    parent numbers are touched) followed by added lines. A block with no
    removed line is a pure insertion after parent line ``k`` (git's
    ``-k,0``), which touches ``k`` and ``k + 1`` where they exist.
    """
    touched: set[int] = set()
    added: list[AddedLine] = []
    for hunk in patched:
        removed = [
            line.source_line_no for line in hunk if line.is_removed and line.source_line_no is not None
        ]
        if removed:
            touched.update(removed)
        elif hunk.added:
            k = hunk.source_start
            touched.update(n for n in (k, k + 1) if 1 <= n <= parent_lines)
        added += [
            AddedLine(line.target_line_no, line.value.rstrip("\n"))
            for line in hunk
            if line.is_added and line.target_line_no is not None
        ]
    return touched, added
