"""The freeze surface share of a parent's map: of the lines the map saw a test run, the share that only
frozen tests observe (contract v3.7's report, ``oracle-gate surface``, names the same number).

Computed by the bot once per (repository, parent) after a verdict with a map, from the verified map it
keeps, within a time budget: a map too large to read in :data:`BUDGET_SECONDS` leaves the share
unknown (NULL, "not measured" on the page) rather than delaying the next job.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from gate.bot import trend
from gate.bot.store import Store
from gate.git import Git
from gate.judge.freeze import parse_freeze
from gate.judge.observers import MapReader

BUDGET_SECONDS = 20.0
_log = logging.getLogger("gate.bot")


class OverBudget(Exception):
    pass


def frozen_only_share(
    reader: MapReader,
    is_frozen: Callable[[str], bool],
    clock: Callable[[], float] = time.monotonic,
    budget: float = BUDGET_SECONDS,
) -> float | None:
    """Lines whose every observing test is frozen, over lines observed by any test; None: no line
    observed. :class:`OverBudget` when reading the map takes longer than ``budget`` seconds."""
    deadline = clock() + budget
    observed = frozen_only = 0
    for measured in reader.measured_files():
        if clock() > deadline:
            raise OverBudget
        for tests in reader.tests_by_line(measured).values():
            if tests:
                observed += 1
                frozen_only += all(is_frozen(t) for t in tests)
    return frozen_only / observed if observed else None


def share_of_map(manifest: Path | None, freeze: bytes | None) -> float | None:
    """The share for the kept map ``manifest`` and the parent's freeze bytes; None when unknown."""
    if manifest is None:
        return None
    from gate.maps.read import locate, open_map  # the map reader's dependencies load only when needed

    try:
        data, _ = locate(manifest)
        reader, _ = open_map(data)
        return frozen_only_share(reader, parse_freeze(freeze).is_frozen)
    except Exception as exc:  # noqa: BLE001 - best effort: the share is shown as not measured
        _log.warning("freeze surface share not measured", extra={"detail": f"{manifest}: {exc!r}"[:300]})
        return None


def with_share(
    noted: dict[str, object],
    store: Store,
    git: Git,
    where: tuple[str, str],
    manifest: Callable[[], Path | None],
) -> dict[str, object]:
    """``noted`` with the surface share of the parent's map: the one already noted for this
    (repository, parent) if any, else measured from ``manifest()`` (the kept map, None: no map)."""
    repo, parent = where
    known = trend.known_share(store, repo, parent)
    if known is not None:
        return {**noted, "surface_share": known}
    try:
        freeze = trend.parent_freeze(git, parent)
        found = manifest()
    except Exception:  # noqa: BLE001 - best effort, as above
        return noted
    return {**noted, "surface_share": share_of_map(found, freeze)}
