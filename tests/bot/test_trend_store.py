"""Schema step 3 (the trend's columns on ``verdicts``) and what the status page and /metrics read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from oracle_gate.bot.jobs import surface_share as surface
from oracle_gate.bot.jobs import trend
from oracle_gate.bot.queue import schema
from oracle_gate.bot.queue.delivery_jobs import JUDGE, Job
from oracle_gate.bot.queue.store import NO_MAP, Store
from oracle_gate.bot.web import metrics
from oracle_gate.git import Git
from tests.support.bot_db import rows
from tests.support.repo import Repo


def job(n: int, repo: str = "octo/repo") -> Job:
    return Job(JUDGE, repo, 7, f"{repo}#{n}", pr=n)


def test_a_version_2_database_keeps_its_verdicts_with_the_trend_unknown(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with sqlite3.connect(path) as db:
        for step in schema.MIGRATIONS[:2]:
            step(db)
        db.execute("PRAGMA user_version = 2")
        db.execute("INSERT INTO verdicts VALUES ('octo/repo', 1, 'p', 'h', 'fail', 5, 7, 1764590400.0)")
    store = Store(path)
    assert store.migrated_from == 2
    assert rows(path, "SELECT verdict, seconds, triage, surface_share FROM verdicts") == [
        ("fail", None, None, None)
    ]
    data = trend.repo_trend(store, "octo/repo")
    assert data is not None
    assert data.triage is None  # not known: no verdict recorded the freeze
    assert [w.fail for w in data.weeks] == [1]
    snap = metrics.snapshot(store)
    assert snap.judging_buckets[-1] == 0  # no judging time recorded
    assert snap.verdicts == {"fail": 1}  # the kept verdicts start the posted counts


def test_the_noted_columns_are_kept_and_read_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    triage = json.dumps([{"nodeid": "tests/t.py::x", "why": "no owner"}])
    store.record_verdict(job(1), "p1", "h1", "unscored", 10, noted={"seconds": 0.7, "triage": triage})
    store.record_verdict(job(2), "p1", "h2", NO_MAP, 11, noted={"seconds": 42.0, "triage": "[]"})
    store.record_verdict(job(3), "p2", "h3", "pass_clean", 12)  # an older caller: nothing noted
    snap = metrics.snapshot(store)
    assert snap.verdicts == {"unscored": 1, NO_MAP: 1, "pass_clean": 1}
    assert snap.judging_buckets[:3] == [0, 1, 1]  # 0.7 s lands in le=1
    assert snap.judging_buckets[-1] == 2
    assert snap.judging_sum == 42.7
    data = trend.repo_trend(store, "octo/repo")
    assert data is not None
    assert data.triage == []  # the latest verdict that noted the freeze found none needing triage
    assert [m.parent for m in data.maps] == ["p2", "p1"]
    assert trend.repo_trend(store, "octo/other") is None
    assert trend.repositories(store) == ["octo/repo"]


def test_the_share_is_measured_once_per_parent_then_reused(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("oracle-gate.toml", "")
    repo.write("freeze.json", '{"schema": 1, "frozen": [{"nodeid": "t.py::x"}]}')
    parent = repo.commit("base")
    git = Git(repo.root)
    store = Store(tmp_path / "db.sqlite3")
    asked: list[str] = []

    def no_map() -> Path | None:
        asked.append(parent)
        return None

    noted = surface.with_share({"seconds": 1.0}, store, git, ("octo/repo", parent), no_map)
    assert noted == {"seconds": 1.0, "surface_share": None}  # no map: not measured
    store.record_verdict(job(1), parent, "h1", "fail", 1, noted={"surface_share": 0.4})

    def must_not_read() -> Path | None:
        raise AssertionError("the share of this parent's map is known already")

    again = surface.with_share({}, store, git, ("octo/repo", parent), must_not_read)
    assert again == {"surface_share": 0.4}
    assert asked == [parent]
    other = surface.with_share({}, store, git, ("octo/other", parent), no_map)
    assert other == {"surface_share": None}  # another repository's parent is not this one


def test_a_replaced_verdict_still_counts_as_posted_so_counters_never_go_down(tmp_path: Path) -> None:
    """The map arrives: the same head on the same parent is judged again, replacing its ``no_map``
    row; the page counts the judgement once (its latest word), /metrics counts both postings."""
    store = Store(tmp_path / "db.sqlite3")
    store.record_verdict(job(1), "p", "h", NO_MAP, 1, noted={"seconds": 0.1})
    before = metrics.snapshot(store)
    store.record_verdict(job(1), "p", "h", "unscored", 2, noted={"seconds": 3.0})
    after = metrics.snapshot(store)
    assert before.verdicts == {NO_MAP: 1}
    assert after.verdicts == {NO_MAP: 1, "unscored": 1}
    assert after.judging_buckets[-1] == 2
    assert rows(tmp_path / "db.sqlite3", "SELECT verdict FROM verdicts") == [("unscored",)]
    data = trend.repo_trend(store, "octo/repo")
    assert data is not None
    assert sum(w.total for w in data.weeks) == 1


def test_the_pull_request_list_is_each_latest_verdict_newest_first_and_bounded(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    store.record_verdict(job(1), "p1", "h1-old", "fail", 1)
    store.record_verdict(job(2), "p1", "h2", "pass_clean", 2, required=False)
    store.record_verdict(job(1), "p1", "h1-new", "pass_clean", 3)
    for n in range(3, 60):
        store.record_verdict(job(n), "p1", f"h{n}", "fail", n)
    data = trend.repo_trend(store, "octo/repo")
    assert data is not None
    assert len(data.pulls) == trend.PULLS_SHOWN
    everything = store.recent_pulls("octo/repo", 100)
    assert [p for p, *_ in everything].count(1) == 1
    one = next(r for r in everything if r[0] == 1)
    two = next(r for r in everything if r[0] == 2)
    assert (one[1], one[2], one[4]) == ("pass_clean", "h1-new", True)
    assert (two[1], two[4]) == ("pass_clean", False)
    assert [r[3] for r in everything] == sorted((r[3] for r in everything), reverse=True)
