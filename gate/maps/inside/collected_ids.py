"""The pytest plugin :mod:`oracle_gate.maps.node_ids` loads into the project's ``pytest --collect-only``
(``-p oracle_gate.maps.inside.collected_ids``): at the end of collection it writes every collected
node id into the JSON file ``ORACLE_GATE_NODEIDS`` names, whatever the terminal shows.

It runs in the project's pytest process, so it imports the standard library only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ENV_NODEIDS = "ORACLE_GATE_NODEIDS"  # where the plugin writes the collected node ids (JSON)

_deselected: list[str] = []


def pytest_deselected(items: Sequence[Any]) -> None:
    _deselected.extend(str(item.nodeid) for item in items)


def pytest_collection_finish(session: Any) -> None:
    target = os.environ.get(ENV_NODEIDS)
    if not target or hasattr(session.config, "workerinput"):
        return
    document = {
        "selected": [str(item.nodeid) for item in session.items],
        "deselected": sorted(set(_deselected)),
        "errors": int(session.testsfailed),
    }
    Path(target).write_text(json.dumps(document), encoding="utf-8")
