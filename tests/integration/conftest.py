"""Integration-tier fixtures: the tiny project is measured once per session, cloned per test; the
gate's collectors, each with an interpreter it runs on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.factories import Measured, Project, build_measured_project, clone_project
from tests.support.py312 import require_venv312


@pytest.fixture(scope="session")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    """The tiny project's parent, with per-test coverage measured once by pytest-cov (~1 s)."""
    return build_measured_project(tmp_path_factory.mktemp("measured"))


@pytest.fixture
def project(measured: Measured, tmp_path: Path) -> Project:
    """A fresh clone of the measured project: same SHAs, another directory (paths get remapped)."""
    return clone_project(measured, tmp_path / "work")


@pytest.fixture(scope="module", params=["sysmon", "settrace"])
def measurer(request: pytest.FixtureRequest) -> tuple[Path, str]:
    """Each of the gate's collectors with an interpreter it runs on: ``sysmon`` on 3.12, ``settrace``
    (coverage.py's C tracer driven by the gate, the 3.11 default) on the suite's own interpreter."""
    if request.param == "settrace":
        return Path(sys.executable), "settrace"
    return require_venv312(), "sysmon"
