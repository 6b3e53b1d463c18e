"""Structured logs: one JSON object per line, with the delivery id where there is one.

Only the fields passed in ``extra`` are logged beside the message; nothing reads a token, the
private key or the webhook secret into a log record (the config's repr leaves them out too).

A record is formatted where it is logged and written by a thread of its own, which wakes every
:data:`WRITE_EVERY` seconds and writes what came meanwhile: the event loop logs every delivery it
answers, and a write to standard error can block (a pipe to a slow log collector, a busy disk) while
every other request waits behind it; waking the writer for each record instead would hand the GIL
to it hundreds of times a second. :func:`stop` writes what is left (``oracle-gate serve`` calls it
last).
"""

from __future__ import annotations

import json
import logging
import queue
import sys
import threading
import time
from typing import Any, TextIO

FIELDS = ("delivery", "event", "action", "job", "repo", "pr", "head", "state", "status", "detail")
WRITE_EVERY = 0.05  # seconds
_writers: list[_Writer] = []


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                line[name] = value
        if record.exc_info and record.exc_info[1] is not None:
            line["error"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return json.dumps(line, sort_keys=False)


class _Writer(logging.Handler):
    """Formats a record where it is logged and queues the line; a thread writes the queued lines."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self._stream = stream
        self._lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="oracle-gate-logs", daemon=True)
        self._thread.start()

    def handle(self, record: logging.LogRecord) -> bool:
        """Without the handler's lock: queueing a line needs none, and every thread logs."""
        if not self.filter(record):
            return False
        self.emit(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._lines.put_nowait(self.format(record))
        except Exception:  # noqa: BLE001 - a record that cannot be formatted is reported, not raised
            self.handleError(record)

    def _run(self) -> None:
        while not self._stopping.wait(WRITE_EVERY):
            self._write_queued()
        self._write_queued()

    def _write_queued(self) -> None:
        lines = []
        while True:
            try:
                lines.append(self._lines.get_nowait())
            except queue.Empty:
                break
        if lines:
            self._stream.write("\n".join(lines) + "\n")
            self._stream.flush()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5)


def configure(level: int = logging.INFO) -> None:
    """JSON lines on standard error for the gate's loggers and uvicorn's, written by a thread."""
    stop()
    handler = _Writer(sys.stderr)
    _writers.append(handler)
    for name in ("oracle_gate", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # every delivery is logged by the app itself


def stop() -> None:
    """Write every queued line and stop the writing thread (lines logged later are not written)."""
    while _writers:
        _writers.pop().stop()
