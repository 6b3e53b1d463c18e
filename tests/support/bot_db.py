"""The test's own look into the bot's database (the bot's code reads it only through its store)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def rows(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of one read-only query on the database at ``path``."""
    with sqlite3.connect(path) as db:
        return [tuple(row) for row in db.execute(sql, params).fetchall()]
