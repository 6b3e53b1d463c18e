"""The bot's database: a recorded schema version, migrated explicitly; every change one transaction
(a job is never claimed twice, even by several connections at once); crash recoveries counted."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_gate.bot.queue import schema
from oracle_gate.bot.queue.delivery_jobs import EXPLAIN, JUDGE, Job
from oracle_gate.bot.queue.store import DONE, QUEUED, RUNNING, JobState, Store
from oracle_gate.errors import UsageError

# The schema every release wrote before the version was recorded (no ``due`` column yet).
UNVERSIONED = """
CREATE TABLE deliveries (id TEXT PRIMARY KEY, event TEXT NOT NULL, received REAL NOT NULL);
CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT NOT NULL, key TEXT NOT NULL,
    spec TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, detail TEXT,
    created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE verdicts (repo TEXT NOT NULL, pr INTEGER NOT NULL, parent TEXT NOT NULL, head TEXT NOT NULL,
    verdict TEXT NOT NULL, check_run_id INTEGER, installation INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (repo, pr, parent, head));
"""


def job(n: int, key: str | None = None, kind: str = JUDGE) -> Job:
    return Job(kind, "octo/repo", 7, key or f"octo/repo#{n}", pr=n)


def test_a_new_database_records_the_current_version(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.close()
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        assert schema.version_of(db) == schema.VERSION >= 2


def test_an_unversioned_database_is_migrated_keeping_its_jobs(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(UNVERSIONED)
        db.execute(
            "INSERT INTO jobs (delivery, key, spec, state, created, updated) VALUES (?, ?, ?, ?, 0, 0)",
            ("d1", "octo/repo#1", job(1).to_json(), RUNNING),
        )
    store = Store(path)
    assert store.migrated_from == 0
    assert store.recover() == 1
    claimed = store.claim()
    assert claimed is not None
    assert (claimed.job, claimed.recoveries) == (job(1), 1)
    store.close()
    assert Store(path).migrated_from == schema.VERSION  # nothing left to do the second time


def test_a_database_of_a_newer_release_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    with pytest.raises(UsageError) as refused:
        Store(path)
    message = str(refused.value)
    assert "\n" not in message
    assert str(path) in message
    assert f"schema version {schema.VERSION + 1}" in message


def test_a_file_that_is_not_a_database_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    path.write_bytes(b"not sqlite at all, " * 100)
    with pytest.raises(UsageError, match="not a usable database"):
        Store(path)


def test_a_failed_accept_records_neither_the_delivery_nor_any_job(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")

    def jobs_then_failure() -> Iterator[Job]:
        yield job(1)
        raise RuntimeError("planning broke half way")

    with pytest.raises(RuntimeError):
        store.accept("d1", "pull_request", jobs_then_failure())
    assert store.jobs() == []
    assert not store.seen("d1")
    assert store.accept("d1", "pull_request", [job(1)])  # the delivery can still be taken


def test_a_job_state_outside_the_enum_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.accept("d1", "pull_request", [job(1)])
    claimed = store.claim()
    assert claimed is not None
    with pytest.raises(ValueError, match="finished-ish"):
        store.finish(claimed.id, "finished-ish")
    store.finish(claimed.id, JobState.DONE)
    assert store.counts() == {DONE: 1}


def test_concurrent_claimers_never_claim_a_job_twice(tmp_path: Path) -> None:
    """Three connections (as three processes would have), four threads each, 300 jobs."""
    path = tmp_path / "db.sqlite3"
    stores = [Store(path) for _ in range(3)]
    stores[0].accept("d1", "pull_request", [job(n) for n in range(300)])
    stores[0].accept("d2", "pull_request", [job(1000 + n, "octo/repo#shared", EXPLAIN) for n in range(20)])
    claimed: list[int] = []
    guard = threading.Lock()
    busy_keys: set[str] = set()
    overlaps: list[str] = []

    def worker(store: Store) -> None:
        while (got := store.claim()) is not None:
            with guard:
                claimed.append(got.id)
                if got.job.key in busy_keys:
                    overlaps.append(got.job.key)
                busy_keys.add(got.job.key)
            time.sleep(0.001)  # a running job: another claim of its key would land here
            with guard:
                busy_keys.discard(got.job.key)
            store.finish(got.id, DONE)

    threads = [threading.Thread(target=worker, args=(s,)) for s in stores for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(claimed) == 320
    assert len(set(claimed)) == 320
    assert overlaps == []
    assert stores[1].counts() == {DONE: 320}
    assert QUEUED not in stores[2].counts()


def test_a_failed_enqueue_leaves_nothing_half_written(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")

    def jobs_then_failure() -> Iterator[Job]:
        yield job(1)
        raise RuntimeError("planning broke half way")

    with pytest.raises(RuntimeError):
        store.enqueue("follow-up", jobs_then_failure())
    assert store.jobs() == []
    assert store.accept("d1", "pull_request", [job(2)])  # and the connection is usable
    assert [j.pr for _, _, _, j, _ in store.jobs()] == [2]


def test_a_migration_that_fails_half_way_leaves_the_old_version_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "db.sqlite3"
    Store(path).close()

    def half_done(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE jobs ADD COLUMN half INTEGER")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, half_done))
    monkeypatch.setattr(schema, "VERSION", schema.VERSION + 1)
    with pytest.raises(UsageError, match="not a usable database"):
        Store(path)
    with sqlite3.connect(path) as db:
        assert schema.version_of(db) == schema.VERSION - 1
        assert "half" not in {row[1] for row in db.execute("PRAGMA table_info(jobs)")}
