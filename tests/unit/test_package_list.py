"""pyproject lists its packages by hand (templates/ is mapped in): every subpackage of gate/ is there."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_of_gate_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(("oracle_gate", *init.parent.relative_to(ROOT / "gate").parts))
        for init in (ROOT / "gate").rglob("__init__.py")
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
