"""What the state directory keeps is bounded: verified maps and stored explanations are pruned by
age and count (configurable, documented defaults), and a map a job just used is never pruned."""

from __future__ import annotations

import os
from pathlib import Path

from oracle_gate.bot.app.config import from_environment
from oracle_gate.bot.queue.housekeeping import DAY, Limits, map_dirs, prune_maps, prune_state
from oracle_gate.bot.queue.store import Store
from tests.bot.harness import minimal_environment
from tests.support.clock import FakeClock

NOW = 2_000_000_000.0


def kept_map(root: Path, repo: str, parent: str, used: float) -> Path:
    where = root.joinpath(*repo.split("/"), parent)
    where.mkdir(parents=True)
    (where / "parent.coverage.manifest.json").write_text("{}")
    os.utime(where, (used, used))
    return where


def test_maps_older_than_the_age_bound_are_removed(tmp_path: Path) -> None:
    old = kept_map(tmp_path, "octo/repo", "a" * 40, NOW - 31 * DAY)
    fresh = kept_map(tmp_path, "octo/repo", "b" * 40, NOW - 29 * DAY)
    assert prune_maps(tmp_path, Limits(max_age=30 * DAY), NOW) == [old]
    assert map_dirs(tmp_path) == [fresh]


def test_beyond_the_count_bound_the_least_recently_used_maps_go(tmp_path: Path) -> None:
    maps = [kept_map(tmp_path, "octo/repo", c * 40, NOW - (i + 2) * 3600) for i, c in enumerate("abcd")]
    assert sorted(prune_maps(tmp_path, Limits(max_maps=2), NOW)) == sorted(maps[2:])
    assert sorted(map_dirs(tmp_path)) == sorted(maps[:2])


def test_a_map_used_within_the_hour_is_kept_whatever_the_bounds(tmp_path: Path) -> None:
    in_use = kept_map(tmp_path, "octo/repo", "a" * 40, NOW - 60)
    assert prune_maps(tmp_path, Limits(max_age=1, max_maps=1), NOW + 1) == []
    assert map_dirs(tmp_path) == [in_use]


def test_nothing_but_a_maps_directory_is_touched(tmp_path: Path) -> None:
    """Staging and download directories, and anything not named by a SHA, are not the pruner's."""
    staged = tmp_path / "octo" / "repo" / ".staged-x"
    staged.mkdir(parents=True)
    (tmp_path / "map-tmp").mkdir()
    os.utime(staged, (0, 0))
    assert prune_maps(tmp_path, Limits(max_age=1, max_maps=1), NOW) == []
    assert staged.is_dir()
    assert (tmp_path / "map-tmp").is_dir()
    assert prune_maps(tmp_path / "absent", Limits(), NOW) == []


def test_explanations_are_pruned_by_age_and_count(tmp_path: Path) -> None:
    clock = FakeClock(NOW - 40 * DAY)
    store = Store(tmp_path / "db.sqlite3", clock=clock)
    ancient = store.save_explanation("octo/repo", 1, "a" * 40, "old")
    tokens = []
    for i in range(4):
        clock.set(NOW - (4 - i) * 60)
        tokens.append(store.save_explanation("octo/repo", 1, "b" * 40, f"body {i}"))
    limits = Limits(max_age=30 * DAY, max_explanations=3)
    assert prune_state(store, tmp_path / "maps", limits, NOW) == (0, 2, 0, 0)
    assert store.explanation(ancient) is None
    assert store.explanation(tokens[0]) is None
    assert [store.explanation(t) is not None for t in tokens[1:]] == [True, True, True]


def test_the_bounds_come_from_the_environment_with_documented_defaults(tmp_path: Path) -> None:
    env = minimal_environment(tmp_path)
    default = from_environment(env)
    assert default.keep == Limits(max_age=30 * DAY, max_maps=500, max_explanations=20_000)
    assert default.prune_minutes == 60
    tuned = from_environment(
        {
            **env,
            "ORACLE_GATE_KEEP_DAYS": "7",
            "ORACLE_GATE_KEEP_MAPS": "10",
            "ORACLE_GATE_KEEP_EXPLANATIONS": "100",
            "ORACLE_GATE_PRUNE_MINUTES": "5",
        }
    )
    assert tuned.keep == Limits(max_age=7 * DAY, max_maps=10, max_explanations=100)
    assert tuned.prune_minutes == 5
    page = (Path(__file__).resolve().parents[2] / "docs" / "bot-operations.md").read_text()
    for name in ("KEEP_DAYS", "KEEP_MAPS", "KEEP_EXPLANATIONS", "PRUNE_MINUTES"):
        assert f"ORACLE_GATE_{name}" in page


def test_a_map_the_store_hands_out_is_marked_used_and_so_not_pruned(tmp_path: Path) -> None:
    import time

    from oracle_gate.bot.jobs.mapstore import ArtifactMapStore, StoreSettings

    where = kept_map(tmp_path, "octo/repo", "a" * 40, time.time() - 40 * DAY)
    store = ArtifactMapStore(StoreSettings("x.yml", "oracle-gate-map", tmp_path), "", pacing=None)
    found = store.find("octo/repo", "a" * 40, "no-token-needed-for-a-kept-map")
    assert found.manifest == where / "parent.coverage.manifest.json"
    assert prune_maps(tmp_path, Limits(max_age=30 * DAY), time.time()) == []
    assert where.is_dir()
