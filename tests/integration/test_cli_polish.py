"""The command line's rough edges of issue 21: the map store, several formats in one run, colour."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.factories import Project
from tests.support.in_process import run_cli as cli
from tests.support.repo import clean_env

MOD = "src/pkg/mod.py"


def test_check_finds_the_parents_map_where_map_wrote_it(project: Project, tmp_path: Path) -> None:
    """Seen on main: ``map`` wrote to the store by default and ``check`` without --coverage did not
    look there (unscored: no coverage map)."""
    env = clean_env(ORACLE_GATE_MAPS=str(tmp_path / "store"))
    mapped = cli("map", "--repo", str(project.root), "--sha", project.parent, env=env)
    assert mapped.returncode == 0, mapped.stderr
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    found = cli("check", "--repo", str(project.root), "--base", project.parent, "--head", head, env=env)
    assert "using the map of" in found.stderr
    assert found.returncode == 0, found.stdout + found.stderr
    empty = clean_env(ORACLE_GATE_MAPS=str(tmp_path / "empty"))
    missing = cli("check", "--repo", str(project.root), "--base", project.parent, "--head", head, env=empty)
    assert missing.returncode == 2  # no map: unscored, as before
    assert "using the map of" not in missing.stderr


def test_check_writes_several_formats_in_one_run(project: Project, tmp_path: Path) -> None:
    head = project.head(project.replace(MOD, "y = x + 1", "y = 1 + x"))
    proc = cli(
        "check", "--repo", str(project.root), "--base", project.parent, "--head", head,
        "--coverage", str(project.coverage), "--coverage-sha", project.parent,
        "--json", str(tmp_path / "v.json"), "--markdown", str(tmp_path / "v.md"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "v.json").read_text())["verdict"] == "pass_clean"
    assert (tmp_path / "v.md").read_text().lstrip().startswith(("#", "<!--", "✅", "**"))
    assert proc.stdout.startswith("oracle-gate: pass_clean")  # the --format (text) still on stdout
    assert "\033[" not in proc.stdout  # captured, not a terminal: no colour
