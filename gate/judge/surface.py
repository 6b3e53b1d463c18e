"""The freeze surface: the code that only frozen tests observe, per file and per freeze entry.

A frozen test's result counts for nothing, so a line that only frozen tests observe is a line no
test checks: a change there is ``unscored`` (``freeze_overlap``). This module measures that surface
over a whole parent map, the number the freeze article asks maintainers to watch ("if unscored
dominates, your freeze surface is the product defect"), and lists the entries behind it with their
age, owner and expiry (v3.7), so each entry can be triaged. Pure: the map's observers, the parsed
freeze, the bound commits' dates and today's date come in as values.

The surface counts measured lines (lines some test ran) of files that are neither ignored nor test
files (a frozen test's own body is the observer, not the observed); no function inheritance and no
edited tests apply, since no change is judged here.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from oracle_gate.judge.freeze import Freeze, FreezeEntry
from oracle_gate.judge.globs import GlobSet

#: v3.7: a login (letters, digits, ``-``, ``_``, ``.``; not starting with ``-`` or ``.``; at most
#: 100 characters; optionally ending in ``[bot]``).
OWNER = re.compile(r"(?!-|\.)[A-Za-z0-9_.-]{1,100}(\[bot\])?")
EXPIRES = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class EntryFields:
    """A freeze entry's v3.7 fields as written (None when absent or not a string)."""

    owner: str | None = None
    expires: str | None = None


@dataclass(frozen=True)
class EntrySurface:
    """One freeze entry: what it alone keeps unchecked, and what a triage needs to know."""

    nodeid: str
    reason: str | None
    bound_sha: str | None
    owner: str | None
    expires: str | None
    age_days: int | None  # days since the bound commit's date; None: the commit is not known
    #: frozen-only lines a test of this entry observes (fixing and unfreezing it makes them live
    #: unless another frozen entry also observes them)
    lines: dict[str, list[int]] = field(default_factory=dict)
    #: how many of ``lines`` no other entry observes
    unique: int = 0
    observes: bool = False  # a test of this entry observes some measured line of a scored file
    triage: tuple[str, ...] = ()  # why the entry needs triage (v3.7), empty when it does not

    @property
    def line_count(self) -> int:
        return sum(len(v) for v in self.lines.values())


@dataclass(frozen=True)
class Surface:
    """The whole freeze surface of one map."""

    files: dict[str, list[int]]  # per file, the measured lines only frozen tests observe
    measured_lines: int
    frozen_only_lines: int
    entries: tuple[EntrySurface, ...]
    today: dt.date

    @property
    def share(self) -> float:
        """The frozen-only share of measured lines, rounded to 4 places (0 when nothing is measured)."""
        if not self.measured_lines:
            return 0.0
        return round(self.frozen_only_lines / self.measured_lines, 4)

    @property
    def needing_triage(self) -> tuple[EntrySurface, ...]:
        return tuple(e for e in self.entries if e.triage)


def entry_fields(data: bytes | None) -> dict[int, EntryFields]:
    """The ``owner`` and ``expires`` of each entry of a freeze manifest's bytes, by its index in
    ``frozen`` (as :class:`oracle_gate.judge.freeze.FreezeEntry` numbers them). A manifest that does not
    parse has none (its problems are the parser's to report)."""
    try:
        doc = json.loads(data or b"{}")
    except (ValueError, RecursionError):
        return {}
    frozen = doc.get("frozen") if isinstance(doc, dict) else None
    if not isinstance(frozen, list):
        return {}
    out = {}
    for index, raw in enumerate(frozen):
        if isinstance(raw, dict):
            owner, expires = raw.get("owner"), raw.get("expires")
            out[index] = EntryFields(
                owner if isinstance(owner, str) else None, expires if isinstance(expires, str) else None
            )
    return out


def freeze_surface(
    observers: Mapping[str, Mapping[int, Iterable[str]]],
    freeze: Freeze,
    *,
    fields: Mapping[int, EntryFields],
    commit_dates: Mapping[str, dt.date],
    today: dt.date,
    not_scored: GlobSet | None = None,
) -> Surface:
    """The surface of a map whose ``observers`` give, per repo path, each measured line's test ids.

    ``commit_dates`` maps an entry's ``bound_sha`` as written to its commit's date; ``not_scored``
    matches the files left out (the policy's ``ignore`` and ``tests`` globs).
    """
    tally = _Tally()
    for path in sorted(observers):
        if not_scored is None or not not_scored.match(path):
            for line, tests in sorted(observers[path].items()):
                tally.add(path, line, {freeze.frozen_by(t) for t in tests})
    shared = _lines_of_several(tally.by_entry)
    entries = tuple(
        _with_triage(
            _entry_surface(entry, fields, commit_dates=commit_dates, today=today, tally=tally, shared=shared),
            today,
        )
        for entry in freeze.entries
    )
    return Surface(tally.files, tally.measured, sum(map(len, tally.files.values())), entries, today)


@dataclass
class _Tally:
    """Measured lines counted, frozen-only lines per file and per freeze entry (by its nodeid)."""

    files: dict[str, list[int]] = field(default_factory=dict)
    by_entry: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    observing: set[str] = field(default_factory=set)
    measured: int = 0

    def add(self, path: str, line: int, entries: set[str | None]) -> None:
        """One line and, per observer, the entry freezing it (None: a live observer)."""
        if not entries:
            return
        self.measured += 1
        named = sorted(e for e in entries if e is not None)
        self.observing.update(named)
        if None in entries:
            return
        self.files.setdefault(path, []).append(line)
        for nodeid in named:
            self.by_entry.setdefault(nodeid, {}).setdefault(path, []).append(line)


def _lines_of_several(by_entry: Mapping[str, Mapping[str, list[int]]]) -> set[tuple[str, int]]:
    seen: set[tuple[str, int]] = set()
    several: set[tuple[str, int]] = set()
    for lines in by_entry.values():
        for path, numbers in lines.items():
            for n in numbers:
                (several if (path, n) in seen else seen).add((path, n))
    return several


def _entry_surface(
    entry: FreezeEntry,
    fields: Mapping[int, EntryFields],
    *,
    commit_dates: Mapping[str, dt.date],
    today: dt.date,
    tally: _Tally,
    shared: set[tuple[str, int]],
) -> EntrySurface:
    extra = fields.get(entry.index, EntryFields())
    lines = {p: list(ns) for p, ns in sorted(tally.by_entry.get(entry.nodeid, {}).items())}
    date = commit_dates.get(entry.bound_sha) if entry.bound_sha else None
    return EntrySurface(
        nodeid=entry.nodeid,
        reason=entry.reason,
        bound_sha=entry.bound_sha,
        owner=extra.owner,
        expires=extra.expires,
        age_days=(today - date).days if date is not None else None,
        lines=lines,
        unique=sum(1 for p, ns in lines.items() for n in ns if (p, n) not in shared),
        observes=entry.nodeid in tally.observing,
    )


def _with_triage(e: EntrySurface, today: dt.date) -> EntrySurface:
    return replace(e, triage=tuple(triage_reasons(e, today)))


def triage_reasons(e: EntrySurface, today: dt.date) -> list[str]:
    """Why an entry needs a person's look (v3.7: no owner, past ``expires``; and what the map shows)."""
    why = []
    if e.owner is None:
        why.append("no owner")
    elif not OWNER.fullmatch(e.owner):
        why.append("malformed owner")
    expires = parse_date(e.expires)
    if e.expires is not None and expires is None:
        why.append("malformed expires")
    elif expires is not None and today > expires:
        why.append(f"expired {expires.isoformat()}")
    if e.age_days is None:
        why.append("bound commit unknown")
    if not e.observes:
        why.append("observes no measured line of a scored file")
    return why


def parse_date(text: str | None) -> dt.date | None:
    """An ISO ``YYYY-MM-DD`` date, None for anything else."""
    if text is None or not EXPIRES.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def unique_share_text(share: float) -> str:
    """A share as a percentage for people (``12.5%``, ``0%``)."""
    return f"{share * 100:.1f}".rstrip("0").rstrip(".") + "%"


def badge(share: float, label: str = "frozen-only lines") -> dict[str, object]:
    """shields.io endpoint JSON for the frozen-only share: green at 0, then yellow, orange, red."""
    color = "brightgreen" if share == 0 else "yellow" if share < 0.05 else "orange" if share < 0.15 else "red"
    return {"schemaVersion": 1, "label": label, "message": unique_share_text(share), "color": color}


def sorted_entries(entries: Sequence[EntrySurface]) -> list[EntrySurface]:
    """Entries by what they keep unchecked, most first, then by nodeid."""
    return sorted(entries, key=lambda e: (-e.line_count, e.nodeid))
