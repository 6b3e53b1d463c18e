"""The change set: what a change does to each file, in parent coordinates.

Pure: :func:`build_changes` (the read side, :mod:`oracle_gate.check`, asks git for its inputs) turns
the tree-level change list, the blobs and git's unified diff of those blobs (parsed with unidiff) into
:class:`FileChange` values carrying the touched parent lines and the added
lines, following the contract's rules for renames, deletions, binaries, modes,
symlinks and submodules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchedFile, PatchSet

from oracle_gate.errors import GitError

BINARY_PROBE = 8000  # bytes git itself inspects for a NUL
MAX_BLOB = 16 * 1024 * 1024  # v2: a blob larger than this is judged without a diff


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
    # v2: a side is larger than MAX_BLOB: not read, not diffed; every parent line is touched.
    oversized: bool = False
    # v2: the added path Python would import instead of this (unchanged or edited) parent module.
    shadowed_by: str | None = None

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
        return self.oversized or self.old_blob != self.new_blob or self.old_kind != self.new_kind

    @property
    def mode_only(self) -> bool:
        return (
            self.status == FileStatus.MODIFIED and not self.content_changed and self.old_mode != self.new_mode
        )


@dataclass(frozen=True)
class Rebound:
    """v3.2: parent lines of ``path`` that rebinding touches, in a file the diff may leave alone
    (``retry.f = g`` elsewhere), with the parent bytes for scope inheritance."""

    path: str
    lines: frozenset[int]
    blob: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ChangeSet:
    parent: str
    head: str
    files: tuple[FileChange, ...]
    rebound: tuple[Rebound, ...] = ()  # v3.2

    def touched(self) -> dict[str, list[int]]:
        """Parent path -> sorted touched lines, files without any left out."""
        if not self.rebound:
            return {f.path: sorted(f.touched) for f in self.files if f.touched}
        lines: dict[str, set[int]] = {f.path: set(f.touched) for f in self.files}
        for extra in self.rebound:
            lines.setdefault(extra.path, set()).update(extra.lines)
        return {path: sorted(lines[path]) for path in sorted(lines) if lines[path]}


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
    *,
    oversized: Mapping[str, int] | None = None,
) -> ChangeSet:
    """Pure: raw changes + blobs + a blob differ -> :class:`ChangeSet`.

    ``differ`` turns (parent bytes, head bytes) pairs into one ``-U0`` unified diff whose file names
    are the pairs' indexes (the read side passes :func:`oracle_gate.git.diff_blob_pairs`). ``oversized``
    maps the id of each blob larger than :data:`MAX_BLOB` (not in ``blobs``: never read whole) to its
    line count, which the read side counts by streaming.
    """
    big = oversized or {}
    pairs: list[tuple[bytes, bytes]] = []
    plan: list[tuple[RawChange, bytes | None, bytes | None, bool, list[int], range | None]] = []
    for change in raw:
        old = blobs.get(change.old_sha or "") if kind_of(change.old_mode) in TEXT_KINDS else None
        new = blobs.get(change.new_sha or "") if kind_of(change.new_mode) in TEXT_KINDS else None
        whole = _wholly_touched(change, old, new, big)
        binary = is_binary(old) or is_binary(new)
        indexes: list[int] = []
        if whole is None and not is_binary(new):
            for pair in _line_pairs(change, b"" if is_binary(old) else old, new):
                indexes.append(len(pairs))
                pairs.append(pair)
        plan.append((change, old, new, binary, indexes, whole))
    diff_text = differ(pairs) if pairs else ""
    shapes: dict[int, tuple[set[int], list[tuple[int, int]]]] = {}
    per_pair = _parse_pairs(diff_text, pairs, shapes)
    files = []
    for change, old, new, binary, indexes, whole in plan:
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
        every = None if whole is None else frozenset(whole)  # one set for both: a big file's lines
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
                touched=frozenset(touched) if every is None else every,
                added=tuple(added),
                removed=frozenset(removed) if every is None else every,
                insertions=tuple(insertions) if len(indexes) == 1 and whole is None else (),
                oversized=_is_oversized(change, big),
            )
        )
    files.sort(key=lambda f: (f.path, f.new_path or ""))
    return ChangeSet(parent, head, tuple(files))


def _is_oversized(change: RawChange, oversized: Mapping[str, int]) -> bool:
    return change.old_sha != change.new_sha and (change.old_sha in oversized or change.new_sha in oversized)


def _wholly_touched(
    change: RawChange, old: bytes | None, new: bytes | None, oversized: Mapping[str, int]
) -> range | None:
    """v2: the parent lines a change touches without a diff (None: diff it).

    Oversized (either side > MAX_BLOB): every parent line, and head adds none. Text turned
    binary: every parent line, as for a deletion. (Binary turned text is diffed against an empty
    parent: every head line is added, so a marker in it is seen; a binary parent has no lines.)
    """
    if _is_oversized(change, oversized):
        if kind_of(change.old_mode) not in TEXT_KINDS:
            return range(0)
        if change.old_sha in oversized:
            return range(1, oversized[change.old_sha or ""] + 1)
        return range(1, line_count(old or b"") + 1)
    if old is not None and new is not None and not is_binary(old) and is_binary(new):
        return range(1, line_count(old) + 1)
    return None


def shadowed_module(path: str) -> str | None:
    """v2: the module ``D/M.py`` that an added ``path`` would make Python import instead.

    ``D/M/__init__.py`` (a package), ``D/M.so``, ``D/M.pyd`` and ``D/M.<tag>.so|pyd``
    (extension modules) all shadow ``D/M.py``; None for any other path.
    """
    directory, _, name = path.rpartition("/")
    prefix = directory + "/" if directory else ""
    if name == "__init__.py" and directory:
        return directory + ".py"
    stem, dot, suffix = name.partition(".")
    if stem and dot and suffix.rpartition(".")[2] in ("so", "pyd"):
        return prefix + stem + ".py"
    return None


def with_shadowed_modules(
    changes: ChangeSet, shadowed: Mapping[str, tuple[str, int, bytes | None]]
) -> ChangeSet:
    """v2: every shadowed parent module touches all its lines, as if it were deleted.

    ``shadowed`` maps a parent module ``D/M.py`` that head still has to (the added path that
    shadows it, the module's parent line count, its parent bytes unless oversized); the read side
    asks git for those only. A module the change does not otherwise touch gets an entry whose two
    blobs are the parent's bytes (so its content did not change, and Python-aware rules can parse it).
    """
    files = list(changes.files)
    for module, (shadow, count, blob) in sorted(shadowed.items()):
        every_line = frozenset(range(1, count + 1))
        index = next((i for i, f in enumerate(files) if f.old_path == module), None)
        if index is None:
            files.append(
                FileChange(
                    status=FileStatus.MODIFIED,
                    old_path=module,
                    new_path=module,
                    old_mode="100644",
                    new_mode="100644",
                    old_blob=blob,
                    new_blob=blob,
                    touched=every_line,
                    removed=every_line,
                    shadowed_by=shadow,
                )
            )
        else:
            files[index] = replace(
                files[index],
                touched=files[index].touched | every_line,
                removed=files[index].removed | every_line,
                shadowed_by=shadow,
            )
    files.sort(key=lambda f: (f.path, f.new_path or ""))
    return replace(changes, files=tuple(files))


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
