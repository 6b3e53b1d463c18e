"""Contract v2's observer rules for Python files: rebinding, scope inheritance and edited observers.

Pure: every input is a value the read side already has (the change set carries the parent and head
blobs of every changed file, the map's observers are asked for :func:`lines_to_ask`). Only the
changed ``.py`` files are parsed, never the whole repository, so the cost follows the change.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

from oracle_gate.judge.changes import ChangeSet, FileChange, FileStatus, is_binary
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.observers import Observers
from oracle_gate.judge.pyscope import FunctionSpan, PythonFile, parse_python, rebound_lines

ParsedFiles = Mapping[str, PythonFile]

#: How an edited test was edited, for the reports.
FILE_GONE = "its file is deleted or renamed"
OWN_BODY = "this change edits its own function"
HELPER = "this change edits a test helper or fixture it runs"


def is_python(path: str | None) -> bool:
    return path is not None and path.endswith(".py")


def parse_parent_files(changes: ChangeSet) -> dict[str, PythonFile]:
    """The parent side of every changed ``.py`` file that parses (keyed by its parent path).

    Only the parent side has to be text: a file turned binary (or oversized, or shadowed) is touched
    whole, and scope inheritance must hold for it as for a deletion (issue 19).
    """
    parsed = {}
    for change in changes.files:
        if is_python(change.old_path) and change.old_blob is not None and not is_binary(change.old_blob):
            tree = parse_python(change.old_blob)
            if tree is not None:
                parsed[change.path] = tree
    return {**parsed, **parse_rebound_files(changes, parsed)}


def parse_rebound_files(changes: ChangeSet, parsed: ParsedFiles) -> dict[str, PythonFile]:
    """v3.2: the parent side of files that rebinding touches and ``parsed`` lacks (for inheritance)."""
    found = {}
    for extra in changes.rebound:
        if extra.path not in parsed and extra.path not in found and is_python(extra.path):
            tree = parse_python(extra.blob)
            if tree is not None:
                found[extra.path] = tree
    return found


def with_rebinding(changes: ChangeSet, parents: ParsedFiles) -> ChangeSet:
    """The change set with rule 6's lines added: a new module-level statement in head binding a name
    the parent file defines with ``def``/``class`` touches every line of that parent definition."""
    files = []
    for change in changes.files:
        extra = _rebound(change, parents.get(change.path))
        files.append(replace(change, touched=change.touched | extra) if extra else change)
    return replace(changes, files=tuple(files))


def _rebound(change: FileChange, parent: PythonFile | None) -> frozenset[int]:
    if parent is None or not change.added or not is_python(change.new_path) or change.binary:
        return frozenset()
    head = parse_python(change.new_blob)
    if head is None:
        return frozenset()
    return frozenset(rebound_lines(parent, head, (a.number for a in change.added)))


def inner_touched(change: FileChange, parsed: PythonFile | None) -> set[int]:
    """Removed lines, plus both anchors of a pure insertion that lie in the same function's span."""
    inner = set(change.removed)
    if parsed is None:
        return inner
    for k, after in change.insertions:
        span = parsed.innermost_function(k)
        if span is not None and after in span:
            inner.update((k, after))
    return inner


def lines_to_ask(
    touched: Mapping[str, Iterable[int]], parents: ParsedFiles, also: Mapping[str, Iterable[int]] = {}
) -> dict[str, list[int]]:
    """What to ask the map: the touched lines, every line of each innermost function span holding a
    touched line (for inheritance), and ``also`` (inner touched lines of test files)."""
    wanted: dict[str, set[int]] = {}
    for path, lines in touched.items():
        ask = wanted.setdefault(path, set())
        parsed = parents.get(path)
        spans: set[FunctionSpan] = set()
        for line in lines:
            ask.add(line)
            span = parsed.innermost_function(line) if parsed is not None else None
            if span is not None and span not in spans:
                spans.add(span)
                ask.update(range(span.start, span.end + 1))
    for path, lines in also.items():
        wanted.setdefault(path, set()).update(lines)
    return {path: sorted(lines) for path, lines in wanted.items()}


@dataclass(frozen=True)
class TouchedObservers:
    """Each touched line's observers under contract v2 and where inheritance supplied them."""

    by_line: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
    inherited: dict[str, set[int]] = field(default_factory=dict)


def observers_of_touched(
    touched: Mapping[str, Collection[int]], observers: Observers, parents: ParsedFiles
) -> TouchedObservers:
    """A touched line with no observer in a parsed ``.py`` file takes every observer of any line of
    the innermost function around it; other lines keep the map's observers."""
    result = TouchedObservers()
    for path, lines in touched.items():
        measured = observers.get(path, {})
        parsed = parents.get(path)
        per_line: dict[int, frozenset[str]] = {}
        of_span: dict[FunctionSpan, frozenset[str]] = {}  # each span's observers, gathered once
        for line in lines:
            tests = measured.get(line, frozenset())
            span = parsed.innermost_function(line) if parsed is not None and not tests else None
            if span is not None:
                if span not in of_span:
                    of_span[span] = frozenset(
                        t for n in range(span.start, span.end + 1) for t in measured.get(n, ())
                    )
                tests = of_span[span]
                if tests:
                    result.inherited.setdefault(path, set()).add(line)
            if tests:
                per_line[line] = tests
        if per_line:
            result.by_line[path] = per_line
    return result


def edited_tests(
    candidates: Iterable[str],
    changes: ChangeSet,
    parents: ParsedFiles,
    observers: Observers,
    tests: GlobSet,
) -> dict[str, str]:
    """Which of ``candidates`` (test ids) this change edits, each with how."""
    by_old_path = {c.old_path: c for c in changes.files if c.old_path}
    inner = {c.path: inner_touched(c, parents.get(c.path)) for c in changes.files}
    helper_observers = {
        t
        for path, lines in inner.items()
        if lines and path in tests
        for line in lines
        for t in observers.get(path, {}).get(line, ())
    }
    edited = {}
    for test in candidates:
        how = _how_edited(test, by_old_path, inner, parents, helper_observers)
        if how is not None:
            edited[test] = how
    return edited


def _how_edited(
    test: str,
    by_old_path: Mapping[str, FileChange],
    inner: Mapping[str, set[int]],
    parents: ParsedFiles,
    helper_observers: Collection[str],
) -> str | None:
    path = test.split("::", 1)[0]
    change = by_old_path.get(path)
    if change is not None and change.status in (
        FileStatus.DELETED,
        FileStatus.RENAMED,
        FileStatus.TYPE_CHANGED,
    ):
        return FILE_GONE
    parsed = parents.get(path)
    lines = inner.get(path, set())
    if parsed is not None and lines:
        for span in parsed.test_functions(test):
            if any(line in span for line in lines):
                return OWN_BODY
    if test in helper_observers:
        return HELPER
    return None
