"""Integration-tier fixtures: the tiny project is measured once per session, cloned per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.factories import Measured, Project, build_measured_project, clone_project


@pytest.fixture(scope="session")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    """The tiny project's parent, with per-test coverage measured once by pytest-cov (~1 s)."""
    return build_measured_project(tmp_path_factory.mktemp("measured"))


@pytest.fixture
def project(measured: Measured, tmp_path: Path) -> Project:
    """A fresh clone of the measured project: same SHAs, another directory (paths get remapped)."""
    return clone_project(measured, tmp_path / "work")
