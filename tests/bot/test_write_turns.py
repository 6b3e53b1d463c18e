"""The two processes' turns to write the database (:mod:`oracle_gate.bot.write_turns`): a writer waits
for the transaction under way, not behind writers that came after it, and a killed holder leaves
nothing locked."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from oracle_gate.bot.store import Store
from oracle_gate.bot.write_turns import WriteTurns
from tests.bot.test_store import job

HOLD = """
import sys, time
from pathlib import Path
from oracle_gate.bot.write_turns import WriteTurns
turns = WriteTurns(Path(sys.argv[1]))
with turns.turn():
    print("holding", flush=True)
    time.sleep(60)
"""


def enter(turns: WriteTurns, name: str, order: list[str]) -> threading.Thread:
    def run() -> None:
        with turns.turn():
            order.append(name)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_the_front_goes_before_a_worker_that_came_after_it(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    holder, later = WriteTurns(db), WriteTurns(db)
    front = WriteTurns(db)
    order: list[str] = []
    with holder.turn():  # a worker's transaction under way
        waiting_front = enter(front, "front", order)
        time.sleep(0.3)  # the front now waits for the lock
        waiting_worker = enter(later, "worker", order)
        time.sleep(0.3)
        assert order == []
    waiting_front.join(5)
    waiting_worker.join(5)
    assert order == ["front", "worker"]


def back_to_back_writer(store: Store, started: threading.Event, stop: threading.Event) -> threading.Thread:
    """Write transactions of 20 ms each, one right after the other, until ``stop`` (at most 5 s)."""

    def run() -> None:
        deadline = time.monotonic() + 5
        while not stop.is_set() and time.monotonic() < deadline:
            with store.transaction():
                started.set()
                time.sleep(0.02)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def front_wait_behind_a_busy_worker(tmp_path: Path, *, turns: bool) -> float:
    db = tmp_path / "bot.sqlite3"
    front = Store(db, turns=WriteTurns(db) if turns else None)
    worker = Store(db, turns=WriteTurns(db) if turns else None)
    started, stop = threading.Event(), threading.Event()
    writing = back_to_back_writer(worker, started, stop)
    try:
        started.wait(5)
        t0 = time.monotonic()
        assert front.receive([("d1", "pull_request", job(1))]) == [True]
        return time.monotonic() - t0
    finally:
        stop.set()
        writing.join(10)
        front.close()
        worker.close()


def test_the_inbox_waits_for_one_transaction_not_for_a_busy_writer_to_pause(tmp_path: Path) -> None:
    """SQLite's own lock fails this (``turns=False``: over 1 s, the writer's whole 5 s in every try
    when this was written): its waiter sleeps between tries, and a writer that begins again at once
    takes the lock back every time (the inbox waited up to 640 ms at 100 deliveries/s)."""
    assert front_wait_behind_a_busy_worker(tmp_path, turns=True) < 0.2


def test_a_killed_holder_leaves_nothing_locked(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    with subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "holding"
        order: list[str] = []
        waiting = enter(WriteTurns(db), "front", order)
        time.sleep(0.3)
        assert order == []  # the lock is really held across processes
        holder.kill()
    waiting.join(5)
    assert order == ["front"]


def test_stores_with_turns_write_as_before(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    front = Store(db, turns=WriteTurns(db))
    workers = Store(db, turns=WriteTurns(db))
    try:
        assert front.receive([("d1", "pull_request", job(1))]) == [True]
        claimed = workers.claim()
        assert claimed is not None
        assert claimed.delivery == "d1"
        assert front.receive([("d1", "pull_request", job(1))]) == [False]  # seen, across connections
    finally:
        front.close()
        workers.close()
