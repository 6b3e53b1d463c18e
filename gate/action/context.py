"""What every job of a run works with: the config, git, the repository on GitHub, the log, what was
learned."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from oracle_gate.action.config import ActionConfig
from oracle_gate.action.workflow_io import Log, write_outputs, write_summary
from oracle_gate.git import Git
from oracle_gate.github.repository import GitHubRepo
from oracle_gate.maps.build import MapResult


class MapBuilder(Protocol):
    def __call__(self, git: Git, rev: str, out: Path, command: Sequence[str] | None = None) -> MapResult: ...


@dataclass
class RunState:
    """What the run has learned so far, for ``entrypoint.py`` to fail closed after a crash."""

    head_sha: str | None = None
    check_posted: bool = False


@dataclass
class Context:
    """One run's collaborators, passed to each job (see :mod:`oracle_gate.action.run`)."""

    config: ActionConfig
    git: Git
    github: GitHubRepo
    log: Log
    map_builder: MapBuilder
    sleep: Callable[[float], None]
    state: RunState = field(default_factory=RunState)
    #: ``repository.default_branch`` of the event, read with the rest of it, once per run
    #: (:func:`oracle_gate.action.run.run`, :mod:`oracle_gate.review.events`); None: it names none.
    default_branch: str | None = None

    def write_outputs(self, values: Mapping[str, str]) -> None:
        write_outputs(self.config.output_path, values, self.log.secrets)

    def write_summary(self, markdown: str) -> None:
        write_summary(self.config.summary_path, markdown, self.log.secrets)
