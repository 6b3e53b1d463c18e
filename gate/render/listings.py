"""What several renderings list from a verdict: line ranges per file and the tests observing them."""

from __future__ import annotations

from dataclasses import dataclass

from oracle_gate.judge.verdict import Verdict, line_ranges, range_text


def overlap_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    """Per overlapping file, its overlap lines as runs ``(first, last)`` (parent coordinates)."""
    return {path: line_ranges(lines) for path, lines in sorted(v.overlap.items()) if lines}


def frozen_observers(v: Verdict) -> dict[str, list[str]]:
    """Per overlapping file, the frozen tests that observe its overlap lines."""
    return {
        path: sorted({t for tests in lines.values() for t in tests})
        for path, lines in sorted(v.overlap_observers.items())
    }


def inherited_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    """v2: overlap lines no test runs, whose observers are those of the function around them."""
    return {path: line_ranges(lines) for path, lines in sorted(v.inherited.items()) if lines}


def edited_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    """v2: per file, its ``edited_only`` lines as runs ``(first, last)`` (parent coordinates)."""
    return {path: line_ranges(lines) for path, lines in sorted(v.edited_only.items()) if lines}


def edited_by_file(v: Verdict) -> dict[str, list[str]]:
    """Per edited_only file, the edited tests that were the only observers of its lines."""
    return {
        path: sorted({t for tests in lines.values() for t in tests})
        for path, lines in sorted(v.edited_observers.items())
    }


def edited_only_tests(v: Verdict) -> dict[str, str]:
    """The edited tests that are the only observers of some touched line, each with how it was edited."""
    only = {t for tests in edited_by_file(v).values() for t in tests}
    return {t: how for t, how in sorted(v.edited_tests.items()) if t in only}


@dataclass(frozen=True)
class OverlapRange:
    """One run of overlap lines and every frozen test observing some line of it."""

    start: int
    end: int
    tests: tuple[str, ...]

    @property
    def text(self) -> str:
        return range_text(self.start, self.end)


def overlap_listing(v: Verdict) -> dict[str, list[OverlapRange]]:
    """Every overlap range per file (parent coordinates) with every frozen test observing it."""
    listing: dict[str, list[OverlapRange]] = {}
    for path, ranges in overlap_ranges(v).items():
        by_line = v.overlap_observers.get(path, {})
        listing[path] = [
            OverlapRange(a, b, tuple(sorted({t for n in range(a, b + 1) for t in by_line.get(n, ())})))
            for a, b in ranges
        ]
    return listing
