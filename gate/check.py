"""The read side: everything the verdict needs, read from git and the map, then one evaluation.

The oracle (policy, freeze manifest, lock) is always read from the **parent** commit with git, never
from head and never from the working tree, so a change can never weaken what judges it. This is the
one place that turns git's answers into the judging core's values: :func:`read_oracle` (shared by
``check`` and ``map``; defined in :mod:`oracle_gate.oracle_files`, which ``map`` imports without the
judge), :func:`read_changes` and :func:`read_locked_blobs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from oracle_gate import __version__
from oracle_gate.errors import GitError
from oracle_gate.git import Git, diff_blob_pairs
from oracle_gate.judge.approvals import Approval, QueuedApprovals
from oracle_gate.judge.changes import (
    MAX_BLOB,
    TEXT_KINDS,
    ChangeSet,
    FileStatus,
    Kind,
    RawChange,
    build_changes,
    kind_of,
    line_count,
    shadowed_module,
    with_shadowed_modules,
)
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.lock import FixtureLock
from oracle_gate.judge.modules import ModuleIndex
from oracle_gate.judge.observer_rules import (
    ParsedFiles,
    inner_touched,
    lines_to_ask,
    parse_parent_files,
    parse_rebound_files,
    with_rebinding,
)
from oracle_gate.judge.pyscope import MAX_PARSE_BYTES
from oracle_gate.judge.pytest_config import CONFIG_FILES, joined_addopts
from oracle_gate.judge.rebinding import (
    modules_to_read,
    needs_module_index,
    with_dynamic_rebinding,
    with_runtime_rebinding,
)
from oracle_gate.judge.symlinks import EntryKind, LinkResolution, resolve_link
from oracle_gate.judge.verdict import Evidence, Provenance, Verdict, changed_link_target, evaluate
from oracle_gate.maps.reader.binding import load_parent_coverage
from oracle_gate.maps.reader.data import EarlyMapRead
from oracle_gate.maps.reader.mapbytes import EarlyHash
from oracle_gate.oracle_files import read_oracle


@dataclass(frozen=True)
class CheckRequest:
    repo: Path
    base: str
    head: str
    coverage: Path | None = None
    coverage_sha: str | None = None
    extra_protected: tuple[str, ...] = ()
    allow_failing_parent: bool = False
    # v3.5: the approving reviews (None: not looked up), the pull request's author, and the
    # revision whose full SHA an approval must name (None: --head).
    approvals: tuple[Approval, ...] | None = None
    author: str | None = None
    pr_head: str | None = None
    # v3.9.1: when the base branch last changed; v3.9.3: the author's permission now (None: unasked).
    base_changed_at: datetime | None = None
    author_permission: str | None = None
    # v3.9.2: the pull requests of a merge group of several, each with its approvals (None: not one).
    queued: tuple[QueuedApprovals, ...] | None = None
    # v3.7: the date freeze expiry is judged on (None: today's UTC date).
    today: date | None = None
    # SCORING.md v2, 2.2: (path, name) of definitions the scoring run saw rebound; their parent lines
    # join ``touched`` (the score recomputes the diff verdict with them).
    rebound: tuple[tuple[str, str], ...] = ()


def read_changes(git: Git, parent: str, head: str, *, v2_reads: bool = True) -> ChangeSet:
    """Ask git for the change from ``parent`` to ``head`` and build the change set.

    Sizes are asked first: a blob larger than ``MAX_BLOB`` is never loaded whole (v2), only its
    lines counted by streaming, so memory is bounded by the cap and not by the change.
    ``v2_reads=False`` skips module shadowing (the benchmark's switch, bench/v2_change.py).
    """
    raw = git.changes(parent, head)
    shas = sorted(
        {
            s
            for c in raw
            for s, mode in ((c.old_sha, c.old_mode), (c.new_sha, c.new_mode))
            if s and kind_of(mode) in TEXT_KINDS
        }
    )
    sizes = dict(zip(shas, git.sizes(shas), strict=True))
    missing = [sha for sha, size in sizes.items() if size is None]
    if missing:
        raise GitError(f"blob {missing[0]} is missing from the repository (shallow or partial clone?)")
    small = [sha for sha in shas if (sizes[sha] or 0) <= MAX_BLOB]
    objects = dict(zip(small, git.read(small), strict=True))
    blobs = {sha: obj.data for sha, obj in objects.items() if obj is not None}
    oversized = {sha: git.count_lines(sha) for sha in _oversized_parent_sides(raw, sizes)}
    oversized.update({sha: 0 for sha in shas if (sizes[sha] or 0) > MAX_BLOB and sha not in oversized})
    changes = build_changes(parent, head, raw, blobs, diff_blob_pairs, oversized=oversized)
    return with_shadowed_modules(changes, read_shadowed(git, parent, changes)) if v2_reads else changes


def _oversized_parent_sides(raw: list[RawChange], sizes: dict[str, int | None]) -> set[str]:
    """Parent blobs whose lines must be counted: the old side of every change with an oversized side."""

    def big(sha: str | None) -> bool:
        return sha is not None and (sizes.get(sha) or 0) > MAX_BLOB

    return {c.old_sha for c in raw if c.old_sha and c.old_sha in sizes and (big(c.old_sha) or big(c.new_sha))}


def read_shadowed(git: Git, parent: str, changes: ChangeSet) -> dict[str, tuple[str, int, bytes | None]]:
    """v2: parent modules ``D/M.py`` that an added path shadows -> (that path, the module's line count,
    its bytes unless it is over the blob cap).

    Only the candidate paths are asked of the parent tree; a module head deletes or renames away
    is already wholly touched and is left out.
    """
    candidates: dict[str, str] = {}
    for change in changes.files:
        if change.new_path and change.status in (FileStatus.ADDED, FileStatus.RENAMED):
            module = shadowed_module(change.new_path)
            if module:
                candidates.setdefault(module, change.new_path)
    gone = {f.old_path for f in changes.files if f.old_path and f.new_path != f.old_path}
    wanted = sorted(m for m in candidates if m not in gone)
    specs = [f"{parent}:{m}" for m in wanted]
    blobs_here = git.existing_files(parent, wanted)
    present = [
        (module, size, spec)
        for module, size, spec in zip(wanted, git.sizes(specs), specs, strict=True)
        if size is not None and module in blobs_here
    ]
    small = git.read_blobs(parent, [module for module, size, _ in present if size <= MAX_BLOB])
    found: dict[str, tuple[str, int, bytes | None]] = {}
    for module, size, spec in present:
        blob = None if size > MAX_BLOB else small[module]
        count = git.count_lines(spec) if blob is None else line_count(blob)
        found[module] = (candidates[module], count, blob)
    return found


class _Entry:
    """One name of head's tree: its kind, a link's target, and (for a listed directory) its names."""

    __slots__ = ("kind", "names", "target")

    def __init__(self, kind: EntryKind, target: str | None = None) -> None:
        self.kind, self.target = kind, target
        self.names: dict[str, _Entry] | None = None


_MISSING = _Entry(EntryKind.MISSING)


class HeadTree:
    """Answers "what is PATH in head?" for the symlink resolver, one directory listing at a time.

    Only the directories along the targets are listed (cached, as a tree of names), and only links'
    blobs are read. A lookup walks the path's segments once, so it costs time linear in the path's
    length: a target of thousands of segments (under the 4,096-byte cap) cannot make it quadratic or
    worse per added link (TRUST 8).
    """

    def __init__(self, git: Git, head: str) -> None:
        self.git, self.head = git, head
        self.root = _Entry(EntryKind.TREE)

    def lookup(self, path: str) -> tuple[EntryKind, str | None]:
        entry, walked = self.root, list[str]()
        for name in path.split("/") if path else []:
            if entry.kind != EntryKind.TREE:
                return (EntryKind.MISSING, None)
            if entry.names is None:
                entry.names = self._list("/".join(walked))
            walked.append(name)
            entry = entry.names.get(name, _MISSING)
        return (entry.kind, entry.target)

    def _list(self, directory: str) -> dict[str, _Entry]:
        entries = self.git.list_directory(self.head, directory)
        links = {name: sha for name, (mode, sha) in entries.items() if kind_of(mode) == Kind.SYMLINK}
        targets = dict(zip(links, self.git.read(list(links.values())), strict=True))
        names: dict[str, _Entry] = {}
        for path, (mode, _sha) in entries.items():
            name = path.rpartition("/")[2]
            if path in links:
                obj = targets[path]
                target = obj.data.decode("utf-8", "surrogateescape") if obj is not None else ""
                names[name] = _Entry(EntryKind.LINK, target)
            else:
                names[name] = _Entry(EntryKind.TREE if mode == "040000" else EntryKind.OTHER)
        return names


def read_links(git: Git, head: str, changes: ChangeSet) -> dict[str, LinkResolution]:
    """v2: where each symlink the change adds or re-points leads through head's tree."""
    tree = HeadTree(git, head)
    resolved = {}
    for change in changes.files:
        target = changed_link_target(change)
        if target is not None and change.new_path is not None:
            resolved[change.new_path] = resolve_link(change.new_path, target, tree.lookup)
    return resolved


def read_locked_blobs(git: Git, head: str, lock: FixtureLock) -> dict[str, bytes | None]:
    """The head bytes of every path the lock pins a digest for (None when missing)."""
    return git.read_blobs(head, [p for p, _ in lock.sha256])


def read_addopts(git: Git, parent: str) -> str:
    """v2: the parent's pytest ``addopts`` from its root configuration files, read with git."""
    return joined_addopts(git.read_blobs(parent, list(CONFIG_FILES)))


def read_module_index(
    git: Git, parent: str, changes: ChangeSet, tests: GlobSet, ignored: GlobSet | None = None
) -> ModuleIndex:
    """v3.2/v3.3: the parent's ``.py`` paths, listed only when an added line needs them."""
    if not needs_module_index(changes, tests, ignored or GlobSet(())):
        return ModuleIndex()
    return ModuleIndex(frozenset(git.files_ending(parent, ".py")))


def read_dynamic_rebinding(
    git: Git,
    parent: str,
    changes: ChangeSet,
    *,
    tests: GlobSet,
    modules: ModuleIndex,
    parents: ParsedFiles,
    ignored: GlobSet | None = None,
) -> ChangeSet:
    """v3.2: read the parent modules that added lines rebind (those small enough to parse), then let
    the core add what they touch (v3.8: not from files the policy ignores)."""
    skipped = ignored or GlobSet(())
    wanted = modules_to_read(changes, tests, modules, skipped)
    sizes = dict(zip(wanted, git.sizes([f"{parent}:{p}" for p in wanted]), strict=True))
    small = [p for p in wanted if (sizes[p] or 0) <= MAX_PARSE_BYTES]
    blobs: dict[str, bytes | None] = dict.fromkeys(wanted)
    blobs.update(git.read_blobs(parent, small))
    return with_dynamic_rebinding(changes, tests, modules, blobs, parents, ignored=skipped)


def read_runtime_rebinding(
    git: Git, parent: str, changes: ChangeSet, targets: tuple[tuple[str, str], ...]
) -> ChangeSet:
    """SCORING.md v2, 2.2: read the parent files of definitions the scoring run saw rebound (those
    small enough to parse), then let the core add their lines."""
    paths = sorted({path for path, _ in targets})
    sizes = dict(zip(paths, git.sizes([f"{parent}:{p}" for p in paths]), strict=True))
    small = [p for p in paths if (sizes[p] or MAX_PARSE_BYTES + 1) <= MAX_PARSE_BYTES]
    blobs: dict[str, bytes | None] = dict.fromkeys(paths)
    blobs.update(git.read_blobs(parent, small))
    return with_runtime_rebinding(changes, targets, blobs)


def gather(git: Git, request: CheckRequest, early_hash: EarlyHash | None = None) -> Evidence:
    """Read the parent's oracle, the change and the map. Raises GateError if git cannot answer.
    ``early_hash``: the map's hashing, started by the caller (the command line) before its imports."""
    early = EarlyMapRead(request.coverage, early_hash) if request.coverage is not None else None
    git.check_repository()
    parent, head = git.commit(request.base), git.commit(request.head)
    oracle = read_oracle(git, parent, request.extra_protected)
    changes = read_changes(git, parent, head)
    parents = parse_parent_files(changes)  # v2: the changed .py files' parent side, parsed once
    changes = with_rebinding(changes, parents)
    ignored, tests = oracle.policy.ignored(), oracle.policy.test_files()
    modules = read_module_index(
        git, parent, changes, tests, ignored
    )  # v3.2: rebinding the syntax cannot name
    changes = read_dynamic_rebinding(
        git, parent, changes, tests=tests, modules=modules, parents=parents, ignored=ignored
    )
    if request.rebound:
        changes = read_runtime_rebinding(git, parent, changes, request.rebound)
    parents = {**parents, **parse_rebound_files(changes, parents)}
    scored = {path: lines for path, lines in changes.touched().items() if path not in ignored}
    test_inner = {c.path: inner_touched(c, parents.get(c.path)) for c in changes.files if c.path in tests}
    coverage = load_parent_coverage(
        git,
        parent=parent,
        coverage=request.coverage,
        coverage_sha=request.coverage_sha,
        touched=lines_to_ask(scored, parents, test_inner),
        allow_failing_parent=request.allow_failing_parent,
        frozen=[e.nodeid for e in oracle.freeze.entries],
        early=early,
    )
    protocol = Provenance(
        policy_sha256=oracle.policy_sha256,
        freeze_sha256=oracle.freeze_sha256,
        lock_sha256=oracle.lock_sha256,
        coverage_sha256=coverage.digest,
        gate_version=__version__,
        extra_protected=oracle.policy.extra_protected,
        allow_failing_parent=request.allow_failing_parent,
    )
    return Evidence(
        changes=changes,
        policy=oracle.policy,
        freeze=oracle.freeze,
        lock=oracle.lock,
        locked_blobs=read_locked_blobs(git, head, oracle.lock),
        coverage=coverage,
        protocol=protocol,
        parents=parents,
        addopts=read_addopts(git, parent),
        links=read_links(git, head, changes),
        modules=modules,
        approvals=request.approvals,
        author=request.author,
        approved_head=git.commit(request.pr_head) if request.pr_head else head,
        base_changed_at=request.base_changed_at,
        author_permission=request.author_permission,
        queued=request.queued,
        today=request.today or datetime.now(UTC).date(),
    )


def run_check(request: CheckRequest, git: Git | None = None, early_hash: EarlyHash | None = None) -> Verdict:
    return evaluate(gather(git or Git(request.repo), request, early_hash))
