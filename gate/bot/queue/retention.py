"""How long the bot keeps what it received: finished jobs (a delivery's plan job holds its raw body)
and delivery ids.

Every delivery is stored whole (a pull request event is about 25 KiB) as its plan job; kept for
ever, the database would grow by every payload GitHub ever sent. After ``delivery-retention-days``
(:mod:`oracle_gate.review.settings`):

* a job is pruned once it is finished (done, failed, superseded) and has not changed for that long;
  a queued or running job never is (a crash's recovery runs it again);
* a delivery id is pruned too, unless a job of it is still queued or running. The ids are what makes
  a redelivery a no-op, so the retention is at least GitHub's window for redelivering (3 days, the
  longest ``redeliver-hours``);
* ``/metrics``' deliveries counter never goes down: the pruned ids are added per event to
  ``deliveries_pruned`` in the same transaction as their removal (schema version 4);
* what the status page and ``/metrics`` read of verdicts (``verdicts``, the append-only ``posted``)
  is not touched.

Pruned in chunks of :data:`CHUNK` rows, one transaction each, so a delivery being recorded waits
for one chunk at most, never for the whole pruning.
"""

from __future__ import annotations

from oracle_gate.bot.queue.store import Store

CHUNK = 500


def prune_jobs(store: Store, before: float) -> int:
    """Remove finished jobs last changed before ``before`` (epoch seconds); how many."""
    removed = 0
    while True:
        count = store.prune_finished_jobs(before, CHUNK)
        removed += count
        if count < CHUNK:
            return removed


def prune_deliveries(store: Store, before: float) -> int:
    """Forget delivery ids received before ``before`` whose jobs are all finished (or pruned),
    counting them per event in ``deliveries_pruned``; how many."""
    removed = 0
    while True:
        count = store.prune_delivery_ids(before, CHUNK)
        removed += count
        if count < CHUNK:
            return removed


def prune_received(store: Store, max_age: float, now: float) -> tuple[int, int]:
    """Both, for what is older than ``max_age`` seconds at ``now``: (jobs, delivery ids) removed."""
    before = now - max_age
    return prune_jobs(store, before), prune_deliveries(store, before)
