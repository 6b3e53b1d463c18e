"""Structured logs: one JSON object per line, with the delivery id where there is one.

Only the fields passed in ``extra`` are logged beside the message; nothing reads a token, the
private key or the webhook secret into a log record (the config's repr leaves them out too).

A record is formatted where it is logged and written by a thread of its own (``QueueHandler`` /
``QueueListener``): the event loop logs every delivery it answers, and a write to standard error can
block (a pipe to a slow log collector, a busy disk) while every other request waits behind it.
:func:`stop` writes what is queued (``oracle-gate serve`` calls it last).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import queue
import sys
import time
from typing import Any

FIELDS = ("delivery", "event", "action", "job", "repo", "pr", "head", "state", "status", "detail")
_listeners: list[logging.handlers.QueueListener] = []


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


def configure(level: int = logging.INFO) -> None:
    """JSON lines on standard error for the gate's loggers and uvicorn's, written by a thread."""
    stop()
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    handler = logging.handlers.QueueHandler(records)
    handler.setFormatter(JsonFormatter())  # the queued record's message is its whole JSON line
    listener = logging.handlers.QueueListener(records, logging.StreamHandler(sys.stderr))
    listener.start()
    _listeners.append(listener)
    for name in ("oracle_gate", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # every delivery is logged by the app itself


def stop() -> None:
    """Write every queued record and stop the writing thread (records logged later are dropped)."""
    while _listeners:
        _listeners.pop().stop()
