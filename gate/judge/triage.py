"""Contract v3.7: freeze entries that need a person's attention.

An entry past its ``expires`` date (compared with the UTC date of the run, an input: the core reads
no clock) or without an ``owner`` still freezes its tests (dropping it would bring the flake back
unseen); it is only *listed*, so someone re-triages it. Never a reason, never a verdict change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from oracle_gate.judge.freeze import Freeze

EXPIRED = "expired"
NO_OWNER = "no_owner"


@dataclass(frozen=True)
class TriageEntry:
    """One freeze entry needing triage, and why (``expired``, ``no_owner``, or both)."""

    nodeid: str
    owner: str | None
    expires: date | None
    why: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "nodeid": self.nodeid,
            "owner": self.owner,
            "expires": self.expires.isoformat() if self.expires else None,
            "why": list(self.why),
        }


def needs_triage(freeze: Freeze, today: date | None) -> tuple[TriageEntry, ...]:
    """The entries past ``expires`` on ``today`` (None: expiry is not checked) or without an owner,
    in the manifest's order."""
    found = []
    for entry in freeze.entries:
        why = []
        if today is not None and entry.expires is not None and entry.expires < today:
            why.append(EXPIRED)
        if entry.owner is None:
            why.append(NO_OWNER)
        if why:
            found.append(TriageEntry(entry.nodeid, entry.owner, entry.expires, tuple(why)))
    return tuple(found)
