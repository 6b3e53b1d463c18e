"""Where a parent map came from, and whether that source is one a pull request cannot write.

TRUST.md invariant 3: the parent's map is built by running the parent's tests in a job that runs no
head code, and kept where no pull request can write. ``oracle-gate map`` records its producer in the
manifest (:class:`Producer`, from the ``GITHUB_*`` variables of the run that built it), and every
reader of a map (the Action, the bot) asks :func:`producer_problems` whether that producer is trusted:

* the same repository;
* a run on the default branch (``ref`` and the workflow file's own ref both ``refs/heads/<default>``),
  started by an event that only the default branch's own history triggers (``push``, ``schedule``,
  ``workflow_dispatch``, ``merge_group`` is not one: its ref is the queue's), or
* the very run that is judging now (the same trusted job built the map: same ``run_id``).

A map with no producer (built outside GitHub Actions) is trusted only where the caller says local
maps are acceptable (the CLI); the Action and the bot never accept one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRODUCER_KEY = "producer"
TRUSTED_EVENTS = frozenset({"push", "schedule", "workflow_dispatch"})


@dataclass(frozen=True)
class Producer:
    """The GitHub Actions run that built a map (every field as GitHub's variables give it)."""

    repository: str
    workflow_ref: str  # GITHUB_WORKFLOW_REF: "owner/repo/.github/workflows/map.yml@refs/heads/main"
    run_id: str
    event: str
    job: str
    ref: str  # GITHUB_REF of the run
    sha: str  # GITHUB_SHA of the run

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Producer | None:
        """The producer of a map built now, or None outside GitHub Actions."""
        if environ.get("GITHUB_ACTIONS") != "true":
            return None
        return cls(
            repository=environ.get("GITHUB_REPOSITORY", ""),
            workflow_ref=environ.get("GITHUB_WORKFLOW_REF", ""),
            run_id=environ.get("GITHUB_RUN_ID", ""),
            event=environ.get("GITHUB_EVENT_NAME", ""),
            job=environ.get("GITHUB_JOB", ""),
            ref=environ.get("GITHUB_REF", ""),
            sha=environ.get("GITHUB_SHA", ""),
        )

    def to_document(self) -> dict[str, str]:
        return {
            "repository": self.repository,
            "workflow_ref": self.workflow_ref,
            "run_id": self.run_id,
            "event": self.event,
            "job": self.job,
            "ref": self.ref,
            "sha": self.sha,
        }

    @classmethod
    def from_document(cls, doc: Any) -> Producer | None:
        """The producer recorded in a manifest; None when there is none or it is not well formed
        (a malformed producer is no producer: it cannot be trusted)."""
        if not isinstance(doc, Mapping):
            return None
        fields = ("repository", "workflow_ref", "run_id", "event", "job", "ref", "sha")
        values = [doc.get(name) for name in fields]
        if not all(isinstance(value, str) for value in values):
            return None
        return cls(*(str(value) for value in values))

    @property
    def workflow_path(self) -> str:
        """The workflow file's path in its repository (``.github/workflows/map.yml``)."""
        where = self.workflow_ref.split("@", 1)[0]
        prefix = self.repository + "/"
        return where[len(prefix) :] if where.startswith(prefix) else where

    @property
    def workflow_file_ref(self) -> str:
        """The ref the workflow file was read from (after the ``@``)."""
        return self.workflow_ref.split("@", 1)[1] if "@" in self.workflow_ref else ""


def producer_problems(
    producer: Producer | None,
    *,
    repository: str,
    default_branch: str,
    current_run_id: str | None = None,
    accept_local: bool = False,
    source: str = "map manifest",
) -> list[str]:
    """Why a map built by ``producer`` is not from a trusted store (empty when it is)."""
    if producer is None:
        if accept_local:
            return []
        return [f"{source}: records no producer run, so nothing ties the map to a trusted job"]
    if current_run_id is not None and producer.run_id == current_run_id and producer.repository == repository:
        return []
    problems = []
    branch_ref = f"refs/heads/{default_branch}"
    if producer.repository != repository:
        problems.append(f"{source}: built in {producer.repository!r}, not in {repository!r}")
    if producer.event not in TRUSTED_EVENTS:
        problems.append(
            f"{source}: built by a {producer.event!r} run; only a default-branch "
            f"{'/'.join(sorted(TRUSTED_EVENTS))} run (or this run) is trusted"
        )
    if producer.ref != branch_ref:
        problems.append(f"{source}: built on {producer.ref!r}, not on the default branch {branch_ref!r}")
    if producer.workflow_file_ref != branch_ref:
        problems.append(
            f"{source}: built by the workflow file of {producer.workflow_file_ref!r}, "
            f"not the default branch's {branch_ref!r}"
        )
    return problems
