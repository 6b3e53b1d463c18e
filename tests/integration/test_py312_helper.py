"""The 3.12 venv helper skips with its reason where the venv cannot be built, and fails under CI
(issue 31: with a fresh venv's pip 23 the build failed and every collector test errored)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.support import py312


@pytest.fixture
def unbuildable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A "python3.12" whose ``-m venv`` fails, and an empty cache directory."""
    fake = tmp_path / "python3.12"
    fake.write_text("#!/bin/sh\necho 'ensurepip is not available' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(py312, "python312", lambda: str(fake))
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))


@pytest.mark.usefixtures("unbuildable")
def test_a_venv_that_cannot_be_built_skips_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="ensurepip is not available"):
        py312.require_venv312()


@pytest.mark.usefixtures("unbuildable")
def test_under_ci_it_fails_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        py312.require_venv312()


def test_no_python312_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(py312, "python312", lambda: None)
    with pytest.raises(pytest.skip.Exception, match=r"python3\.12 is not installed"):
        py312.require_venv312()
