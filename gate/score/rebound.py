"""SCORING.md v2, 2.2, on the score's side: what the namespace watch found
(:mod:`oracle_gate.score.watch_namespaces`), as reasons, and the definitions the diff verdict is
recomputed with. Pure: the trusted stage recomputes both from ``score.json``.

A rebinding is ``dynamic_rebinding`` (unscored). Its definition's parent lines join ``touched``
(:func:`rebound_targets`, read by :func:`oracle_gate.check.gather` through
``CheckRequest.rebound``), so a frozen-only definition replaced at run time ends as the diff verdict
says of a change that edits it (``freeze_overlap``): :func:`with_rechecked` folds that verdict in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from oracle_gate.judge.verdict import Outcome

FIELDS = ("module", "path", "name", "when", "what")
MAX_ENTRIES = 500  # rebindings kept per run (the count of a run that found more is still a reason)


def rebound_entries(raw: object) -> tuple[Mapping[str, str], ...]:
    """The ``rebound`` list of a run's report, each entry with its five string fields; anything
    malformed is dropped (a report head's code forged is caught by the witnesses, not here)."""
    if not isinstance(raw, list):
        return ()
    out = []
    for entry in raw[:MAX_ENTRIES]:
        if isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in FIELDS):
            out.append({k: str(entry[k]) for k in FIELDS})
    return tuple(out)


def rebound_targets(entries: Iterable[Mapping[str, str]]) -> tuple[tuple[str, str], ...]:
    """(path, module-level name) of each rebound definition: a method's class (``C.m`` -> ``C``)."""
    targets = {
        (e["path"], e["name"].split(".", 1)[0])
        for e in entries
        if e.get("path") and not e["name"].startswith("(")
    }
    return tuple(sorted(targets))


def describe(entries: Sequence[Mapping[str, str]], shown: int = 5) -> str:
    items = [f"{e['module']}.{e['name']} ({e['path']}) at {e['when']}: {e['what']}" for e in entries[:shown]]
    more = f"; and {len(entries) - shown} more" if len(entries) > shown else ""
    return "; ".join(items) + more


def with_rechecked(
    reasons: list[Any], verdict: Outcome, rechecked: Sequence[tuple[str, str]], make: Any
) -> list[Any]:
    """``reasons`` plus the recomputed diff verdict's reasons when it is not ``pass_clean``
    (``make(code, detail, outcome)`` builds each)."""
    if verdict == Outcome.PASS_CLEAN:
        return reasons
    return reasons + [
        make(code, f"with the rebound definitions touched: {detail}", verdict) for code, detail in rechecked
    ]
