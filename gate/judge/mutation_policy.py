"""The policy's ``[mutation]`` table (SCORING.md 2.4): pure.

``mode`` is ``"off"``, ``"report"`` (survivors listed, the score unchanged; the default) or
``"unscored"`` (any ``unchecked_line`` or ``mutation_budget_spent`` makes a ``pass_clean`` score
``unscored``); ``mutants_per_line`` (default 1), ``max_mutants`` (200) and ``max_seconds`` (600)
bound the work (TRUST.md 8). A malformed value keeps its default and is a problem.
"""

from __future__ import annotations

from dataclasses import dataclass

MODES = ("report", "unscored", "off")
LIMITS = {"mutants_per_line": (1, 20), "max_mutants": (0, 10_000), "max_seconds": (1, 86_400)}


@dataclass(frozen=True)
class MutationPolicy:
    mode: str = "report"
    mutants_per_line: int = 1
    max_mutants: int = 200
    max_seconds: int = 600


def parse_mutation(value: object) -> tuple[MutationPolicy, list[str]]:
    """The table's policy and what is wrong with it (each problem one phrase)."""
    if not isinstance(value, dict):
        return MutationPolicy(), [f"'mutation' must be a table, got {type(value).__name__}"]
    values: dict[str, object] = {}
    problems: list[str] = []
    for key, raw in value.items():
        if key == "mode":
            if raw in MODES:
                values[key] = raw
            else:
                problems.append(
                    f"'mutation.mode' must be one of {', '.join(map(repr, MODES))}, got {raw!r:.40}"
                )
        elif key in LIMITS:
            low, high = LIMITS[key]
            if isinstance(raw, int) and not isinstance(raw, bool) and low <= raw <= high:
                values[key] = raw
            else:
                problems.append(
                    f"'mutation.{key}' must be a whole number from {low} to {high}, got {raw!r:.40}"
                )
        else:
            problems.append(f"unknown key {'mutation.' + str(key)!r}")
    return MutationPolicy(**values), problems  # type: ignore[arg-type]
