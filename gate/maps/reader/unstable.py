"""Contract v3.4: the unstable observations a map's manifest lists.

``oracle-gate map --repeat N`` records, under the manifest's ``unstable`` key, what one run of the
parent's tests observed and a repeat did not (or the other way round):
``{"<test id>": {"<path as the map records it>": [line, ...]}}``. ``check`` reads them here, for
the touched files only, through the same path mapping as the map's own rows, so the core can drop
a live test's unstable observations (:func:`oracle_gate.judge.observers.without_unstable`).

A malformed ``unstable`` value makes the whole map unusable (``oracle_incomplete`` naming the
manifest): a map whose stability record cannot be read cannot say which lines are live.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from oracle_gate.errors import InputError

if TYPE_CHECKING:  # ``map`` writes the record with this module and reads no observers: imported where read
    from oracle_gate.judge.observers import Observers

UNSTABLE_KEY = "unstable"
REPEAT_KEY = "repeat"
Unstable = dict[str, dict[str, list[int]]]


def manifest_repeat(extra: Mapping[str, object], source: Path | str) -> int:
    """How many runs of the tests a manifest's map is the union of (``repeat``; absent: one run, as
    every map made before ``--repeat`` existed)."""
    value = extra.get(REPEAT_KEY, 1)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError(
            str(source),
            f"map manifest: {REPEAT_KEY!r} must be a whole number of runs >= 1, got {value!r:.40}",
        )
    return value


def parse_unstable(value: object, source: Path | str) -> Unstable:
    """The ``unstable`` value of a manifest (None or absent: nothing is unstable), checked whole."""
    if value is None:
        return {}
    where = f"map manifest: {UNSTABLE_KEY!r}"
    if not isinstance(value, dict):
        raise InputError(str(source), f"{where} must be an object {{test id: {{path: [lines]}}}}")
    result: Unstable = {}
    for test, files in value.items():
        if not test:
            raise InputError(str(source), f"{where} has an empty test id")
        if not isinstance(files, dict):
            raise InputError(str(source), f"{where}: {test!r:.80} must map to an object {{path: [lines]}}")
        for path, lines in files.items():
            if not path or not isinstance(lines, list) or not all(_is_line(n) for n in lines):
                raise InputError(
                    str(source),
                    f"{where}: {test!r:.80} -> {path!r:.80} must be a list of positive line numbers",
                )
            result.setdefault(test, {})[path] = lines
    return result


def _is_line(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n > 0


class UnstableReader:
    """The unstable observations as a :class:`~oracle_gate.judge.observers.MapReader`, so their paths are
    mapped to repository paths exactly as the map's are."""

    def __init__(self, unstable: Unstable) -> None:
        self._by_file: dict[str, dict[int, set[str]]] = {}
        for test, files in unstable.items():
            for measured, lines in files.items():
                per_line = self._by_file.setdefault(measured, {})
                for n in lines:
                    per_line.setdefault(n, set()).add(test)

    def measured_files(self) -> Iterable[str]:
        return self._by_file.keys()

    def has_test_contexts(self) -> bool:
        return bool(self._by_file)

    def tests_by_line(self, measured: str) -> dict[int, set[str]]:
        return self._by_file.get(measured, {})


def unstable_observers(
    extra: Mapping[str, object],
    source: Path,
    touched: Mapping[str, Iterable[int]],
    parent_files: Callable[[set[str]], set[str]],
) -> Observers:
    """The touched lines' unstable observations (path -> line -> tests) of a manifest's ``extra``."""
    from oracle_gate.judge.observers import touched_observers

    unstable = parse_unstable(extra.get(UNSTABLE_KEY), source)
    if not unstable:
        return {}
    found = touched_observers(UnstableReader(unstable), touched, parent_files)
    return {path: lines for path, lines in found.items() if lines}
