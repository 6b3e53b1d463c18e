"""Colour for a person at a terminal, and for no one else.

On when the stream is a terminal, and off when ``NO_COLOR`` is set to anything non-empty
(https://no-color.org), when ``TERM`` is ``dumb``, or when the output is piped or written to a file:
logs, JSON and markdown never carry escape codes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TextIO

CODES = {"pass_clean": "32", "fail": "31", "unscored": "33", "error": "31", "warning": "33"}
VERDICT_LINE = re.compile(r"^(oracle-gate: )(pass_clean|fail|unscored)\b", re.MULTILINE)


def wanted(stream: TextIO, env: Mapping[str, str] = os.environ) -> bool:
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def paint(text: str, kind: str) -> str:
    return f"\033[1;{CODES[kind]}m{text}\033[0m" if kind in CODES else text


def verdicts(text: str) -> str:
    """The text report with each verdict word coloured."""
    return VERDICT_LINE.sub(lambda m: m[1] + paint(m[2], m[2]), text)


def message(line: str) -> str:
    """A ``say`` line with its ``error:`` or ``warning:`` coloured."""
    for kind in ("error", "warning"):
        marker = f"oracle-gate: {kind}:"
        if line.startswith(marker):
            return "oracle-gate: " + paint(f"{kind}:", kind) + line[len(marker) :]
    return line
