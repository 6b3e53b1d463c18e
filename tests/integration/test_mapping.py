"""``oracle-gate map`` end to end: real repositories, real pytest suites, real worktrees, then ``check``.

``oracle-gate`` runs in this process (:func:`tests.support.in_process.run_cli`, with a subprocess's
environment and working directory); the tests it starts, and git, are real subprocesses. The map of
the usual parent is built once per session (``mapped``); tests that only use it clone the repository
and copy the map."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from coverage import CoverageData

from oracle_gate.maps.inside.shards import shard_of
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

CALC_PY = """\
def add(a, b):
    return a + b


def jitter(x):
    y = x * 2
    return y + 1


def scale(x):
    return x * 10
"""

PYPROJECT = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'
FROZEN = "tests/test_calc.py::test_jitter"


def freeze_json(bound_sha: str, nodeid: str = FROZEN) -> str:
    entry = {"nodeid": nodeid, "reason": "clock-jitter race", "bound_sha": bound_sha}
    return json.dumps({"schema": 1, "frozen": [entry]}) + "\n"


def make_parent(repo: Repo, *, jitter_test: str = "", extra_tests: int = 0) -> str:
    """src/calc.py, live tests of add and scale, and test_jitter frozen; returns the parent SHA."""
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("src/calc.py", CALC_PY)
    repo.write(
        "tests/test_calc.py",
        "import pytest\n\nfrom calc import add, jitter, scale\n\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_scale():\n    assert scale(2) == 20\n\n\n"
        f"{jitter_test}def test_jitter():\n    assert jitter(1) == 3\n",
    )
    for i in range(extra_tests):
        repo.write(
            f"tests/test_more_{i}.py",
            f"from calc import scale\n\n\ndef test_{i}():\n    assert scale({i}) == {i * 10}\n",
        )
    first = repo.commit("calc and tests")
    repo.write("freeze.json", freeze_json(first[:10]))
    return repo.commit("freeze the jitter test")


def change(repo: Repo, parent: str, branch: str, old: str, new: str) -> str:
    repo.checkout(parent, new_branch=branch)
    repo.write("src/calc.py", repo.read("src/calc.py").replace(old, new, 1))
    return repo.commit(branch)


def verdict(repo_root: Path, base: str, head: str, coverage: Path, *extra: str) -> dict[str, object]:
    proc = run_cli(
        "check",
        "--repo",
        str(repo_root),
        "--base",
        base,
        "--head",
        head,
        "--coverage",
        str(coverage),
        "--format",
        "json",
        *extra,
    )
    assert proc.returncode in (0, 1, 2), proc.stderr
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def codes(result: dict[str, object]) -> set[str]:
    reasons = result["reasons"]
    assert isinstance(reasons, list)
    return {r["code"] for r in reasons}


def make_map(repo: Repo, sha: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("map", "--repo", str(repo.root), "--sha", sha, "--out", str(out), *args)


def per_line(path: Path) -> dict[str, dict[int, set[str]]]:
    """{measured path: {line: test ids}} with phases dropped and the empty context left out."""
    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    result: dict[str, dict[int, set[str]]] = {}
    for name in data.measured_files():
        for line, contexts in data.contexts_by_lineno(name).items():
            tests = {c.rpartition("|")[0] for c in contexts if c}
            if tests:
                result.setdefault(name, {})[line] = tests
    data.close()
    return result


@dataclass(frozen=True)
class Mapped:
    root: Path  # a repository made by make_parent(); shared by the session: clone it, never change it
    parent: str
    map: Path  # the parent's map, its manifest beside it: copy it before changing anything


@pytest.fixture(scope="session")
def mapped(tmp_path_factory: pytest.TempPathFactory) -> Mapped:
    """make_parent()'s repository and the map of its parent, built once for the session."""
    repo = Repo(tmp_path_factory.mktemp("mapped") / "repo")
    parent = make_parent(repo)
    out = repo.root.parent / "maps" / "parent.coverage"
    proc = make_map(repo, parent, out)
    assert proc.returncode == 0, proc.stderr
    return Mapped(repo.root, parent, out)


def clone_of(mapped: Mapped, root: Path) -> Repo:
    """A clone of the mapped repository at ``root`` (same SHAs), on ``main`` like the original."""
    subprocess.run(["git", "clone", "-q", str(mapped.root), str(root)], check=True, env=clean_env())
    return Repo(root)


def copy_of_map(mapped: Mapped, directory: Path) -> Path:
    """The shared map and its manifest copied into ``directory``; returns the copy of the map."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in (mapped.map.name, f"{mapped.map.name}.manifest.json"):
        shutil.copyfile(mapped.map.with_name(name), directory / name)
    return directory / mapped.map.name


def test_map_at_a_sha_then_check_changes_against_it(repo: Repo, tmp_path: Path) -> None:
    parent = make_parent(repo)
    frozen_only = change(repo, parent, "jitter", "y = x * 2", "y = x * 3")
    live = change(repo, parent, "add", "return a + b", "return b + a")
    repo.write("src/calc.py", "# uncommitted work in progress\n")  # the user's working tree, dirty, elsewhere
    out = tmp_path / "maps" / "parent.coverage"

    proc = make_map(repo, "main", out)

    assert proc.returncode == 0, proc.stderr
    assert f"mapping {parent} (main)" in proc.stderr
    assert "mapped 3 tests, 1 frozen run for the map" in proc.stderr
    manifest = json.loads(out.with_name("parent.coverage.manifest.json").read_text())
    assert manifest["kind"] == "oracle-gate-map"
    assert manifest["sha"] == parent
    assert manifest["tests_passed"] is True
    assert manifest["tests"] == 3
    assert manifest["collector"] == ("sysmon" if sys.version_info >= (3, 12) else "settrace")
    data = per_line(out)
    assert set(data) == {"src/calc.py", "tests/test_calc.py"}  # repo-relative, measured in the worktree
    assert data["src/calc.py"][6] == {FROZEN}
    # the user's checkout was not touched: same branch tip, same dirty file, no worktree left behind
    assert repo.head() == live
    assert repo.read("src/calc.py") == "# uncommitted work in progress\n"
    assert len(repo.git("worktree", "list").splitlines()) == 1

    unscored = verdict(repo.root, parent, frozen_only, out)
    assert unscored["verdict"] == "unscored"
    assert codes(unscored) == {"freeze_overlap"}
    assert unscored["overlap"] == {"src/calc.py": [6]}
    clean = verdict(repo.root, parent, live, out)
    assert clean["verdict"] == "pass_clean"


def test_the_same_map_moved_to_another_directory_and_clone_still_works(
    mapped: Mapped, tmp_path: Path
) -> None:
    repo = clone_of(mapped, tmp_path / "repo")
    parent = mapped.parent
    head = change(repo, parent, "jitter", "y = x * 2", "y = x * 3")
    out = copy_of_map(mapped, tmp_path / "runner-a")  # built in yet another directory, by the fixture
    moved = tmp_path / "runner-b" / "cache"
    moved.mkdir(parents=True)
    for name in ("parent.coverage", "parent.coverage.manifest.json"):
        shutil.move(out.parent / name, moved / name)
    clone = tmp_path / "elsewhere" / "checkout"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(clone)], check=True, env=clean_env())
    subprocess.run(["git", "fetch", "-q", "origin", "jitter"], cwd=clone, check=True, env=clean_env())

    for coverage in (moved / "parent.coverage", moved / "parent.coverage.manifest.json"):
        result = verdict(clone, parent, head, coverage)
        assert result["verdict"] == "unscored"
        assert codes(result) == {"freeze_overlap"}


def test_two_shards_combined_equal_one_whole_run(repo: Repo, tmp_path: Path) -> None:
    parent = make_parent(repo, extra_tests=8)
    files = ["tests/test_calc.py", *[f"tests/test_more_{i}.py" for i in range(8)]]
    assert {shard_of(f, 2) for f in files} == {1, 2}  # both shards have work: the split is real
    whole = tmp_path / "whole.coverage"
    assert make_map(repo, parent, whole).returncode == 0
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"shard-{index}" / "parent.coverage"
        proc = make_map(repo, parent, shard, "--shard", f"{index}/2")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(shard.with_name("parent.coverage.manifest.json").read_text())["shard"] == {
            "index": index,
            "total": 2,
        }
        shards.append(shard)
    parts = [per_line(s) for s in shards]
    assert parts[0]
    assert parts[1]
    assert parts[0] != parts[1]

    combined = tmp_path / "combined.coverage"
    proc = run_cli("map", "--combine", str(combined), *map(str, shards))

    assert proc.returncode == 0, proc.stderr
    assert per_line(combined) == per_line(whole)
    manifest = json.loads(combined.with_name("combined.coverage.manifest.json").read_text())
    assert (manifest["sha"], manifest["tests"], manifest["shard"]) == (parent, 11, None)
    head = change(repo, parent, "jitter", "y = x * 2", "y = x * 3")
    assert codes(verdict(repo.root, parent, head, combined)) == {"freeze_overlap"}
    shard_alone = verdict(repo.root, parent, head, shards[0])
    assert "oracle_incomplete" in codes(shard_alone)


def test_combine_refuses_shards_of_different_shas(repo: Repo, tmp_path: Path) -> None:
    first = make_parent(repo, extra_tests=8)
    repo.write("README", "a later commit\n")
    second = repo.commit("later")
    one, two = tmp_path / "one.coverage", tmp_path / "two.coverage"
    assert make_map(repo, first, one, "--shard", "1/2").returncode == 0
    assert make_map(repo, second, two, "--shard", "2/2").returncode == 0
    out = tmp_path / "combined.coverage"

    proc = run_cli("map", "--combine", str(out), str(one), str(two))

    assert proc.returncode == 3
    assert proc.stderr.count("\n") == 1
    assert f"measured at {second[:12]}, but" in proc.stderr
    assert not out.exists()


def test_unknown_revision_is_one_line_and_leaves_a_good_map_alone(mapped: Mapped, tmp_path: Path) -> None:
    repo = clone_of(mapped, tmp_path / "repo")
    out = copy_of_map(mapped, tmp_path)
    before = out.read_bytes(), out.with_name("parent.coverage.manifest.json").read_bytes()

    proc = make_map(repo, "no-such-branch", out)

    assert proc.returncode == 3
    assert proc.stderr.strip().splitlines() == [
        f"oracle-gate: error: {repo.root.resolve()}: unknown revision 'no-such-branch' (not a commit here)"
    ]
    assert (out.read_bytes(), out.with_name("parent.coverage.manifest.json").read_bytes()) == before


def test_a_failing_parent_writes_a_flagged_map_that_check_refuses_unless_allowed(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write("tests/test_broken.py", "def test_broken():\n    assert False, 'broken on the parent'\n")
    parent = make_parent(repo)
    head = change(repo, parent, "jitter", "y = x * 2", "y = x * 3")
    out = tmp_path / "parent.coverage"

    proc = make_map(repo, parent, out)

    assert proc.returncode == 1
    assert (
        "the parent's test run failed (exit status 1) (first: tests/test_broken.py::test_broken)"
        in proc.stderr
    )
    assert "broken on the parent" in proc.stderr  # the tail of the test output is shown
    manifest = json.loads(out.with_name("parent.coverage.manifest.json").read_text())
    assert manifest["tests_passed"] is False
    assert manifest["failed"] == ["tests/test_broken.py::test_broken"]
    refused = verdict(repo.root, parent, head, out)
    assert codes(refused) == {"oracle_incomplete"}
    allowed = verdict(repo.root, parent, head, out, "--allow-failing-parent")
    assert codes(allowed) == {"freeze_overlap"}


def test_a_failing_frozen_test_does_not_flag_the_map(repo: Repo, tmp_path: Path) -> None:
    parent = make_parent(repo, jitter_test="")
    repo.write(
        "tests/test_calc.py",
        repo.read("tests/test_calc.py").replace("assert jitter(1) == 3", "assert jitter(1) == 4"),
    )
    repo.write("freeze.json", freeze_json(parent[:10]))
    parent = repo.commit("the frozen test is flaky and failing today")
    out = tmp_path / "parent.coverage"

    proc = make_map(repo, parent, out)

    assert proc.returncode == 0, proc.stderr
    assert f"1 frozen test(s) failed (flaky, expected): {FROZEN}" in proc.stderr
    manifest = json.loads(out.with_name("parent.coverage.manifest.json").read_text())
    assert (manifest["tests_passed"], manifest["exit_status"], manifest["frozen_failed"]) == (
        True,
        1,
        [FROZEN],
    )


def test_a_command_without_test_contexts_is_refused_and_overwrites_nothing(
    repo: Repo, tmp_path: Path
) -> None:
    parent = make_parent(repo)
    out = tmp_path / "parent.coverage"
    out.write_bytes(b"a good map from before")

    proc = make_map(repo, parent, out, "--", sys.executable, "-m", "pytest", "-q", "--cov", "--cov-report=")

    assert proc.returncode == 3
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith(
            f"oracle-gate: error: {parent[:12]}: the coverage data has no test contexts (exit status 0)"
        )
    )
    assert out.read_bytes() == b"a good map from before"
    assert not out.with_name("parent.coverage.manifest.json").exists()


def test_coverage_run_with_the_plugin_contexts_makes_a_map(repo: Repo, tmp_path: Path) -> None:
    parent = make_parent(repo)
    out = tmp_path / "parent.coverage"
    command = [sys.executable, "-m", "coverage", "run", "-m", "pytest", "-q", "-p", "no:cacheprovider"]

    proc = make_map(repo, parent, out, "--", *command, "--oracle-contexts")

    assert proc.returncode == 0, proc.stderr
    assert per_line(out)["src/calc.py"][6] == {FROZEN}


def test_a_tampered_map_is_not_used(mapped: Mapped, tmp_path: Path) -> None:
    repo = clone_of(mapped, tmp_path / "repo")
    parent = mapped.parent
    head = change(repo, parent, "jitter", "y = x * 2", "y = x * 3")
    out = copy_of_map(mapped, tmp_path)
    with out.open("ab") as handle:
        handle.write(b"\0")

    result = verdict(repo.root, parent, head, out)

    assert codes(result) == {"oracle_incomplete"}
    assert "does not match" in json.dumps(result["reasons"])


def test_a_frozen_test_with_a_skip_marker_stops_the_map(repo: Repo, tmp_path: Path) -> None:
    parent = make_parent(repo, jitter_test="@pytest.mark.skip(reason='flaky')\n")
    out = tmp_path / "parent.coverage"

    proc = make_map(repo, parent, out)

    assert proc.returncode == 3
    assert (
        f"{parent[:12]}: freeze policy error: {FROZEN} is frozen and also carries a pytest.mark.skip"
        in proc.stderr
    )
    assert not out.exists()


def test_a_shard_the_hash_leaves_empty_is_an_empty_part_not_an_error(repo: Repo, tmp_path: Path) -> None:
    parent = make_parent(repo)  # one test file: one shard of two gets every test, the other none
    full = shard_of("tests/test_calc.py", 2)
    maps = {}
    for index in (1, 2):
        maps[index] = tmp_path / f"shard-{index}.coverage"
        proc = make_map(repo, parent, maps[index], "--shard", f"{index}/2")
        assert proc.returncode == 0, proc.stderr
    empty = json.loads(maps[3 - full].with_name(f"shard-{3 - full}.coverage.manifest.json").read_text())
    assert (empty["tests"], empty["exit_status"], empty["tests_passed"]) == (0, 5, True)

    combined = tmp_path / "combined.coverage"
    assert run_cli("map", "--combine", str(combined), str(maps[1]), str(maps[2])).returncode == 0
    assert per_line(combined) == per_line(maps[full])


def actions_env(run_id: str, event: str = "push") -> dict[str, str]:
    """The variables GitHub Actions gives a step of run ``run_id`` on the default branch."""
    return clean_env(
        GITHUB_ACTIONS="true",
        GITHUB_REPOSITORY="octo-org/agent-repo",
        GITHUB_WORKFLOW_REF="octo-org/agent-repo/.github/workflows/map.yml@refs/heads/main",
        GITHUB_RUN_ID=run_id,
        GITHUB_EVENT_NAME=event,
        GITHUB_JOB="map",
        GITHUB_REF="refs/heads/main",
        GITHUB_SHA="f" * 40,
    )


def test_map_records_its_producer_and_combine_keeps_every_parts(repo: Repo, tmp_path: Path) -> None:
    """The producer is what a reader trusts a map by: a shard's run, and the combining run."""
    parent = make_parent(repo, extra_tests=8)
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"shard-{index}" / "parent.coverage"
        proc = run_cli(
            "map", "--repo", str(repo.root), "--sha", parent, "--out", str(shard), "--shard", f"{index}/2",
            env=actions_env(f"10{index}"),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        shards.append(shard)
    first = json.loads(shards[0].with_name("parent.coverage.manifest.json").read_text())
    assert first["producer"]["run_id"] == "101"
    assert first["producer"]["event"] == "push"
    combined = tmp_path / "combined.coverage"
    proc = run_cli("map", "--combine", str(combined), *map(str, shards), env=actions_env("200"))
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(combined.with_name("combined.coverage.manifest.json").read_text())
    assert manifest["producer"]["run_id"] == "200"
    assert [part["producer"]["run_id"] for part in manifest["combined"]] == ["101", "102"]
    outside = tmp_path / "local.coverage"
    local = {k: v for k, v in clean_env().items() if k != "GITHUB_ACTIONS"}  # not in GitHub Actions
    assert (
        run_cli("map", "--repo", str(repo.root), "--sha", parent, "--out", str(outside), env=local).returncode
        == 0
    )
    assert "producer" not in json.loads(outside.with_name("local.coverage.manifest.json").read_text())
