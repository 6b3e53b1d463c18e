"""Observers: which tests observed which touched parent lines, and why a map could not say.

Pure: the map is asked through :class:`MapReader` (the readers live in :mod:`oracle_gate.maps.reader.data`)
and whether a path names a parent file through a callable, so only the touched files are ever read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from oracle_gate.judge.problems import Problem

Observers = dict[str, dict[int, frozenset[str]]]
_STRIPPED_ENDINGS = ("/", "\\", ".")


@dataclass(frozen=True)
class ParentCoverage:
    """What the gate takes from the map: observers of touched lines, or problems."""

    observers: Observers = field(default_factory=dict)
    digest: str | None = None
    problems: tuple[Problem, ...] = ()
    #: v2: the freeze entries (as written) that match no test id the map knows ran; None: not checked.
    unseen_frozen: frozenset[str] | None = None
    #: v3.4: the observations (path -> line -> tests) that one run of the parent's tests recorded
    #: and a repeat did not, or the other way round (the manifest's ``unstable``).
    unstable: Observers = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return not self.problems


class MapReader(Protocol):
    def measured_files(self) -> Iterable[str]: ...
    def has_test_contexts(self) -> bool: ...
    def tests_by_line(self, measured: str) -> dict[int, set[str]]: ...


def without_unstable(
    observers: Observers, unstable: Observers, is_frozen: Callable[[str], bool]
) -> Observers:
    """v3.4: the observers without the unstable observations of live tests (a frozen test's
    observations count, stable or not)."""
    if not unstable:
        return observers
    result: Observers = {}
    for path, by_line in observers.items():
        shaky = unstable.get(path, {})
        result[path] = {
            line: frozenset(t for t in tests if is_frozen(t) or t not in shaky.get(line, ()))
            for line, tests in by_line.items()
        }
    return result


def map_measured_paths(
    measured: Iterable[str], wanted: Iterable[str], parent_files: Callable[[set[str]], set[str]]
) -> dict[str, list[str]]:
    """Which measured paths map to each wanted repo-relative path. Pure, given ``parent_files``.

    A measured path maps to the longest trailing run of its components that
    names a file of the parent tree. ``parent_files(candidates)`` answers which
    candidates are parent files; only suffixes longer than a wanted path are
    asked, so the cost follows the touched files, not the size of the map.
    """
    wanted = set(wanted)
    by_name: dict[str, list[str]] = {}
    for path in sorted(wanted, key=lambda p: -p.count("/")):  # deepest first: the longest run
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    candidates: dict[str, tuple[str, list[str]]] = {}
    endings = (*by_name, *_STRIPPED_ENDINGS)
    for raw in measured:
        # Cheap first: a path whose last component is a wanted name ends with it (or with a
        # separator or ".", which the split below drops); the rest of a 10,000-file map is skipped.
        if not raw.endswith(endings):
            continue
        parts = [p for p in raw.replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts or parts[-1] not in by_name:
            continue
        for path in by_name[parts[-1]]:
            depth = path.count("/") + 1
            if "/".join(parts[-depth:]) == path:
                longer = ["/".join(parts[-n:]) for n in range(depth + 1, len(parts) + 1)]
                candidates[raw] = (path, longer)
                break
    existing = parent_files({s for _, longer in candidates.values() for s in longer})
    result: dict[str, list[str]] = {}
    for raw, (path, longer) in sorted(candidates.items()):
        if not any(s in existing for s in longer):
            result.setdefault(path, []).append(raw)
    return result


def touched_observers(
    reader: MapReader, touched: Mapping[str, Iterable[int]], parent_files: Callable[[set[str]], set[str]]
) -> Observers:
    """Test ids observing each touched line, for the touched files only."""
    mapping = map_measured_paths(reader.measured_files(), touched, parent_files)
    observers: Observers = {}
    for path, lines in touched.items():
        wanted = set(lines)
        merged: dict[int, set[str]] = {}
        for measured in mapping.get(path, []):
            for line, tests in reader.tests_by_line(measured).items():
                if line in wanted:
                    merged.setdefault(line, set()).update(tests)
        observers[path] = {line: frozenset(tests) for line, tests in merged.items()}
    return observers
