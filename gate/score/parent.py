"""The parent's side of the comparison, as both the scoring job and the trusted stage read it: the
map manifest's outcomes and plugin set, its digest, and the live tests of this change."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.errors import InputError
from oracle_gate.git import Git
from oracle_gate.maps.inside.outcomes import (
    OUTCOMES_KEY,
    PLUGIN_ORIGINS,
    PLUGIN_ORIGINS_KEY,
    PLUGINS_KEY,
    PYTHON_KEY,
    plugin_set,
)
from oracle_gate.maps.reader.manifest import Manifest, locate
from oracle_gate.oracle_files import Oracle, read_oracle
from oracle_gate.score.decide import ParentRun, live_tests


@dataclass(frozen=True)
class ParentSide:
    run: ParentRun
    digest: str
    live: frozenset[str]
    oracle: Oracle


@dataclass(frozen=True)
class ParentProblem:
    problem: str
    digest: str | None = None


def parent_side(git: Git, parent: str, head: str, coverage: Path) -> ParentSide | ParentProblem:
    """The parent's facts for the (parent, head) pair, or why they cannot be had (then unscored)."""
    try:
        manifest, digest = _parent_manifest(coverage)
    except (InputError, OSError) as exc:
        return ParentProblem(f"the parent's map manifest: {exc}")
    run = parent_facts(manifest)
    if isinstance(run, str):
        return ParentProblem(run, digest)
    oracle = read_oracle(git, parent)
    gone = [c.old_path for c in git.changes(parent, head) if c.old_path and c.status in "DR"]
    return ParentSide(run, digest, live_tests(run.outcomes, oracle.freeze.is_frozen, gone), oracle)


def _parent_manifest(coverage: Path) -> tuple[Manifest, str]:
    _data, manifest = locate(coverage)
    if manifest is None:
        raise InputError(
            str(coverage),
            "no map manifest beside it: score needs the parent's outcomes from 'oracle-gate map'",
        )
    return manifest, hashlib.sha256(manifest.path.read_bytes()).hexdigest()


def parent_facts(manifest: Manifest) -> ParentRun | str:
    """The parent's outcomes and plugin set from its manifest, or why they cannot be used."""
    outcomes, plugins = manifest.extra.get(OUTCOMES_KEY), manifest.extra.get(PLUGINS_KEY)
    if not isinstance(outcomes, dict) or not outcomes:
        return f"{manifest.path}: the parent's map manifest records no per-test outcomes (an older gate's?)"
    if not isinstance(plugins, list) or not all(isinstance(p, dict) for p in plugins):
        return f"{manifest.path}: the parent's map manifest records no pytest plugin set"
    if manifest.extra.get(PLUGIN_ORIGINS_KEY) != PLUGIN_ORIGINS:
        return (
            f"{manifest.path}: the parent's map manifest lists plugin distributions only, not every "
            "plugin by origin (an older gate's map): rebuild it with this gate's 'oracle-gate map'"
        )
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in outcomes.items()):
        return f"{manifest.path}: the parent's outcomes are not test id -> outcome strings"
    python = manifest.extra.get(PYTHON_KEY)
    return ParentRun(
        outcomes=dict(outcomes),
        plugins=plugin_set(plugins),
        python=python if isinstance(python, str) else None,
    )
