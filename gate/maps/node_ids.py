"""The node ids pytest collects in a working tree, asked of pytest itself, not read from its output.

``pytest --collect-only -q`` prints one node id a line only at exactly one ``-q``: a project whose
``addopts`` say ``-q`` (``-ra -q``, pytest's own documentation's example) turns it into ``-qq``,
which prints one line per *file* with a count; ``-v`` turns it back into a tree of ``<Module>``
lines. Stripping the project's ``addopts`` (``-o addopts=``) would also drop what changes which tests
are collected (``-m``, ``-k``, ``--doctest-modules``, ``-p`` plugins, ``--import-mode``). So the gate
runs the project's own pytest command with ``--collect-only`` and a plugin of its own
(``-p oracle_gate.maps.inside.collected_ids``): at the end of collection it writes every collected
node id into the JSON file ``ORACLE_GATE_NODEIDS`` names, whatever the terminal shows.

Written: ``selected`` (what the session would run), ``deselected`` (what ``-m``/``-k``, the freeze
filter or another plugin took out: the tests exist), ``errors`` (collection errors: the list is then
incomplete, and :func:`collect_node_ids` refuses it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_gate.errors import GateError
from oracle_gate.maps.inside.collected_ids import ENV_NODEIDS
from oracle_gate.maps.layout import src_layout_env
from oracle_gate.maps.pytest_options import NEUTRAL

PLUGIN_MODULE = "oracle_gate.maps.inside.collected_ids"  # loaded with -p into the collecting pytest
COLLECT_SECONDS = 600


class CollectionFailed(GateError):
    """pytest could not say which tests it collects (one line: why)."""


@dataclass(frozen=True)
class Collected:
    selected: tuple[str, ...]
    deselected: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        """Every test that exists: selected or deselected."""
        return self.selected + self.deselected


def collect_node_ids(
    repo: Path, args: Sequence[str] = (), *, python: str = sys.executable, timeout: float = COLLECT_SECONDS
) -> Collected:
    """The tests pytest collects in ``repo`` with the project's own configuration (and ``args``)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="oracle-gate-collect-") as tmp:
        out = Path(tmp) / "nodeids.json"
        command = [
            python,
            "-m",
            "pytest",
            "--collect-only",
            "-p",
            PLUGIN_MODULE,
            *NEUTRAL,
            *args,
        ]
        # A pytest-cov from addopts measures the collection too: its data goes here, not into the checkout.
        coverage_file = str(Path(tmp) / ".coverage")
        env = src_layout_env({**os.environ, ENV_NODEIDS: str(out), "COVERAGE_FILE": coverage_file}, repo)
        try:
            proc = subprocess.run(
                command, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CollectionFailed(f"cannot collect the tests in {repo}: {exc}") from exc
        written = _read(out)
    if written is None or written.get("errors"):
        lines = proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or ["no output"]
        last = _last_meaningful(lines)
        raise CollectionFailed(
            f"pytest --collect-only failed in {repo} (exit {proc.returncode}): {last[:200]}"
        )
    return Collected(
        selected=tuple(str(n) for n in written.get("selected", [])),
        deselected=tuple(str(n) for n in written.get("deselected", [])),
    )


def _last_meaningful(lines: list[str]) -> str:
    """The last line that says something (pytest ends with a ``=== ... ===`` summary)."""
    for line in reversed(lines):
        text = line.strip().strip("=").strip()
        if text:
            return text
    return "no output"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
