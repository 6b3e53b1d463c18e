"""Byte-for-byte comparison with the files in tests/golden/, refreshed only on request.

Set ``ORACLE_GATE_UPDATE_GOLDEN=1`` to write the current output over the golden files, then review
``git diff tests/golden/``. Without it, a mismatch or a missing file fails with a unified diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"
UPDATE_ENV = "ORACLE_GATE_UPDATE_GOLDEN"


def updating() -> bool:
    return os.environ.get(UPDATE_ENV, "") not in ("", "0")


def assert_matches_golden(name: str, actual: str) -> None:
    """``actual`` equals tests/golden/``name`` byte for byte (UTF-8, no newline translation)."""
    path = GOLDEN_DIR / name
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode())
        return
    if not path.exists():
        pytest.fail(f"no golden file tests/golden/{name}; write it with {UPDATE_ENV}=1 and review it")
    expected = path.read_bytes().decode()
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            f"tests/golden/{name}",
            "rendered",
        )
        pytest.fail(
            f"rendering differs from tests/golden/{name} (refresh with {UPDATE_ENV}=1 if intended):\n"
            + "".join(diff),
            pytrace=False,
        )
