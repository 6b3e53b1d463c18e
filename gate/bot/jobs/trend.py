"""The trend the status page shows: verdicts per ISO week, freeze entries needing triage, surface share.

What is kept is noted when the bot posts a verdict (:func:`noted_at_judging`, stored beside the
verdict by :meth:`oracle_gate.bot.queue.store.Store.record_verdict`), so the page never reads a
repository, a map
or a file: it shows counts, dates, test ids and logins, never file contents.

* A verdict recorded as ``no_map`` was posted as ``unscored`` (the parent had no map yet), so it
  counts as unscored here.
* **Only the required check** (issue 29): the weeks, the maps and the triage list read the verdicts
  posted as the required check, on an allowed base. A pull request to a branch of the author's own
  is judged and posted under ``<name> (base: <branch>)``: its verdicts are counted apart
  (:attr:`RepoTrend.other_bases`), so they cannot skew the trend or fill the triage list.
* **Triage** (contract v3.7): the verdict's own ``triage``, the parent's freeze entries past their
  ``expires`` date (UTC) or without an ``owner``, as the core listed them.
* **Surface share**: the share of the map's measured lines only frozen tests observe
  (:mod:`oracle_gate.bot.jobs.surface_share`), once per parent; NULL ("not measured") without a map.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from oracle_gate.bot.queue.store import NO_MAP, Store
from oracle_gate.judge.triage import EXPIRED, NO_OWNER
from oracle_gate.judge.triage import TriageEntry as VerdictTriage
from oracle_gate.judge.verdict import Verdict

MAX_TRIAGE = 200  # entries kept per verdict: a freeze of thousands does not bloat every row
WEEKS_SHOWN = 26


@dataclass(frozen=True)
class Week:
    label: str  # ISO week, "2026-W49"
    pass_clean: int = 0
    fail: int = 0
    unscored: int = 0

    @property
    def total(self) -> int:
        return self.pass_clean + self.fail + self.unscored

    def rate(self, count: int) -> float:
        return count / self.total if self.total else 0.0


@dataclass(frozen=True)
class TriageEntry:
    nodeid: str
    why: str


def percent(rate: float) -> str:
    """A rate as a whole percentage, halves rounded up (the chart and the table say the same)."""
    return f"{int(rate * 100 + 0.5)}%"


def iso_week(at: float) -> str:
    year, week, _ = dt.datetime.fromtimestamp(at, dt.UTC).isocalendar()
    return f"{year}-W{week:02d}"


def weekly(rows: Iterable[tuple[float, str]]) -> list[Week]:
    """(time, verdict) rows counted per ISO week, oldest first; weeks without verdicts are left out."""
    counts: dict[str, dict[str, int]] = {}
    for at, verdict in rows:
        word = "unscored" if verdict == NO_MAP else verdict
        if word in ("pass_clean", "fail", "unscored"):
            week = counts.setdefault(iso_week(at), {})
            week[word] = week.get(word, 0) + 1
    return [Week(label, **counts[label]) for label in sorted(counts)]


def triage_why(entry: VerdictTriage) -> str:
    """Why the verdict lists an entry as needing triage, for people (``no owner; expired 2026-11-30``)."""
    words = {NO_OWNER: "no owner"}
    expired = f"expired {entry.expires.isoformat()}" if entry.expires else "expired"
    return "; ".join(expired if w == EXPIRED else words.get(w, w) for w in entry.why)


def noted(verdict: Verdict, seconds: float) -> dict[str, object]:
    """The trend's columns for a posted verdict (see :meth:`Store.record_verdict`): the time spent
    judging, and the verdict's own ``triage`` (v3.7: the core lists the parent freeze's entries past
    ``expires`` or without ``owner``); the surface share is added by
    :func:`oracle_gate.bot.jobs.surface_share.with_share`."""
    triage = [{"nodeid": t.nodeid[:500], "why": triage_why(t)} for t in verdict.triage[:MAX_TRIAGE]]
    return {"seconds": seconds, "triage": json.dumps(triage)}


# -- reading what was kept -------------------------------------------------------------------------


@dataclass(frozen=True)
class MapShare:
    parent: str
    share: float | None
    at: float


PULLS_SHOWN = 50


@dataclass(frozen=True)
class PullRow:
    pr: int
    verdict: str
    head: str
    at: float
    required: bool


@dataclass(frozen=True)
class RepoTrend:
    repo: str
    weeks: list[Week]
    maps: list[MapShare]
    triage: list[TriageEntry] | None  # None: not known (no verdict recorded it)
    triage_parent: str | None
    #: verdicts posted under another name than the required check's (bases not allowed): counted apart
    other_bases: Week = Week("other bases")
    #: each pull request's latest judgement, newest first (at most PULLS_SHOWN)
    pulls: list[PullRow] = field(default_factory=list)


def repositories(store: Store) -> list[str]:
    return store.repositories()


def known_share(store: Store, repo: str, parent: str) -> float | None:
    """A share already noted for this parent's map (the map and the freeze are the parent's: the same)."""
    return store.known_share(repo, parent)


def repo_trend(store: Store, repo: str, weeks_shown: int = WEEKS_SHOWN) -> RepoTrend | None:
    """The page's data for ``repo``; None when the bot recorded no verdict there."""
    rows = store.verdict_times(repo)
    if not rows:
        return None
    last = store.last_triage(repo)
    others = weekly((at, v) for at, v, required in rows if not required)
    return RepoTrend(
        repo=repo,
        weeks=weekly((at, v) for at, v, required in rows if required)[-weeks_shown:],
        maps=[MapShare(*row) for row in store.map_shares(repo)],
        triage=None if last is None else _triage_of(last[1]),
        triage_parent=None if last is None else last[0],
        other_bases=total("other bases", others),
        pulls=[PullRow(*row) for row in store.recent_pulls(repo, PULLS_SHOWN)],
    )


def total(label: str, weeks: Iterable[Week]) -> Week:
    """The counts of ``weeks`` added up, under ``label``."""
    listed = list(weeks)
    return Week(
        label,
        sum(w.pass_clean for w in listed),
        sum(w.fail for w in listed),
        sum(w.unscored for w in listed),
    )


def _triage_of(text: str) -> list[TriageEntry]:
    try:
        items = json.loads(text)
    except ValueError:
        return []
    return [
        TriageEntry(str(i.get("nodeid")), str(i.get("why")))
        for i in items
        if isinstance(items, list) and isinstance(i, dict)
    ]
