"""``map --combine`` and contract v3.4: the combined manifest's ``repeat`` and ``unstable``.

Each part of a combined map (a shard, or a whole map of the same commit) was measured with its own
``--repeat``, and lists what differed between its runs under ``unstable``. The combined map keeps
both, or nothing is written:

* ``unstable`` is the union of every part's (a test id and path in two parts: the union of lines);
  no part's instability may be lost, since ``check`` would then count those observations as live.
* ``repeat`` must be the same in every part. A part measured once has no ``unstable`` record
  because nothing was compared, not because its tests were stable; combined with parts measured
  twice, its tests would look as checked as theirs. Recording the minimum would keep the map but
  hide, test by test, which ones were compared; a part with a different ``--repeat`` is a workflow
  mistake (every shard of one job runs the same command), so it is refused, naming both manifests.
* A part that records ``repeat`` of 2 or more but no ``unstable`` (absent or ``null``) is refused:
  a stability record that went missing must not read as "nothing was unstable".

A manifest without ``repeat`` (made before ``--repeat`` existed, or by hand) counts as one run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from oracle_gate.errors import InputError
from oracle_gate.maps.mapfile import MapError
from oracle_gate.maps.reader.manifest import Manifest
from oracle_gate.maps.reader.unstable import (
    REPEAT_KEY,
    UNSTABLE_KEY,
    Unstable,
    manifest_repeat,
    parse_unstable,
)


def combined_stability(manifests: Sequence[Manifest]) -> dict[str, object]:
    """The combined manifest's ``repeat`` and (when any part has one, or runs were compared)
    ``unstable``; :class:`MapError` naming the manifest when the parts cannot be combined."""
    repeats = [(_repeat_of(m), m) for m in manifests]
    first_count, first = repeats[0]
    for count, m in repeats[1:]:
        if count != first_count:
            raise MapError(
                f"{m.path}: measured with --repeat {count}, but {first.path} with --repeat {first_count}; "
                "not combined (a part run fewer times would look more stable than it is: map every part "
                "with the same --repeat)"
            )
    records = [_unstable_of(m, count) for count, m in repeats]
    fields: dict[str, object] = {REPEAT_KEY: first_count}
    if first_count > 1 or any(record is not None for record in records):
        fields[UNSTABLE_KEY] = union_unstable(record for record in records if record is not None)
    return fields


def union_unstable(parts: Iterable[Unstable]) -> Unstable:
    """Every part's unstable observations, test ids and paths sorted, lines sorted and unique."""
    merged: dict[str, dict[str, set[int]]] = {}
    for part in parts:
        for test, files in part.items():
            for path, lines in files.items():
                merged.setdefault(test, {}).setdefault(path, set()).update(lines)
    return {
        test: {path: sorted(lines) for path, lines in sorted(files.items())}
        for test, files in sorted(merged.items())
    }


def _repeat_of(manifest: Manifest) -> int:
    try:
        return manifest_repeat(manifest.extra, manifest.path)
    except InputError as exc:
        raise MapError(f"{exc.source}: {exc.problem}; not combined") from exc


def _unstable_of(manifest: Manifest, repeat: int) -> Unstable | None:
    """A part's ``unstable`` (None when it has none, which only a part run once may lack)."""
    value = manifest.extra.get(UNSTABLE_KEY)
    if value is None:
        if repeat > 1:
            raise MapError(
                f"{manifest.path}: records --repeat {repeat} but no {UNSTABLE_KEY!r} observations; not "
                "combined (its tests would look stable without the record of what differed between runs)"
            )
        return None
    try:
        return parse_unstable(value, manifest.path)
    except InputError as exc:
        raise MapError(f"{exc.source}: {exc.problem}; not combined") from exc
