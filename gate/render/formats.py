"""The verdict in one of the command line's formats (``--format``)."""

from __future__ import annotations

import json

from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.markdown import to_markdown
from oracle_gate.render.text import to_text
from oracle_gate.render.verdict_json import to_json


def format_verdict(v: Verdict, fmt: str) -> str:
    """The verdict in one of the CLI's formats: ``json`` (the contract), ``markdown``, ``text``."""
    if fmt == "json":
        return json.dumps(to_json(v), indent=2) + "\n"
    if fmt == "markdown":
        return to_markdown(v)
    return to_text(v)
