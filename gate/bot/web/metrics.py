"""``/metrics``: the bot's counters in the Prometheus text exposition format (version 0.0.4).

Everything is read from the database when scraped, so the numbers survive a restart and two
processes sharing the file agree: deliveries received (per event), jobs per state, the queue's depth,
verdicts posted as the required check per outcome (every posting, from the append-only ``posted``
table, so the counters never go down; those posted under another name, bases not allowed, in a
counter of their own) (``no_map``: posted as unscored, the parent had no map yet), and how long
judging took (a histogram over the verdicts that recorded it). No repository, pull request, path or
test id appears in it: the label values are event names, job states and verdict words only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from oracle_gate.bot.queue.store import QUEUED, JobState, Store

#: Upper bounds (seconds) of the judging time histogram's buckets; ``+Inf`` is added.
BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class Snapshot:
    deliveries: Mapping[str, int] = field(default_factory=dict)
    jobs: Mapping[str, int] = field(default_factory=dict)
    verdicts: Mapping[str, int] = field(default_factory=dict)
    #: verdicts posted under ``<name> (base: <branch>)``, bases not allowed: counted apart
    other_base_verdicts: Mapping[str, int] = field(default_factory=dict)
    #: cumulative count per bucket bound of :data:`BUCKETS`, then +Inf
    judging_buckets: Sequence[int] = ()
    judging_sum: float = 0.0


def label(value: str) -> str:
    """A label value escaped as the exposition format says (backslash, double quote, newline)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _family(name: str, kind: str, help_text: str, samples: list[str]) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", *samples]


def _by(name: str, key: str, values: Mapping[str, int]) -> list[str]:
    return [f'{name}{{{key}="{label(k)}"}} {values[k]}' for k in sorted(values)]


def render(snap: Snapshot) -> str:
    """The exposition text of ``snap``; families in a fixed order, samples sorted by label."""
    states = {state.value: snap.jobs.get(state.value, 0) for state in JobState}
    buckets = list(snap.judging_buckets) or [0] * (len(BUCKETS) + 1)
    bounds = [*(f"{b:g}" for b in BUCKETS), "+Inf"]
    lines = [
        *_family(
            "oracle_gate_deliveries_received_total",
            "counter",
            "Webhook deliveries accepted (signed, new), by event.",
            _by("oracle_gate_deliveries_received_total", "event", snap.deliveries),
        ),
        *_family(
            "oracle_gate_jobs",
            "gauge",
            "Jobs in the queue's table, by state.",
            _by("oracle_gate_jobs", "state", states),
        ),
        *_family(
            "oracle_gate_queue_depth",
            "gauge",
            "Jobs queued, not yet running.",
            [f"oracle_gate_queue_depth {states[QUEUED]}"],
        ),
        *_family(
            "oracle_gate_verdicts_total",
            "counter",
            "Verdicts posted as the required check, by outcome (no_map: unscored, no map of the parent).",
            _by("oracle_gate_verdicts_total", "outcome", snap.verdicts),
        ),
        *_family(
            "oracle_gate_other_base_verdicts_total",
            "counter",
            "Verdicts posted under '<check name> (base: <branch>)', bases not allowed, by outcome.",
            _by("oracle_gate_other_base_verdicts_total", "outcome", snap.other_base_verdicts),
        ),
        *_family(
            "oracle_gate_judging_seconds",
            "histogram",
            "Seconds spent judging a pull request (its map found, the core's verdict), per posted verdict.",
            [
                f'oracle_gate_judging_seconds_bucket{{le="{b}"}} {n}'
                for b, n in zip(bounds, buckets, strict=True)
            ]
            + [
                f"oracle_gate_judging_seconds_sum {snap.judging_sum:.6f}",
                f"oracle_gate_judging_seconds_count {buckets[-1]}",
            ],
        ),
    ]
    return "\n".join(lines) + "\n"


def snapshot(store: Store) -> Snapshot:
    """The counts, read from the database in a handful of queries."""
    # Retention prunes delivery ids (oracle_gate.bot.queue.retention) and counts them in deliveries_pruned.
    deliveries = store.deliveries_per_event()
    verdicts: dict[str, int] = {}
    others: dict[str, int] = {}
    for verdict, required, n in store.posted_counts():
        (verdicts if required else others)[verdict] = n
    within, count, seconds = store.judging_seconds(BUCKETS)
    return Snapshot(
        deliveries=deliveries,
        jobs={str(k): int(v) for k, v in store.counts().items()},
        verdicts=verdicts,
        other_base_verdicts=others,
        judging_buckets=[*within, count],
        judging_sum=seconds,
    )
