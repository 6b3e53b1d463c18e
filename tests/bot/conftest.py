from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.harness import APP_ID, REPO, AppKey, Bot, BotFactory, Origin, make_app_key
from tests.github_fake.fixtures import github_fake_factory_fixture, github_fake_fixture  # noqa: F401
from tests.github_fake.server import FakeGitHub
from tests.support.bot_in_process import InProcessBot
from tests.support.bot_process import left_behind


@pytest.fixture(scope="session")
def app_key() -> AppKey:
    return make_app_key()


@pytest.fixture
def origin(tmp_path: Path) -> Origin:
    return Origin(tmp_path / "origin")


@pytest.fixture
def github(github_fake: FakeGitHub, app_key: AppKey) -> FakeGitHub:
    """The fake GitHub knowing the App and the test repository."""
    github_fake.add_app(APP_ID, app_key.public_pem, "oracle-gate")
    github_fake.add_repo(REPO)
    return github_fake


def _factory(
    make: type[Bot], tmp_path: Path, github: FakeGitHub, app_key: AppKey, origin: Origin
) -> Iterator[BotFactory]:
    key_file = tmp_path / "app.pem"
    key_file.write_text(app_key.private_pem)
    started: list[Bot] = []

    def start(concurrency: int = 4, state: Path | None = None, env: dict[str, str] | None = None) -> Bot:
        bot = make(state or tmp_path / "state", github, key_file, origin, concurrency)
        bot.env.update(env or {})
        bot.start()
        started.append(bot)
        return bot

    yield start
    for bot in started:
        bot.stop()
    logs = {bot.log for bot in started}
    leftovers = {pid for log in logs for pid in left_behind(log)}
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not leftovers, f"processes the server left running after it stopped or was killed: {leftovers}"


@pytest.fixture
def bot_factory(
    request: pytest.FixtureRequest, tmp_path: Path, github: FakeGitHub, app_key: AppKey, origin: Origin
) -> Iterator[BotFactory]:
    """Starts the bot: in this process (:mod:`tests.support.bot_in_process`, its jobs run when the
    test waits for them, on the test's clock), or as ``oracle-gate serve``, a process of its own, for
    a test marked ``server`` (signals, a kill and the recovery after it, the hand-over between the
    server's two processes, jobs running side by side)."""
    as_process = request.node.get_closest_marker("server") is not None
    yield from _factory(Bot if as_process else InProcessBot, tmp_path, github, app_key, origin)


@pytest.fixture
def bot(bot_factory: BotFactory) -> Bot:
    return bot_factory()
