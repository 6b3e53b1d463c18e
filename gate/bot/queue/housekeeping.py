"""Bounds on what the state directory keeps: verified maps, stored explanations, received deliveries.

Both grow with every parent and every judgement. Each is pruned by age (older than ``max_age``
seconds) and by count (beyond the ``max_count`` newest). A map used within ``in_use`` seconds is
never removed (a job may be reading it: :meth:`oracle_gate.bot.jobs.mapstore.ArtifactMapStore.find` marks a
map used by touching its directory); a pruned map is downloaded and verified again when needed.
Finished jobs (their raw deliveries) and delivery ids are kept ``ORACLE_GATE_DELIVERY_RETENTION_DAYS``
(:mod:`oracle_gate.bot.queue.retention` says what is never pruned). Configured by ``ORACLE_GATE_KEEP_DAYS`` /
``ORACLE_GATE_KEEP_MAPS`` / ``ORACLE_GATE_KEEP_EXPLANATIONS`` and that (gate/bot/app/config.py), run on
start and every ``ORACLE_GATE_PRUNE_MINUTES`` by ``oracle-gate serve``.
"""

from __future__ import annotations

import logging
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.bot.queue.retention import prune_received
from oracle_gate.bot.queue.store import Store
from oracle_gate.judge.verdict import FULL_SHA
from oracle_gate.review.settings import default

DAY = 86_400.0
DEFAULT_KEEP_DAYS = int(default("keep-days"))  # the one definition: oracle_gate.review.settings
DEFAULT_KEEP_MAPS = int(default("keep-maps"))
DEFAULT_KEEP_EXPLANATIONS = int(default("keep-explanations"))
DEFAULT_PRUNE_MINUTES = int(default("prune-minutes"))
DEFAULT_DELIVERY_RETENTION_DAYS = int(default("delivery-retention-days"))
IN_USE_SECONDS = 3_600.0
_log = logging.getLogger("oracle_gate.bot")


@dataclass(frozen=True)
class Limits:
    max_age: float = DEFAULT_KEEP_DAYS * DAY  # seconds
    max_maps: int = DEFAULT_KEEP_MAPS
    max_explanations: int = DEFAULT_KEEP_EXPLANATIONS
    max_delivery_age: float = DEFAULT_DELIVERY_RETENTION_DAYS * DAY  # seconds: finished jobs, delivery ids


def map_dirs(root: Path) -> list[Path]:
    """Each kept map's directory, ``<root>/<owner>/<name>/<parent sha>`` (nothing else is touched)."""
    if not root.is_dir():
        return []
    return [
        path
        for owner in root.iterdir()
        if owner.is_dir() and not owner.is_symlink()
        for name in owner.iterdir()
        if name.is_dir() and not name.is_symlink()
        for path in name.iterdir()
        if path.is_dir() and not path.is_symlink() and FULL_SHA.fullmatch(path.name)
    ]


def prune_maps(root: Path, limits: Limits, now: float, in_use: float = IN_USE_SECONDS) -> list[Path]:
    """Remove kept maps older than the age bound or beyond the count bound (oldest first), except
    those used within ``in_use`` seconds; the directories removed."""
    dated = sorted(((_mtime(p), p) for p in map_dirs(root)), reverse=True)
    doomed = [
        path
        for rank, (used, path) in enumerate(dated)
        if (now - used > limits.max_age or rank >= limits.max_maps) and now - used > in_use
    ]
    for path in doomed:
        shutil.rmtree(path, ignore_errors=True)
    return doomed


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def prune_state(store: Store, maps: Path, limits: Limits, now: float) -> tuple[int, int, int, int]:
    """Every pruning at once: (maps removed, explanations forgotten, jobs and delivery ids removed)."""
    removed = prune_maps(maps, limits, now)
    forgotten = store.prune_explanations(limits.max_age, limits.max_explanations, now)
    jobs, deliveries = prune_received(store, limits.max_delivery_age, now)
    return len(removed), forgotten, jobs, deliveries


def keep_pruning(
    store: Store, maps: Path, limits: Limits, every: float, stopping: threading.Event
) -> threading.Thread:
    """A daemon thread pruning now and every ``every`` seconds (by the store's clock) until
    ``stopping`` is set."""
    clock = store.clock

    def run() -> None:
        while True:
            try:
                removed, forgotten, jobs, deliveries = prune_state(store, maps, limits, clock.now())
                done = f"{removed} map(s), {forgotten} explanation(s), {jobs} job(s)"
                _log.info("pruned", extra={"detail": f"{done}, {deliveries} delivery id(s)"})
            except Exception:  # noqa: BLE001 - pruning is housekeeping: the server keeps serving
                _log.exception("pruning failed")
            if clock.wait(stopping, every):
                return

    thread = threading.Thread(target=run, name="oracle-gate-prune", daemon=True)
    thread.start()
    return thread
