from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.repo import Repo

#: Fixtures that start the bot's server (``oracle-gate serve``) as a process of its own. (tests/bot's
#: ``bot`` and ``bot_factory`` start it in the test's process unless the test is marked ``process``.)
SERVER_FIXTURES = frozenset({"start_bot"})


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark ``process`` every test that starts the bot's server as a process (through the e2e tier's
    fixture, or tests/bot's marked ``server``) or the container (marker ``container``), as it is
    collected (before ``-m`` deselects); the subprocess smoke tests and the scoring sandbox's are
    marked where they are written."""
    uses = set(getattr(item, "fixturenames", ()))
    marked = any(item.get_closest_marker(m) is not None for m in ("container", "server"))
    if uses & SERVER_FIXTURES or marked:
        item.add_marker(pytest.mark.process)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """An empty git repository in a temporary directory."""
    return Repo(tmp_path / "repo")
