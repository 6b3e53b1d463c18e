from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.repo import Repo

#: Fixtures that start the bot's server (``oracle-gate serve``) as a process of its own.
SERVER_FIXTURES = frozenset({"bot", "bot_factory", "start_bot"})


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark ``process`` every test that starts the bot's server (through one of its fixtures) or
    the container (marker ``container``), as it is collected (before ``-m`` deselects); the
    subprocess smoke tests and the scoring sandbox's are marked where they are written."""
    uses = set(getattr(item, "fixturenames", ()))
    if uses & SERVER_FIXTURES or item.get_closest_marker("container") is not None:
        item.add_marker(pytest.mark.process)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """An empty git repository in a temporary directory."""
    return Repo(tmp_path / "repo")
