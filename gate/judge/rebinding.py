"""Contract v3.2: what rebinding the syntax cannot name touches, and the ``dynamic_rebinding`` sites.

The sites come from :mod:`oracle_gate.judge.rebinding_sites` (added lines of ``.py`` files *not*
matched by the policy's ``tests`` globs: a test monkeypatching is ordinary; v3.8: nor by its
``ignore`` globs, whose files are not scored: ``exec(line)`` in an ignored ``docs/conf.py``).
A :class:`ModuleWrite` whose module resolves to a parent file
(:class:`~oracle_gate.judge.modules.ModuleIndex`) that defines the name at module level with
``def``/``class`` touches that definition; an :class:`OpaqueWrite` touches every module-level
definition of the writing file's own parent version, and is reported. The touched lines go into the
change set (:class:`~oracle_gate.judge.changes.Rebound`) *before* the map is asked, so they are
scored like any touched line (and inherit their function's observers).

The read side calls :func:`modules_to_read` (which parent files it must read) and then
:func:`with_dynamic_rebinding`; the verdict calls :func:`dynamic_rebinding_sites`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from oracle_gate.judge.changes import ChangeSet, FileChange, Rebound
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.modules import ModuleIndex
from oracle_gate.judge.pyscope import PythonFile, parse_python
from oracle_gate.judge.python_facts import python_facts
from oracle_gate.judge.rebinding_sites import OpaqueWrite, Sites

#: No file: the default of ``ignored`` (every non-test file is judged).
NO_FILES = GlobSet(())


def _judged_files(
    changes: ChangeSet, tests: GlobSet, ignored: GlobSet = NO_FILES
) -> Iterator[tuple[FileChange, Sites]]:
    """Each changed ``.py`` file with added lines, not a test file and (v3.8) not matched by the
    policy's ``ignore``, and its rebinding sites."""
    for change in changes.files:
        path = change.new_path
        if path is None or not path.lower().endswith(".py") or path in tests or not change.added:
            continue
        if path in ignored:  # v3.8 rule 2: v3.2 does not apply inside ignored files
            continue
        facts = python_facts(change.new_blob, frozenset(a.number for a in change.added))
        if facts is not None and (facts.sites.writes or facts.sites.opaque or facts.sites.globals):
            yield change, facts.sites


def needs_module_index(changes: ChangeSet, tests: GlobSet, ignored: GlobSet = NO_FILES) -> bool:
    """Whether any v3 rule must know the parent's modules: a module write, a write through a module
    (``setattr(M, name, ...)``, ``M.__dict__``), or an import of the gate's own package (v3.3: the
    project's own when the parent has it). Spares listing a large tree for every other change."""
    if any(s.writes or any(o.module for o in s.opaque) for _, s in _judged_files(changes, tests, ignored)):
        return True
    for change in changes.files:
        if change.new_path and change.new_path.lower().endswith(".py") and change.added:
            facts = python_facts(change.new_blob, frozenset(a.number for a in change.added))
            if facts is not None and facts.measurement != facts.measurement_without_gate:
                return True
    return False


def modules_to_read(
    changes: ChangeSet, tests: GlobSet, index: ModuleIndex, ignored: GlobSet = NO_FILES
) -> list[str]:
    """The parent files whose definitions a module write may touch (the read side reads them)."""
    wanted = {
        resolved
        for change, sites in _judged_files(changes, tests, ignored)
        for write in sites.writes
        if (resolved := index.resolve(write.module, change.new_path or "")) is not None
    }
    return sorted(wanted)


def counted_opaque(change: FileChange, sites: Sites, index: ModuleIndex) -> list[OpaqueWrite]:
    """The opaque writes that count: unconditional ones, and those on a module that is a parent file."""
    importer = change.new_path or ""
    return [o for o in sites.opaque if o.module is None or index.resolve(o.module, importer) is not None]


def with_dynamic_rebinding(
    changes: ChangeSet,
    tests: GlobSet,
    index: ModuleIndex,
    module_blobs: Mapping[str, bytes | None],
    parents: Mapping[str, PythonFile],
    *,
    ignored: GlobSet = NO_FILES,
) -> ChangeSet:
    """The change set with v3.2's touched definitions added as :class:`Rebound` entries.

    ``module_blobs``: the parent bytes of :func:`modules_to_read`'s files (None: not readable, then
    nothing is touched there); ``parents``: the changed files' parsed parent sides.
    """
    parsed = {path: parse_python(blob) for path, blob in module_blobs.items()}
    found: dict[str, set[int]] = {}
    for change, sites in _judged_files(changes, tests, ignored):
        for write in sites.writes:
            path = index.resolve(write.module, change.new_path or "")
            module = parsed.get(path) if path else None
            if path and module is not None:
                found.setdefault(path, set()).update(_lines(module, write.name))
        own = parents.get(change.path) if change.old_path else None
        if own is not None and counted_opaque(change, sites, index):
            found.setdefault(change.path, set()).update(_every_definition(own))
        if own is not None:  # ``global f; f = g`` inside a function: rule 6 from a function
            for rebinding in sites.globals:
                found.setdefault(change.path, set()).update(_lines(own, rebinding.name))
    rebound = tuple(
        Rebound(path, frozenset(lines), _parent_blob(changes, path, module_blobs))
        for path, lines in sorted(found.items())
        if lines
    )
    return replace(changes, rebound=changes.rebound + rebound) if rebound else changes


def with_runtime_rebinding(
    changes: ChangeSet, targets: tuple[tuple[str, str], ...], blobs: Mapping[str, bytes | None]
) -> ChangeSet:
    """SCORING.md v2, 2.2: the change set with the parent lines of definitions the scoring run saw
    rebound (``targets``: (path, module-level name)) added as :class:`Rebound` entries, so the verdict
    is recomputed as if the change had edited them. ``blobs``: the parent bytes of those paths (None:
    the parent has no such file, and there is nothing of the parent's to touch)."""
    found: dict[str, set[int]] = {}
    for path, name in targets:
        blob = blobs.get(path)
        module = parse_python(blob) if blob is not None else None
        if module is not None:
            found.setdefault(path, set()).update(_lines(module, name))
    rebound = tuple(
        Rebound(path, frozenset(lines), blobs.get(path)) for path, lines in sorted(found.items()) if lines
    )
    return replace(changes, rebound=changes.rebound + rebound) if rebound else changes


def dynamic_rebinding_sites(
    changes: ChangeSet, tests: GlobSet, index: ModuleIndex, ignored: GlobSet = NO_FILES
) -> list[tuple[str, int, str]]:
    """(path, line, what) for each added line that rebinds code the gate cannot name."""
    found = []
    for change, sites in _judged_files(changes, tests, ignored):
        by_line: dict[int, str] = {}
        for opaque in counted_opaque(change, sites, index):
            by_line.setdefault(opaque.line, opaque.what)
        found += [(change.new_path or "", line, what) for line, what in sorted(by_line.items())]
    return found


def _lines(module: PythonFile, name: str) -> set[int]:
    return {n for start, end in module.definitions.get(name, ()) for n in range(start, end + 1)}


def _every_definition(module: PythonFile) -> set[int]:
    return {n for spans in module.definitions.values() for start, end in spans for n in range(start, end + 1)}


def _parent_blob(changes: ChangeSet, path: str, module_blobs: Mapping[str, bytes | None]) -> bytes | None:
    if path in module_blobs:
        return module_blobs[path]
    return next((c.old_blob for c in changes.files if c.old_path == path), None)
