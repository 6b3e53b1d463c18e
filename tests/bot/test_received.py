"""The front's file of received deliveries and the workers' handover of them into the queue
(:mod:`oracle_gate.bot.web.received`, :mod:`oracle_gate.bot.queue.handover`): recording never waits for the
workers' transactions, every delivery is queued exactly once whatever is restarted or made again,
and ``/healthz`` counts what waits to be queued."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from oracle_gate.bot.queue.handover import Handover
from oracle_gate.bot.queue.store import Store
from oracle_gate.bot.web.received import Received
from oracle_gate.errors import UsageError
from tests.bot.test_store import job


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "bot.sqlite3")


def front(store: Store, tmp_path: Path) -> Received:
    return Received(tmp_path / "received.sqlite3", store.seen, store.taken)


def plan_jobs(store: Store) -> list[str]:
    return [job[1] for job in store.jobs()]


def back_to_back_writer(store: Store, started: threading.Event, stop: threading.Event) -> threading.Thread:
    """Write transactions of 20 ms each on the jobs' database, one right after the other, until
    ``stop`` (at most 5 s): the workers' process at its busiest."""

    def run() -> None:
        deadline = time.monotonic() + 5
        while not stop.is_set() and time.monotonic() < deadline:
            with store.held():
                started.set()
                time.sleep(0.02)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def recording_time_beside_a_busy_worker(tmp_path: Path, *, own_file: bool) -> float:
    jobs = Store(tmp_path / "bot.sqlite3")
    workers = Store(tmp_path / "bot.sqlite3")  # another connection, as the worker process has
    recorder = front(jobs, tmp_path) if own_file else jobs
    started, stop = threading.Event(), threading.Event()
    writing = back_to_back_writer(workers, started, stop)
    try:
        started.wait(5)
        t0 = time.monotonic()
        assert recorder.receive([("d1", "pull_request", job(1))]) == [True]
        return time.monotonic() - t0
    finally:
        stop.set()
        writing.join(10)
        workers.close()
        jobs.close()


def test_recording_a_delivery_does_not_wait_for_the_workers_transactions(tmp_path: Path) -> None:
    """In the jobs' database (``own_file=False``) this waited the busy writer's whole 5 s when it was
    written: SQLite's waiter sleeps between tries, and a writer that begins again at once takes the
    lock back every time (at 100 deliveries/s the inbox waited up to 640 ms)."""
    assert recording_time_beside_a_busy_worker(tmp_path, own_file=True) < 0.2


def test_each_delivery_is_queued_once_and_a_redelivery_is_seen(store: Store, tmp_path: Path) -> None:
    received = front(store, tmp_path)
    handover = Handover(store, tmp_path / "received.sqlite3")
    assert received.receive([("d1", "pull_request", job(1)), ("d2", "push", job(2))]) == [True, True]
    assert received.receive([("d1", "pull_request", job(1))]) == [False]  # not moved yet: still seen
    assert received.pending() == 2
    assert handover.move() == 2
    assert handover.move() == 0  # the position was recorded with the jobs
    assert received.pending() == 0
    assert plan_jobs(store) == ["d1", "d2"]
    assert received.receive([("d2", "push", job(2))]) == [False]  # moved: the jobs' database knows it
    assert store.counts() == {"queued": 2}


def test_the_front_forgets_rows_once_the_workers_took_them(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("oracle_gate.bot.web.received.FORGET_EVERY", 0.0)
    received = front(store, tmp_path)
    received.receive([("d1", "pull_request", job(1))])
    Handover(store, tmp_path / "received.sqlite3").move()
    received.receive([("d2", "pull_request", job(2))])  # forgets d1 after recording d2
    with sqlite3.connect(tmp_path / "received.sqlite3") as db:
        assert [r[0] for r in db.execute("SELECT delivery FROM received")] == ["d2"]


def test_a_file_made_again_is_moved_from_its_first_row(store: Store, tmp_path: Path) -> None:
    """Its row ids start over: the old file's position must not hide the new file's rows, and what the
    queue already took is not queued twice."""
    path = tmp_path / "received.sqlite3"
    front(store, tmp_path).receive([("d1", "pull_request", job(1)), ("d2", "push", job(2))])
    Handover(store, path).move()
    for leftover in path.parent.glob(path.name + "*"):
        leftover.unlink()
    again = front(store, tmp_path)
    assert again.receive([("d3", "pull_request", job(3))]) == [True]  # row id 1 again
    assert again.pending() == 1
    assert Handover(store, path).move() == 1
    assert plan_jobs(store) == ["d1", "d2", "d3"]


def test_rows_recorded_while_the_workers_were_down_are_moved_at_their_start(
    store: Store, tmp_path: Path
) -> None:
    received = front(store, tmp_path)
    received.receive([(f"d{i}", "pull_request", job(i)) for i in range(600)])  # more than one batch
    received.close()
    assert Handover(store, tmp_path / "received.sqlite3").move() == 600
    assert len(plan_jobs(store)) == 600


def test_a_file_that_is_not_a_database_is_named(store: Store, tmp_path: Path) -> None:
    (tmp_path / "received.sqlite3").write_text("not a database, just text long enough to be read " * 100)
    with pytest.raises(UsageError, match=r"received\.sqlite3: not a usable database"):
        front(store, tmp_path)
