"""The inputs the core judges when a front door could not let it read in full.

Every verdict comes from :func:`oracle_gate.judge.verdict.evaluate` (issues 17 and 27): a front door
that lacks an input, or stopped at a limit, does not make or edit a verdict itself; it tells the
core what is missing and why, and the core decides.

* **Change too large** (:func:`change_too_large`): over one judgement's budget of changed bytes, the
  change is not read (TRUST.md 8): ``unscored`` (``oracle_incomplete``).
* **Stored verdict distrusted** (:func:`stored_verdict_distrusted`): ``oracle-gate publish`` was
  given a ``verdict.json`` computed by a run that executed the pull request's own workflow files:
  a ``fail`` naming each of them (a stored ``fail`` stays).
* **Map unavailable**: the trusted store gave no map of the parent; the bot says why in the
  evidence (``Evidence.map_missing``), and the verdict can never be ``pass_clean``.
"""

from __future__ import annotations

from collections.abc import Sequence

from oracle_gate.judge.verdict import (
    MAP_UNAVAILABLE_PREFIX,
    NotRead,
    Provenance,
    StoredNotTrusted,
    Verdict,
    evaluate,
)

__all__ = ["MAP_UNAVAILABLE_PREFIX", "change_too_large", "not_read", "stored_verdict_distrusted"]


def not_read(
    parent: str, head: str, why: str, gate_version: str, *, map_missing: str | None = None
) -> Verdict:
    """The verdict when a limit (``why`` names it and its setting) stopped the judgement before it read
    the change: ``unscored``, never a pass; ``map_missing``: why the trusted store gave no map either."""
    return evaluate(NotRead(parent, head, why, Provenance(gate_version=gate_version), map_missing))


def change_too_large(
    parent: str,
    head: str,
    changed_bytes: int,
    budget: int,
    gate_version: str,
    *,
    map_missing: str | None = None,
) -> Verdict:
    """The verdict on a change larger than one judgement's budget of changed bytes (TRUST.md 8):
    ``unscored`` (``oracle_incomplete``), its blobs never read. A limit reached is a verdict."""
    why = (
        f"the change is {changed_bytes} bytes (both sides of every changed file), over the "
        f"{budget}-byte budget of one judgement: it was not read"
    )
    return not_read(parent, head, why, gate_version, map_missing=map_missing)


def stored_verdict_distrusted(stored: Verdict, workflow_paths: Sequence[str], gate_version: str) -> Verdict:
    """The ``fail`` that replaces a stored verdict the pull request could have produced itself (its
    run executed the workflow files in ``workflow_paths``, which the pull request changes). A stored
    ``fail`` stays as it is. No paths: the stored verdict."""
    judged = StoredNotTrusted(stored, tuple(workflow_paths), Provenance(gate_version=gate_version))
    return evaluate(judged)
