"""Pytest fixtures for the fake GitHub; import them into a folder's ``conftest.py``::

    from tests.github_fake.fixtures import github_fake_factory_fixture, github_fake_fixture  # noqa: F401

They register as ``github_fake_factory`` and ``github_fake`` (the ``_fixture``
function names keep a test's parameter from shadowing an import).

Both fail the test at teardown when the fake recorded a violation (a request
GitHub would reject, an unknown path, or a response of the fake that breaks
the spec). A test that provokes violations on purpose takes them with
``fake.take_violations()`` and asserts on them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.github_fake.server import FakeGitHub

FakeFactory = Callable[..., FakeGitHub]


def _assert_no_violations(fake: FakeGitHub) -> None:
    violations = fake.take_violations()
    assert not violations, "the fake GitHub saw requests GitHub would reject:\n" + "\n".join(
        f"  - {v}" for v in violations
    )


@pytest.fixture(name="github_fake_factory")
def github_fake_factory_fixture() -> Iterator[FakeFactory]:
    """Start fakes with options, e.g. ``github_fake_factory(api_prefix="/api/v3")`` for GHES."""
    started: list[FakeGitHub] = []

    def start(*, api_prefix: str = "", validate_responses: bool = True) -> FakeGitHub:
        fake = FakeGitHub(api_prefix=api_prefix, validate_responses=validate_responses).start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()
    for fake in started:
        _assert_no_violations(fake)


@pytest.fixture(name="github_fake")
def github_fake_fixture(github_fake_factory: FakeFactory) -> FakeGitHub:
    """A started fake GitHub at ``fake.url`` (api.github.com-style paths), empty: seed what you need."""
    return github_fake_factory()
