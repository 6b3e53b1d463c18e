"""Raw deliveries are not kept for ever: finished jobs (a plan job holds its delivery's whole body)
and delivery ids older than ``delivery-retention-days`` are pruned; a queued or running job never is
(crash recovery runs it again), and what the status page and ``/metrics`` count does not go down."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from oracle_gate.bot.app.config import from_environment
from oracle_gate.bot.queue import planning, retention, schema
from oracle_gate.bot.queue.delivery_jobs import JUDGE, Job
from oracle_gate.bot.queue.housekeeping import DAY, Limits, prune_state
from oracle_gate.bot.queue.store import DONE, QUEUED, RUNNING, Store
from oracle_gate.bot.web import metrics
from oracle_gate.errors import UsageError
from tests.bot.harness import minimal_environment

LATER = 8 * DAY  # past the default retention of 7 days
BODY = b'{"action": "opened", "number": 1}'


def judge(n: int) -> Job:
    return Job(JUDGE, "octo/repo", 7, f"octo/repo#{n}", pr=n)


def delivered(store: Store, delivery: str, event: str = "pull_request") -> None:
    (new,) = store.receive([(delivery, event, planning.delivery_job(event, BODY))])
    assert new


def run_one(store: Store, state: str = DONE) -> int:
    claimed = store.claim()
    assert claimed is not None
    if state != RUNNING:
        store.finish(claimed.id, state)
    return claimed.id


def states(store: Store) -> dict[str, str]:
    return {delivery: state for _, delivery, state, _, _ in store.jobs()}


def test_finished_jobs_and_their_delivery_ids_go_after_the_retention(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    delivered(store, "old")
    run_one(store)
    assert prune_state(store, tmp_path / "maps", Limits(), time.time() + 6 * DAY)[2:] == (0, 0)
    assert prune_state(store, tmp_path / "maps", Limits(), time.time() + LATER)[2:] == (1, 1)
    assert store.jobs() == []
    assert not store.seen("old")


def test_queued_and_running_jobs_are_never_pruned_and_recover_after_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    delivered(store, "running")
    delivered(store, "queued")
    store.enqueue("queued", [judge(1)])
    run_one(store, RUNNING)  # "running": a crash leaves it so
    assert retention.prune_received(store, 7 * DAY, time.time() + 100 * DAY) == (0, 0)
    assert states(store) == {"running": RUNNING, "queued": QUEUED}
    assert store.seen("running")  # its delivery id too: the job is not finished
    assert store.seen("queued")
    store.close()
    restarted = Store(path)
    assert restarted.recover() == 1
    assert [j.kind for _, _, _, j, _ in restarted.jobs()] == [planning.PLAN, planning.PLAN, JUDGE]


def test_metrics_counters_do_not_go_down_when_deliveries_are_pruned(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    for n in range(3):
        delivered(store, f"pr-{n}")
    delivered(store, "push-0", "push")
    for _ in range(4):
        run_one(store)
    store.record_verdict(judge(1), "a" * 40, "b" * 40, "pass", 1)
    before = metrics.snapshot(store)
    assert before.deliveries == {"pull_request": 3, "push": 1}
    assert retention.prune_received(store, 7 * DAY, time.time() + LATER) == (4, 4)
    delivered(store, "pr-new")
    after = metrics.snapshot(store)
    assert after.deliveries == {"pull_request": 4, "push": 1}
    assert after.verdicts == before.verdicts == {"pass": 1}  # posted and verdicts are kept
    assert store.last_verdict("octo/repo", 1) == ("a" * 40, "b" * 40, "pass")


def test_pruning_goes_in_chunks_until_nothing_old_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(retention, "CHUNK", 3)
    store = Store(tmp_path / "db.sqlite3")
    for n in range(10):
        delivered(store, f"d-{n}")
        run_one(store)
    delivered(store, "waiting")
    assert retention.prune_received(store, 7 * DAY, time.time() + LATER) == (10, 10)
    assert list(states(store)) == ["waiting"]


def test_a_redelivery_within_the_retention_is_still_recognised(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    delivered(store, "d-1")
    run_one(store)
    retention.prune_received(store, 7 * DAY, time.time() + 6 * DAY)
    assert store.receive([("d-1", "pull_request", planning.delivery_job("pull_request", BODY))]) == [False]


def test_a_version_3_database_is_migrated_and_its_deliveries_pruned(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with sqlite3.connect(path, isolation_level=None) as db:
        for step in schema.MIGRATIONS[:3]:
            step(db)
        db.execute("PRAGMA user_version = 3")
        db.execute("INSERT INTO deliveries VALUES ('d-1', 'push', 0)")
        db.execute(
            "INSERT INTO jobs (delivery, key, spec, state, created, updated) VALUES (?, ?, ?, ?, 0, 0)",
            ("d-1", planning.PLAN_KEY, planning.delivery_job("push", BODY).to_json(), DONE),
        )
    db.close()
    store = Store(path)
    assert store.migrated_from == 3
    assert retention.prune_received(store, 7 * DAY, time.time()) == (1, 1)
    assert metrics.snapshot(store).deliveries == {"push": 1}


def test_the_retention_is_a_setting_with_a_documented_default(tmp_path: Path) -> None:
    env = minimal_environment(tmp_path)
    assert from_environment(env).keep.max_delivery_age == 7 * DAY
    tuned = {**env, "ORACLE_GATE_DELIVERY_RETENTION_DAYS": "30"}
    assert from_environment(tuned).keep.max_delivery_age == 30 * DAY
    # below GitHub's 3 days of redeliveries a redelivered id would be judged again
    with pytest.raises(UsageError, match="ORACLE_GATE_DELIVERY_RETENTION_DAYS") as refused:
        from_environment({**env, "ORACLE_GATE_DELIVERY_RETENTION_DAYS": "2"})
    assert "\n" not in str(refused.value)


def test_the_plan_key_counted_by_the_store_is_the_planners() -> None:
    from oracle_gate.bot.queue import store

    assert store.PLAN_KEY == planning.PLAN_KEY
