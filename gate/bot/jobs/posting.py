"""What makes the bot's posts idempotent across crashes: a check run's ``external_id`` derived from
the job, never random.

A process killed between GitHub creating the check run and the store recording the job done runs the
job again on its next start. With a random id that second attempt cannot tell its own earlier run
from anyone's and posts a second one; with an id derived from what was judged -- repository, pull
request (or merge group), parent and head -- it finds the run and finishes it
(:meth:`oracle_gate.github.checks.Checks.publish`). The sticky comment needs no id: it is
found by its marker among the App's own comments, across every page.
"""

from __future__ import annotations

import hashlib
import json

PREFIX = "oracle-gate:"


def external_id(repo: str, pr: int | str | None, parent: str, head: str) -> str:
    """The same four values give the same id; any other values a different one (sha256 of their JSON,
    so no value can be shaped to collide with another's by its separators)."""
    text = json.dumps([repo, pr, parent, head], separators=(",", ":"))
    return PREFIX + hashlib.sha256(text.encode()).hexdigest()[:40]
