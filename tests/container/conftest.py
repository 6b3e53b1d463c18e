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
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import (  # noqa: F401 - fixtures, registered by name
    FakeFactory,
    github_fake_factory_fixture,
    github_fake_fixture,
)
from tests.support import container
from tests.support.harness import Runner
from tests.support.project import Project, build_project, seed_fake

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Image:
    name: str
    build_seconds: float
    base: str  # how the base image was had (made, cached, already there)


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


class ContainerRunner(Runner):
    """The e2e Runner, but the action runs in a fresh container of the image."""

    def __init__(self, image: str, project: Project, fake: FakeGitHub, tmp: Path) -> None:
        super().__init__(project, fake, tmp)
        self.image = image

    def execute(
        self, env: dict[str, str], workspace: Path, run_dir: Path, *, path: str | None, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        env = {
            **env,
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_OUTPUT": "/github/file_commands/output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
            "GITHUB_ACTIONS": "true",
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "HOME": "/github/home",
            "CI": "true",
            "PATH": "/not/passed",  # dropped by run_action: the image's own PATH applies
        }
        mounts = container.Mounts(workspace, run_dir, run_dir, self.home, (self.project.origin,))
        return container.run_action(self.image, env, mounts, timeout=timeout)


@pytest.fixture
def runner(image: Image, project: Project, fake: FakeGitHub, tmp_path: Path) -> ContainerRunner:
    return ContainerRunner(image.name, project, fake, tmp_path)
