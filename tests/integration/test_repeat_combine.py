"""``map --shard I/N --repeat 2`` on each shard, then ``map --combine``: the combined map keeps what
differed between runs (contract v3.4), so ``check`` on it judges as on a whole ``--repeat 2`` map.
A shard run once among shards run twice is refused. Real repository, real pytest runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from oracle_gate.maps.inside.shards import shard_of
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

FLIP_FILE, FROZEN_FILE = "tests/test_flip.py", "tests/test_calc.py"
FROZEN = f"{FROZEN_FILE}::test_frozen"
RETURN_ONE = "        return 1"  # calc.py line 3: observed by the flipping live test every other run


def flip_and_frozen_project(repo: Repo) -> str:
    """``test_flip`` (live) takes the other branch on every run; the frozen ``test_frozen`` takes
    both. The two test files fall in different shards of 2."""
    assert shard_of(FLIP_FILE, 2) != shard_of(FROZEN_FILE, 2)
    repo.write("calc.py", "def branch(odd):\n    if odd:\n        return 1\n    return 0\n")
    repo.write(
        FLIP_FILE,
        "import os\n\nfrom calc import branch\n\n\n"
        "def test_flip():\n    path = os.environ['FLIP_FILE']\n"
        "    n = int(open(path).read()) if os.path.exists(path) else 0\n"
        "    open(path, 'w').write(str(n + 1))\n    branch(n % 2)\n",
    )
    repo.write(FROZEN_FILE, "from calc import branch\n\n\ndef test_frozen():\n    branch(1)\n    branch(0)\n")
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    first = repo.commit("a flipping live test and a frozen one")
    entry = {"nodeid": FROZEN, "reason": "flaky on CI", "bound_sha": first}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    return repo.commit("freeze")


def map_shard(repo: Repo, sha: str, out: Path, env: dict[str, str], *extra: str) -> None:
    args = ["map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), *extra]
    proc = run_cli(*args, env=env)
    assert proc.returncode == 0, proc.stderr


def manifest_of(data: Path) -> dict[str, object]:
    doc: dict[str, object] = json.loads(data.with_name(data.name + ".manifest.json").read_text())
    return doc


def check(repo: Repo, base: str, head: str, coverage: Path) -> subprocess.CompletedProcess[str]:
    args = ["--base", base, "--head", head, "--coverage", str(coverage), "--format", "json"]
    return run_cli("check", "--repo", str(repo.root), *args)


def test_combined_repeat_shards_keep_the_unstable_observations(repo: Repo, tmp_path: Path) -> None:
    parent = flip_and_frozen_project(repo)
    env = clean_env(FLIP_FILE=str(tmp_path / "flip"))
    shards = [tmp_path / f"shard-{i}" / "parent.coverage" for i in (1, 2)]
    for index, out in enumerate(shards, 1):
        map_shard(repo, parent, out, env, "--shard", f"{index}/2", "--repeat", "2")
    whole = tmp_path / "whole" / "parent.coverage"
    map_shard(repo, parent, whole, env, "--repeat", "2")
    combined = tmp_path / "combined.coverage"

    proc = run_cli("map", "--combine", str(combined), *map(str, shards))

    assert proc.returncode == 0, proc.stderr
    manifest = manifest_of(combined)
    assert manifest["repeat"] == 2
    assert (
        manifest["unstable"]
        == manifest_of(whole)["unstable"]
        == {f"{FLIP_FILE}::test_flip": {"calc.py": [3, 4]}}
    )
    repo.write("calc.py", repo.read("calc.py").replace(RETURN_ONE, "        return 2"))
    head = repo.commit("the line only a flaky live test and a frozen test observe")
    judged = check(repo, parent, head, combined)
    assert judged.returncode == 2, judged.stderr  # unscored: the live observation was an accident
    result = json.loads(judged.stdout)
    assert result["overlap"] == {"calc.py": [3]}
    assert json.loads(check(repo, parent, head, whole).stdout)["overlap"] == {"calc.py": [3]}


def test_a_shard_run_once_among_shards_run_twice_is_refused(repo: Repo, tmp_path: Path) -> None:
    parent = flip_and_frozen_project(repo)
    env = clean_env(FLIP_FILE=str(tmp_path / "flip"))
    once, twice = tmp_path / "one" / "parent.coverage", tmp_path / "two" / "parent.coverage"
    map_shard(repo, parent, once, env, "--shard", "1/2")
    map_shard(repo, parent, twice, env, "--shard", "2/2", "--repeat", "2")
    combined = tmp_path / "combined.coverage"

    proc = run_cli("map", "--combine", str(combined), str(once), str(twice))

    assert proc.returncode == 3
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"{twice}.manifest.json: measured with --repeat 2, but {once}.manifest.json with --repeat 1" in (
        proc.stderr
    )
    assert not combined.exists()
