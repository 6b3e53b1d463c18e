"""A Python 3.12 virtual environment with the test requirements and this checkout of the gate.

The suite runs on 3.11, where ``sys.monitoring`` does not exist; tests of the collector run their
pytest sessions in this venv instead. It is built once (``python3.12 -m venv``, ``pip install
--no-deps --require-hashes -r requirements/test.txt``, the gate ``-e --no-deps``, so it is always this
checkout's code) and cached under the temporary directory, keyed by the requirements and the
checkout's path.

Tests take it through :func:`require_venv312`: where 3.12 is absent, or the venv cannot be built
here (an old pip, no registry), the test is skipped with the reason; with ``CI=true`` it fails
instead, since CI must test the collector.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements" / "test.txt"


def python312() -> str | None:
    """The real executable of the ``python3.12`` on PATH (through a pyenv shim too), or None."""
    if shutil.which("python3.12") is None:
        return None
    attempts: list[dict[str, str]] = [{}]
    if shutil.which("pyenv"):
        listed = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False)
        attempts += [{"PYENV_VERSION": v} for v in listed.stdout.split() if v.startswith("3.12")]
    for extra in attempts:
        proc = subprocess.run(
            ["python3.12", "-c", "import sys; print(sys.executable)"],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **extra},
        )
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.strip()
    return None


class Py312Unavailable(Exception):
    """No 3.12 venv here: python3.12 is absent, or building the venv failed (the message says why)."""


def require_venv312() -> Path:
    """The 3.12 venv's python; else skip the test with the reason (fail it with ``CI=true``)."""
    try:
        return venv312()
    except Py312Unavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{exc}, and CI=true: the collector must be tested in CI")
        pytest.skip(f"{exc}: the sys.monitoring collector (3.12+) cannot be tested here")


def venv312() -> Path:
    """The cached venv's python (built on first use); raises Py312Unavailable when there is none."""
    base = python312()
    if base is None:
        raise Py312Unavailable("python3.12 is not installed")
    try:
        return cached_venv(base, "oracle-gate-py312", (REQUIREMENTS,), "the 3.12 venv")
    except VenvUnavailable as exc:
        raise Py312Unavailable(str(exc)) from exc


class VenvUnavailable(Exception):
    """Building a cached venv failed (the message says at which step, and pip's last line)."""


def cached_venv(base: str, name: str, requirements: Sequence[Path], what: str) -> Path:
    """The python of a venv of ``base`` with ``requirements`` (hash-pinned, ``--no-deps``) and this checkout
    of the gate (``-e``), built on first use and cached under the temporary directory as ``name-KEY``."""
    # pyproject.toml too: its package layout decides what the editable install maps (the rename of
    # the import package made an older venv of the same checkout import nothing).
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    pinned = b"".join(path.read_bytes() for path in requirements)
    key = hashlib.sha256(pinned + pyproject + str(ROOT).encode()).hexdigest()[:16]
    home = Path(tempfile.gettempdir()) / f"{name}-{key}"
    python = home / "bin" / "python"
    if (home / ".complete").is_file():
        return python
    building = Path(tempfile.mkdtemp(prefix=f"{home.name}.", dir=home.parent))
    pip = [str(building / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    steps = [
        [base, "-m", "venv", str(building)],
        *([*pip, "--require-hashes", "-r", str(path)] for path in requirements),
        [*pip, "-e", str(ROOT)],
    ]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True, check=False, env=_pip_env())
        if proc.returncode != 0:
            shutil.rmtree(building, ignore_errors=True)
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise VenvUnavailable(f"building {what} failed at `{' '.join(step[1:4])}`: {last}")
    (building / ".complete").touch()
    try:
        building.rename(home)
    except OSError:  # another session built it first
        shutil.rmtree(building, ignore_errors=True)
    return python


def _pip_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PIP_REQUIRE_VIRTUALENV", "PYTHONPATH"))}
