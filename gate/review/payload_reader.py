"""Reading an event payload's fields, each checked as it is read (:mod:`oracle_gate.review.events`).

One error type for both front doors, :class:`EventError`: its message names the input (the Action's
event file, the bot's delivery), the event and the field. A null is a missing field, a number is a
positive integer (a string of digits or a bool is not), a commit is a full lower-case SHA.
Pure: no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from oracle_gate.errors import Refused
from oracle_gate.judge.verdict import FULL_SHA

MAX_SHOWN = 60  # characters of a payload's value quoted in a message


class EventError(Refused):
    """The payload is not the shape GitHub sends for its event: names the input and the field."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {' '.join(problem.split())}")
        self.source = source
        self.problem = problem


def payload_of(data: bytes, source: str) -> dict[str, Any]:
    """The payload (a JSON object) from the bytes of the file or delivery ``source`` names."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # JSON, UTF-8, a number past 4300 digits, nesting
        raise EventError(source, f"the event payload is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise EventError(source, "the event payload is not a JSON object")
    return payload


@dataclass(frozen=True)
class Reader:
    """Fields of one payload, each checked as it is read; errors name the source and the field."""

    payload: dict[str, Any]
    source: str
    event: str

    def fail(self, problem: str) -> EventError:
        return EventError(self.source, f"the {self.event} payload's {problem}")

    @property
    def action(self) -> str:
        """The payload's ``action``, fit for a reason line (a forged one may be long or not text)."""
        value = self.payload.get("action")
        return value if isinstance(value, str) and len(value) <= MAX_SHOWN else shown(value)

    def get(self, path: str, node: Any = None, where: str = "") -> Any:
        """The value at the dotted ``path`` (under ``node``, called ``where``); null is missing."""
        current: Any = self.payload if node is None else node
        for name in path.split("."):
            if not isinstance(current, dict) or current.get(name) is None:
                raise self.fail(f"{where}{path} is missing")
            current = current[name]
        return current

    def optional(self, path: str, node: Any = None) -> Any:
        current: Any = self.payload if node is None else node
        for name in path.split("."):
            if not isinstance(current, dict):
                return None
            current = current.get(name)
        return current

    def number(self, path: str, node: Any = None, where: str = "") -> int:
        value = self.get(path, node, where)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise self.fail(f"{where}{path} is not a positive integer: {shown(value)}")
        return value

    def sha(self, path: str, node: Any = None, where: str = "") -> str:
        value = self.get(path, node, where)
        if not isinstance(value, str) or not FULL_SHA.fullmatch(value):
            raise self.fail(f"{where}{path} is not a full commit SHA: {shown(value)}")
        return value

    def text(self, path: str, node: Any = None, where: str = "") -> str:
        value = self.get(path, node, where)
        if not isinstance(value, str) or not value:
            raise self.fail(f"{where}{path} is not a non-empty string: {shown(value)}")
        return value

    def optional_text(self, path: str, node: Any = None) -> str | None:
        value = self.optional(path, node)
        return value if isinstance(value, str) and value else None


def shown(value: object) -> str:
    """A value for an error line: short, one line."""
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        value = value[:MAX_SHOWN]  # repr() of a whole forged megabyte would cost its length
    text = type(value).__name__ if isinstance(value, dict | list) else repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
