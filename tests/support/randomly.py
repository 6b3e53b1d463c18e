"""Venvs with pytest-randomly, for the configuration matrix's ``-p randomly`` row (issue 28).

pytest-randomly loads itself wherever it is installed, so it is never in the suite's venv (it would
shuffle every pytest run the suite starts). The row runs every command in venvs of their own instead,
one over the suite's venv and one over the 3.12 venv (:mod:`tests.support.py312`): each holds only
``requirements/randomly.txt`` and reads its parent venv's packages (and its gate) after its own, so
it is made in seconds rather than by a second install of everything (issue 27: a suite that does not
wait), and is cached like the 3.12 venv.
Where one cannot be built (no python3.12, an old pip, no registry) the row is skipped with the reason;
with ``CI=true`` it fails instead.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.py312 import ROOT, Py312Unavailable, VenvUnavailable, python312, venv312

RANDOMLY = ROOT / "requirements" / "randomly.txt"


def suite_base_python() -> str:
    """The interpreter the suite's venv was made from (``-m venv`` of a venv's python nests oddly)."""
    return str(getattr(sys, "_base_executable", "") or sys.executable)


def require_randomly_venvs(with_312: bool) -> tuple[Path, Path | None]:
    """The pythons of the venvs with pytest-randomly: the suite's version's, and 3.12's (``with_312``);
    else skip the test with the reason (fail it with ``CI=true``)."""
    try:
        suite = layered_venv(suite_base_python(), Path(sys.executable), "suite")
        return suite, (_layered_312() if with_312 else None)
    except VenvUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{exc}, and CI=true: the -p randomly row must run in CI")
        pytest.skip(f"{exc}: the -p randomly row cannot run here")


def _layered_312() -> Path:
    base = python312()
    if base is None:
        raise VenvUnavailable("python3.12 is not installed")
    try:
        parent = venv312()
    except Py312Unavailable as exc:
        raise VenvUnavailable(str(exc)) from exc
    return layered_venv(base, parent, "3.12")


def layered_venv(base: str, parent: Path, label: str) -> Path:
    """The python of a venv of ``base`` holding pytest-randomly, whose site-packages then reads
    ``parent``'s (a venv's python: its packages, its editable gate) through ``site.addsitedir``."""
    key = hashlib.sha256(RANDOMLY.read_bytes() + str(parent).encode()).hexdigest()[:16]
    home = Path(tempfile.gettempdir()) / f"oracle-gate-randomly-{label}-{key}"
    if (home / ".complete").is_file():
        return home / "bin" / "python"
    building = Path(tempfile.mkdtemp(prefix=f"{home.name}.", dir=home.parent))
    try:
        _run([base, "-m", "venv", "--without-pip", str(building)], label)
        own, parents = _purelib(building / "bin" / "python", label), _purelib(parent, label)
        _run(
            [
                str(parent),
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--require-hashes",
                "-r",
                str(RANDOMLY),
                "--target",
                own,
            ],
            label,
        )
        (Path(own) / "_oracle_gate_parent.pth").write_text(f"import site; site.addsitedir({parents!r})\n")
    except VenvUnavailable:
        shutil.rmtree(building, ignore_errors=True)
        raise
    (building / ".complete").touch()
    try:
        building.rename(home)
    except OSError:  # another session built it first
        shutil.rmtree(building, ignore_errors=True)
    return home / "bin" / "python"


def _purelib(python: Path, label: str) -> str:
    return _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], label).strip()


def _run(argv: list[str], label: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_REQUIRE_VIRTUALENV", "PYTHONPATH"))}
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise VenvUnavailable(f"building the {label} venv with pytest-randomly failed at `{argv[1]}`: {last}")
    return proc.stdout
