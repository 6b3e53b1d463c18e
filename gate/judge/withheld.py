"""Verdicts the core gives when the front door could not let it judge in full.

Every verdict comes from the core (issue 17): a front door that lacks an input does not edit a
verdict itself, it tells the core what is missing and why, and these rules decide.

* **Map unavailable** (:func:`map_unavailable`): the trusted store gave no map of the parent. The
  verdict made without it can never be ``pass_clean`` (the core already makes a verdict without a map
  ``unscored`` at best; this holds even if it did not), and it says why the map is missing.
* **Stored verdict distrusted** (:func:`stored_verdict_distrusted`): ``oracle-gate publish`` was
  given a ``verdict.json`` computed by a run that executed the pull request's own workflow files.
  The change could have written that verdict itself, so it is replaced by a ``fail`` naming each
  workflow file the change edits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from oracle_gate.judge.verdict import Outcome, Provenance, Reason, ReasonCode, Verdict

MAP_UNAVAILABLE_PREFIX = "trusted map store: "


def map_unavailable(verdict: Verdict, why: str) -> Verdict:
    """``verdict`` as made with no map of the parent, ``why`` saying what the store answered."""
    reason = Reason(ReasonCode.ORACLE_INCOMPLETE, f"{MAP_UNAVAILABLE_PREFIX}{' '.join(why.split())}")
    outcome = Outcome.UNSCORED if verdict.verdict == Outcome.PASS_CLEAN else verdict.verdict
    return dataclasses.replace(verdict, verdict=outcome, reasons=(reason, *verdict.reasons))


def stored_verdict_distrusted(stored: Verdict, workflow_paths: Sequence[str], gate_version: str) -> Verdict:
    """The ``fail`` that replaces a stored verdict the pull request could have produced itself (its
    run executed the workflow files in ``workflow_paths``, which the pull request changes). A stored
    ``fail`` stays as it is: nothing a change could forge makes it worse. No paths: the stored verdict.
    """
    if not workflow_paths or stored.verdict == Outcome.FAIL:
        return stored
    reasons = tuple(
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN,
            f"{path}: the pull request changes a workflow file, so the stored verdict "
            f"({stored.verdict}) came from a run the change could rewrite and is not trusted",
            path=path,
        )
        for path in workflow_paths
    )
    protocol = Provenance(gate_version=gate_version)
    return Verdict(Outcome.FAIL, reasons, {}, {}, 0.0, stored.parent, stored.head, protocol)


def change_too_large(parent: str, head: str, changed_bytes: int, budget: int, gate_version: str) -> Verdict:
    """The verdict on a change larger than one judgement's budget of changed bytes (TRUST.md 8):
    ``unscored`` (``oracle_incomplete``), its blobs never read. A limit reached is a verdict."""
    reason = Reason(
        ReasonCode.ORACLE_INCOMPLETE,
        f"the change is {changed_bytes} bytes (both sides of every changed file), over the "
        f"{budget}-byte budget of one judgement: it was not read",
    )
    protocol = Provenance(gate_version=gate_version)
    return Verdict(Outcome.UNSCORED, (reason,), {}, {}, 0.0, parent, head, protocol)
