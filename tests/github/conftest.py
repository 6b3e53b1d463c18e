"""github tier: PyGithub against the validating fake GitHub on loopback, nothing else faked."""

from __future__ import annotations

import pytest

from tests.github.clients import seed
from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import (  # noqa: F401 - fixtures, registered by name
    FakeFactory,
    github_fake_factory_fixture,
    github_fake_fixture,
)


@pytest.fixture
def fake(github_fake_factory: FakeFactory) -> FakeGitHub:
    """A fake with the repository and pull request #7 every test of this tier uses."""
    return seed(github_fake_factory())
