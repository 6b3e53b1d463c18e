"""Container tier: the real image, built from the unchanged ``Dockerfile``, run as the runner runs a
Docker action (see tests/support/container.py for how, and what was found to work here).

What may be faked: GitHub's REST API (tests/github_fake on 127.0.0.1, reached over the host
network) and the base image (a stand-in made from Debian bookworm with mmdebstrap, tagged
``python:3.11-slim-bookworm``). The Dockerfile, the image's Entrypoint, git in the image, the
repository and the coverage measurement are real.

Skips with one line only where buildah cannot run at all; with ``CI=true`` it fails instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import (  # noqa: F401 - fixtures, registered by name
    FakeFactory,
    github_fake_factory_fixture,
    github_fake_fixture,
)
from tests.support import container
from tests.support.container import ContainerRunner, Image
from tests.support.project import Project, build_project, seed_fake

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def buildah() -> None:
    why = container.why_buildah_cannot_run()
    if why is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why} -- but CI=true: the container tier must run here", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="session")
def image(buildah: None) -> Iterator[Image]:
    """The action's image, built once per session from this checkout's Dockerfile."""
    base = container.ensure_base_image()
    tag = f"localhost/oracle-gate-test:{uuid.uuid4().hex[:12]}"
    try:
        build = container.build_image(ROOT, tag)
    except container.ContainerError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield Image(tag, build.seconds, base)
    container.remove_image(tag)


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return build_project(tmp_path_factory.mktemp("container-project"))


@pytest.fixture
def fake(github_fake: FakeGitHub, project: Project) -> FakeGitHub:
    return seed_fake(github_fake, project)


@pytest.fixture
def runner(image: Image, project: Project, fake: FakeGitHub, tmp_path: Path) -> ContainerRunner:
    return ContainerRunner(image.name, project, fake, tmp_path)
