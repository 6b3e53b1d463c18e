"""The runs that build maps in tests: a default-branch push run (trusted) is the one shape every tier
starts from, and the untrusted runs are that shape with a field changed (``dataclasses.replace``)."""

from __future__ import annotations

from oracle_gate.maps.reader.provenance import Producer

MAP_WORKFLOW = ".github/workflows/oracle-gate-map.yml"


def default_branch_push_run(repository: str, *, run_id: str, sha: str = "") -> Producer:
    """The map workflow's push run on ``main`` of ``repository``: the producer a trusted map records."""
    return Producer(
        repository=repository,
        workflow_ref=f"{repository}/{MAP_WORKFLOW}@refs/heads/main",
        run_id=run_id,
        event="push",
        job="map",
        ref="refs/heads/main",
        sha=sha,
    )
