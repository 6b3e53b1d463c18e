"""The freeze surface share of a parent's map: of the measured lines of scored files, the share only
frozen tests observe, as ``oracle-gate surface`` computes it (:func:`oracle_gate.surface.read_surface`, over
the pure :func:`oracle_gate.judge.surface.freeze_surface`).

Measured by the bot once per (repository, parent), after the verdict with that map was posted, from the
verified map it keeps and its bare mirror; reused for every later verdict on the same parent (the map
and the freeze are the parent's, so the number is the same). Best effort: a map or mirror it cannot
read leaves the share unknown (NULL, "not measured" on the page), never the job failed.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from pathlib import Path

from oracle_gate.bot.jobs import trend
from oracle_gate.bot.queue.store import Store
from oracle_gate.git import Git

_log = logging.getLogger("oracle_gate.bot")


def share_of_map(repo: Path, manifest: Path | None, parent: str, today: dt.date) -> float | None:
    """The share for the kept map ``manifest`` of ``parent`` in the repository at ``repo``."""
    if manifest is None:
        return None
    from oracle_gate.surface import read_surface  # the map reader's dependencies load only when needed

    try:
        return read_surface(repo, manifest, parent, today).surface.share
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
        found = manifest()
    except Exception:  # noqa: BLE001 - best effort, as above
        return noted
    today = dt.datetime.fromtimestamp(store.clock.now(), dt.UTC).date()  # the server's one clock
    return {**noted, "surface_share": share_of_map(git.repo, found, parent, today)}
