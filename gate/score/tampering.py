"""SCORING.md v2, 2.3: do a run's witnesses agree? Pure (the trusted stage recomputes it from
``score.json``).

Three witnesses of one run: the score plugin's recorder (its ``finish`` event), the second witness
on a pipe to ``score`` (:mod:`oracle_gate.score.witness`), and the exit status of the tests' process
as the operating system reports it. They must give the same outcome for every test and the same
exit status, and the exit status must match the outcomes (pytest never exits 0
when a test failed). Anything else is ``score_tampered``: something in the run changed what
one of them says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

FAILED = frozenset({"failed", "error"})
SHOWN = 5  # test ids shown in the detail (all are listed in the reason's tests)


@dataclass(frozen=True)
class Witnessed:
    """What the second witness and the operating system saw of one run."""

    outcomes: Mapping[str, str]
    exit_status: int | None  # the witness's (pytest's ``sessionfinish``)
    returncode: int | None  # the tests' process's, from ``wait``
    unreadable: int = 0  # witness lines that were not the witness's


def disagreements(
    recorded: Mapping[str, str], recorded_exit: int | None, seen: Witnessed
) -> tuple[list[str], list[str]]:
    """(what disagrees, one phrase each; the test ids concerned)."""
    phrases: list[str] = []
    differ = sorted(t for t in set(recorded) | set(seen.outcomes) if recorded.get(t) != seen.outcomes.get(t))
    if differ:
        shown = "; ".join(
            f"{t}: recorder {recorded.get(t, 'nothing')}, witness {seen.outcomes.get(t, 'nothing')}"
            for t in differ[:SHOWN]
        )
        phrases.append(f"{len(differ)} outcome(s) differ between the recorder and the witness ({shown})")
    if seen.unreadable:
        phrases.append(f"the witness's pipe holds {seen.unreadable} line(s) the witness did not write")
    statuses = {"recorder": recorded_exit, "witness": seen.exit_status, "process": seen.returncode}
    if len(set(statuses.values())) > 1:
        phrases.append(
            "the exit statuses differ (" + ", ".join(f"{k} {v}" for k, v in statuses.items()) + ")"
        )
    failed = sorted(
        t for t in set(recorded) | set(seen.outcomes) if {recorded.get(t), seen.outcomes.get(t)} & FAILED
    )
    if seen.returncode == 0 and failed:
        phrases.append(f"pytest exited 0, but {len(failed)} test(s) failed")
        differ = sorted(set(differ) | set(failed))
    # Exit 1 with no failed test is not a disagreement: a plugin may fail the session itself
    # (pytest-cov's --cov-fail-under adds to the session's failures without a failed test).
    return phrases, differ
