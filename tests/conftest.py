from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.repo import Repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """An empty git repository in a temporary directory."""
    return Repo(tmp_path / "repo")
