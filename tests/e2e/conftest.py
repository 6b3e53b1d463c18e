"""End-to-end: the action's main with a Docker action's environment, a real repository, the
validating fake GitHub.

What may be faked here: GitHub's REST API (tests/github_fake, on loopback) and nothing else. The
repository, git and the coverage measurement are real. ``runner`` runs the action's main in this
process (as ``entrypoint.py`` would, with an unpaced client); ``each_runner`` also runs
``entrypoint.py`` itself as a subprocess, for the smoke tests that keep the real process honest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.github_fake import FakeGitHub
from tests.github_fake.fixtures import (  # noqa: F401 - fixtures, registered by name
    FakeFactory,
    github_fake_factory_fixture,
    github_fake_fixture,
)
from tests.support.harness import Runner
from tests.support.project import Project, build_project, seed_fake


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The repository, its origin with every pull request, and the parent's measured coverage (once)."""
    return build_project(tmp_path_factory.mktemp("e2e-project"))


@pytest.fixture
def fake(github_fake: FakeGitHub, project: Project) -> FakeGitHub:
    """The fake GitHub knowing the repository and every pull request of the project."""
    return seed_fake(github_fake, project)


@pytest.fixture
def runner(project: Project, fake: FakeGitHub, tmp_path: Path) -> Iterator[Runner]:
    """Runs the action in this process."""
    yield from _restoring_pulls(project, Runner(project, fake, tmp_path, in_process=True))


@pytest.fixture(params=["in-process", pytest.param("subprocess", marks=pytest.mark.process)])
def each_runner(
    request: pytest.FixtureRequest, project: Project, fake: FakeGitHub, tmp_path: Path
) -> Iterator[Runner]:
    """Both ways, for the smoke tests: in this process, and ``entrypoint.py`` as a subprocess exactly
    as the Docker action runs it (production pacing included)."""
    in_process = request.param == "in-process"
    yield from _restoring_pulls(project, Runner(project, fake, tmp_path, in_process=in_process))


def _restoring_pulls(project: Project, runner: Runner) -> Iterator[Runner]:
    pulls = {n: (pr.head, pr.merge) for n, pr in project.pulls.items()}
    yield runner
    # A test that "pushes" to a pull request restores it for the next one.
    for number, (head, merge) in pulls.items():
        pr = project.pulls[number]
        if (pr.head, pr.merge) != (head, merge):
            project.point_pull(type(pr)(number, head, merge, pr.branch, pr.expected))
