"""Structured logs: one JSON object per line, with the delivery id where there is one.

Only the fields passed in ``extra`` are logged beside the message; nothing reads a token, the
private key or the webhook secret into a log record (the config's repr leaves them out too).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

FIELDS = ("delivery", "event", "action", "job", "repo", "pr", "head", "state", "status", "detail")


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
    """JSON lines on standard error for the gate's loggers and uvicorn's."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("oracle_gate", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # every delivery is logged by the app itself
