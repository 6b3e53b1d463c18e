"""One check: read everything the verdict needs from git and the map, then evaluate.

This is the read side of the flow. The oracle (policy, freeze manifest, lock)
is always read from the **parent** commit with git, never from head and never
from the working tree, so a change can never weaken what judges it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from gate import __version__
from gate.changes import read_changes
from gate.coverage_map import load_parent_coverage
from gate.freeze import check_bindings, parse_freeze
from gate.git import Git
from gate.lock import parse_lock, read_locked_blobs
from gate.policy import POLICY_PATH, parse_policy
from gate.verdict import Evidence, Protocol, Verdict, evaluate


@dataclass(frozen=True)
class CheckRequest:
    repo: Path
    base: str
    head: str
    coverage: Path | None = None
    coverage_sha: str | None = None
    extra_protected: tuple[str, ...] = ()
    allow_failing_parent: bool = False


def _digest(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def gather(git: Git, request: CheckRequest) -> Evidence:
    """Read the parent's oracle, the change and the map. Raises GateError if git cannot answer."""
    git.check_repository()
    parent, head = git.commit(request.base), git.commit(request.head)
    policy_bytes = git.read_blob(parent, POLICY_PATH)
    policy = parse_policy(policy_bytes).with_extra_protected(request.extra_protected)
    freeze_bytes = git.read_blob(parent, policy.freeze)
    lock_bytes = git.read_blob(parent, policy.fixture_lock)
    freeze = check_bindings(parse_freeze(freeze_bytes, policy.freeze), git, parent)
    lock = parse_lock(lock_bytes, policy.fixture_lock)
    changes = read_changes(git, parent, head)
    ignored = policy.ignored()
    scored = {path: lines for path, lines in changes.touched().items() if path not in ignored}
    coverage = load_parent_coverage(
        git,
        parent=parent,
        coverage=request.coverage,
        coverage_sha=request.coverage_sha,
        touched=scored,
        allow_failing_parent=request.allow_failing_parent,
    )
    protocol = Protocol(
        policy_sha256=_digest(policy_bytes),
        freeze_sha256=_digest(freeze_bytes),
        lock_sha256=_digest(lock_bytes),
        coverage_sha256=coverage.digest,
        gate_version=__version__,
        extra_protected=policy.extra_protected,
        allow_failing_parent=request.allow_failing_parent,
    )
    return Evidence(
        changes=changes,
        policy=policy,
        freeze=freeze,
        lock=lock,
        locked_blobs=read_locked_blobs(git, head, lock),
        coverage=coverage,
        protocol=protocol,
    )


def run_check(request: CheckRequest, git: Git | None = None) -> Verdict:
    return evaluate(gather(git or Git(request.repo), request))
