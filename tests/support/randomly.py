"""Venvs with pytest-randomly, for the configuration matrix's ``-p randomly`` row (issue 28).

pytest-randomly loads itself wherever it is installed, so it is never in the suite's venv (it would
shuffle every pytest run the suite starts). The row runs every command in venvs of their own instead:
the suite's interpreter and python3.12, each with ``requirements/test.txt``, ``requirements/randomly.txt``
and this checkout of the gate, built once and cached like the 3.12 venv (:mod:`tests.support.py312`).
Where one cannot be built (no python3.12, an old pip, no registry) the row is skipped with the reason;
with ``CI=true`` it fails instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support.py312 import REQUIREMENTS, ROOT, VenvUnavailable, cached_venv, python312

RANDOMLY = ROOT / "requirements" / "randomly.txt"


def suite_base_python() -> str:
    """The interpreter the suite's venv was made from (``-m venv`` of a venv's python nests oddly)."""
    return str(getattr(sys, "_base_executable", "") or sys.executable)


def require_randomly_venvs(with_312: bool) -> tuple[Path, Path | None]:
    """The pythons of the venvs with pytest-randomly: the suite's version's, and 3.12's (``with_312``);
    else skip the test with the reason (fail it with ``CI=true``)."""
    try:
        suite = venv_with_randomly(suite_base_python(), "suite")
        return suite, venv_with_randomly(python312(), "3.12") if with_312 else None
    except VenvUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{exc}, and CI=true: the -p randomly row must run in CI")
        pytest.skip(f"{exc}: the -p randomly row cannot run here")


def venv_with_randomly(base: str | None, label: str) -> Path:
    if base is None:
        raise VenvUnavailable(f"python{label} is not installed")
    name = f"oracle-gate-randomly-{label}"
    return cached_venv(base, name, (REQUIREMENTS, RANDOMLY), f"the {label} venv with pytest-randomly")
