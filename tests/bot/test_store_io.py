"""What the webhook's path does not wait for: the disk's sync of a WAL checkpoint (made on a connection
and thread of their own) and the write of a log line (made by a thread; every line still written, as
one JSON object with its fields, once the logs are stopped)."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_gate.bot.app import logs
from oracle_gate.bot.queue import checkpoints, planning
from oracle_gate.bot.queue.store import Store, checkpoint

BODY = b'{"zen": "' + b"x" * 20_000 + b'"}'  # a delivery of about 20 KiB: 5 pages


def record(store: Store, count: int) -> None:
    job = planning.delivery_job("ping", BODY)
    for n in range(count):
        store.receive([(f"d-{n}", "ping", job)])


def wal_frames(path: Path) -> int:
    """Frames in the WAL now (a passive checkpoint that copies nothing would say the same)."""
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])


def test_commits_do_not_checkpoint_once_deferred_and_the_checkpointer_does(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    stopping = threading.Event()
    thread = checkpoints.keep_checkpointing(store, stopping, every=3600)  # never, in this test
    record(store, 300)  # about 1500 pages: past SQLite's automatic checkpoint at 1000
    with sqlite3.connect(path) as db:
        frames, copied = checkpoint(db)
    assert frames > 1000  # no commit checkpointed (with the default, the WAL restarts under 1000)
    assert copied == frames
    stopping.set()
    thread.join(5)
    assert not thread.is_alive()
    store.close()


def test_by_default_the_stores_commits_checkpoint_themselves(tmp_path: Path) -> None:
    """The control for the test above: the same writes without deferring leave a short WAL."""
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    record(store, 300)
    assert wal_frames(path) < 1000
    store.close()


@pytest.fixture
def gate_loggers() -> Iterator[None]:
    names = ("oracle_gate", "uvicorn", "uvicorn.error")
    saved = {n: (logging.getLogger(n).handlers[:], logging.getLogger(n).level) for n in names}
    access = logging.getLogger("uvicorn.access").disabled
    yield
    logs.stop()
    for name, (handlers, level) in saved.items():
        logging.getLogger(name).handlers[:] = handlers
        logging.getLogger(name).setLevel(level)
    logging.getLogger("uvicorn.access").disabled = access


def test_every_line_logged_is_written_as_json_once_the_logs_stop(
    gate_loggers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    logs.configure()
    log = logging.getLogger("oracle_gate.bot")
    for n in range(200):
        log.info("stored", extra={"delivery": f"d-{n}", "status": 202})
    try:
        raise ValueError("bad payload")
    except ValueError:
        log.exception("job failed", extra={"job": 7})
    logs.stop()
    lines = [json.loads(line) for line in err.getvalue().splitlines()]
    assert len(lines) == 201
    assert lines[0]["msg"] == "stored"
    assert (lines[0]["delivery"], lines[0]["status"]) == ("d-0", 202)
    assert lines[-1]["error"] == "ValueError: bad payload"
    assert lines[-1]["job"] == 7
    assert "Traceback" not in err.getvalue()  # one line per record, the error named in its field
