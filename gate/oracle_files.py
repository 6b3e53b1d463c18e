"""The parent's oracle files (policy, freeze manifest, fixture lock), read from git and parsed.

Apart from :mod:`oracle_gate.check` (which re-exports it) so that ``oracle-gate map`` and the other
readers of the oracle import the three parsers and git, not the whole judge: ``map`` reads the freeze
to know which tests are frozen, and on Python 3.11 every 0.1 s of start-up is part of its cost against
pytest-cov's (issue 19). The oracle is always read from the **parent** commit with git, never from head
and never from the working tree, so a change can never weaken what judges it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from oracle_gate.git import Git
from oracle_gate.judge.freeze import Freeze, check_bindings, parse_freeze
from oracle_gate.judge.lock import FixtureLock, parse_lock
from oracle_gate.judge.policy import POLICY_PATH, Policy, parse_policy


@dataclass(frozen=True)
class Oracle:
    """The parent's oracle files, parsed, with the bytes' digests for the verdict's protocol."""

    policy: Policy
    freeze: Freeze
    lock: FixtureLock
    policy_sha256: str | None
    freeze_sha256: str | None
    lock_sha256: str | None


def _digest(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def read_oracle(
    git: Git, rev: str, extra_protected: tuple[str, ...] = (), *, check_bound: bool = True
) -> Oracle:
    """Policy, freeze and lock as ``rev`` (a full commit id, the parent) has them.

    The three are asked of git in one batch, the freeze and lock at their default paths; only a policy
    that moves them costs a second one. The freeze entries' ``bound_sha`` bindings are checked against
    ``rev``'s ancestry here (three git commands per distinct SHA) unless ``check_bound`` is false:
    ``map`` asks only which tests are frozen, which a binding does not change (an entry with a foreign
    ``bound_sha`` still freezes); ``check`` judges the bindings, always reading them itself.
    """
    defaults = Policy()
    first = git.read_blobs(rev, [POLICY_PATH, defaults.freeze, defaults.fixture_lock])
    policy_bytes = first[POLICY_PATH]
    policy = parse_policy(policy_bytes).with_extra_protected(extra_protected)
    moved = [p for p in dict.fromkeys([policy.freeze, policy.fixture_lock]) if p not in first]
    blobs = {**first, **git.read_blobs(rev, moved)} if moved else first
    freeze_bytes, lock_bytes = blobs[policy.freeze], blobs[policy.fixture_lock]
    freeze = parse_freeze(freeze_bytes, policy.freeze)
    if check_bound:
        freeze = check_bindings(freeze, lambda sha: binding_problem(git, sha, rev))
    return Oracle(
        policy=policy,
        freeze=freeze,
        lock=parse_lock(lock_bytes, policy.fixture_lock),
        policy_sha256=_digest(policy_bytes),
        freeze_sha256=_digest(freeze_bytes),
        lock_sha256=_digest(lock_bytes),
    )


def binding_problem(git: Git, sha: str, parent: str) -> str | None:
    """Why the hex prefix ``sha`` is not the parent or an ancestor of it (None when it is)."""
    commits = git.commits_with_prefix(sha)
    if not commits:
        return "names no commit in this repository"
    if len(commits) > 1:
        return f"is ambiguous ({len(commits)} commits start with it)"
    if not git.is_ancestor(commits[0], parent):
        return (
            f"is not the parent or an ancestor of it (it names {commits[0]})"
            if commits[0] != sha
            else "is not the parent or an ancestor of it"
        )
    return None
