"""``oracle-gate map`` on the project layouts real users have: branch coverage configured three ways,
a src layout with no pytest configuration, a custom command outside an activated venv, and the runs
that make no map, each named by its actual cause. Real temporary repositories and real pytest runs."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from coverage import CoverageData

from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

MODULE = "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n"
TESTS = (
    "from calc import sign\n\n\n"
    "def test_neg():\n    assert sign(-2) == -1\n\n\n"
    "def test_pos():\n    assert sign(3) == 1\n"
)
BRANCH_CONFIGS = {
    ".coveragerc": "[run]\nbranch = True\n",
    "pyproject.toml": '[tool.coverage.run]\nbranch = true\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
    "setup.cfg": "[coverage:run]\nbranch = True\n",
}
# PATH without the interpreter running these tests: as on a runner outside an activated venv.
BARE_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir())


COVERAGE_PY = clean_env(ORACLE_GATE_COLLECTOR="coverage.py")  # a command that does not measure: unmeasured


def make_map(repo: Repo, out: Path, *command: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    args = ["map", "--repo", str(repo.root), "--sha", "HEAD", "--out", str(out)]
    proc = run_cli(*args, *(["--", *command] if command else []), env=env)
    return proc.returncode, proc.stderr


def lines_by_test(path: Path) -> dict[str, dict[str, set[int]]]:
    """{test id: {measured path: lines}} with the phase dropped."""
    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    result: dict[str, dict[str, set[int]]] = {}
    for name in data.measured_files():
        for line, contexts in data.contexts_by_lineno(name).items():
            for context in filter(None, contexts):
                result.setdefault(context.rpartition("|")[0], {}).setdefault(name, set()).add(line)
    data.close()
    return result


def has_arcs(path: Path) -> bool:
    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    try:
        return data.has_arcs()
    finally:
        data.close()


def flat_project(repo: Repo, config: str = "", content: str = "") -> None:
    repo.write("calc.py", MODULE)
    repo.write("tests/test_calc.py", TESTS)
    if config:
        repo.write(config, content)
    repo.commit("calc")


@pytest.mark.parametrize("config", sorted(BRANCH_CONFIGS))
def test_a_branch_coverage_project_maps_and_its_shards_combine(
    repo: Repo, tmp_path: Path, config: str
) -> None:
    flat_project(repo, config, BRANCH_CONFIGS[config])
    whole, by_collector = tmp_path / "whole.coverage", tmp_path / "collector.coverage"

    status, err = make_map(repo, whole, env=COVERAGE_PY)

    assert status == 0, err
    assert has_arcs(whole)  # the arcs are kept; the gate reads lines from them
    assert lines_by_test(whole)["tests/test_calc.py::test_neg"]["calc.py"] == {
        2,
        3,
    }  # the def line runs at import, in no test
    status, err = make_map(repo, by_collector)  # the gate's own collector: lines, the same ones
    assert status == 0, err
    assert not has_arcs(by_collector)
    assert lines_by_test(by_collector) == lines_by_test(whole)
    shards = [tmp_path / f"shard{i}.coverage" for i in (1, 2)]
    for i, shard in enumerate(shards, 1):
        args = ["map", "--repo", str(repo.root), "--sha", "HEAD", "--out", str(shard), "--shard", f"{i}/2"]
        proc = run_cli(*args, env=COVERAGE_PY)
        assert proc.returncode == 0, proc.stderr
    combined = tmp_path / "combined.coverage"
    proc = run_cli("map", "--combine", str(combined), *map(str, shards))
    assert proc.returncode == 0, proc.stderr
    assert lines_by_test(combined) == lines_by_test(whole)


def test_combine_refuses_to_mix_branch_and_line_maps(tmp_path: Path) -> None:
    kinds = {}
    for name, config in (("arcs", ".coveragerc"), ("lines", "")):
        repo = Repo(tmp_path / name)
        flat_project(repo, config, BRANCH_CONFIGS[".coveragerc"] if config else "")
        kinds[name] = tmp_path / f"{name}.coverage"
        status, err = make_map(repo, kinds[name], env=COVERAGE_PY)  # coverage.py keeps the arcs
        assert status == 0, err
    # the same commit is needed to get past the SHA check: copy the line map's manifest SHA over
    arcs_manifest = kinds["arcs"].with_name("arcs.coverage.manifest.json")
    lines_manifest = json.loads(kinds["lines"].with_name("lines.coverage.manifest.json").read_text())
    doc = json.loads(arcs_manifest.read_text())
    doc["sha"] = lines_manifest["sha"]
    arcs_manifest.write_text(json.dumps(doc))

    proc = run_cli(
        "map", "--combine", str(tmp_path / "mixed.coverage"), str(kinds["lines"]), str(kinds["arcs"])
    )

    assert proc.returncode == 3
    assert "holds arcs data but" in proc.stderr
    assert "holds lines data" in proc.stderr
    assert not (tmp_path / "mixed.coverage").exists()


def test_a_src_layout_without_pytest_configuration_maps_out_of_the_box(repo: Repo, tmp_path: Path) -> None:
    repo.write("src/calc/__init__.py", MODULE)
    repo.write("tests/test_calc.py", TESTS)
    repo.commit("src layout, no pytest configuration")
    out = tmp_path / "map.coverage"

    status, err = make_map(repo, out)

    assert status == 0, err
    assert lines_by_test(out)["tests/test_calc.py::test_pos"]["src/calc/__init__.py"] == {2, 4}


def test_a_custom_command_runs_the_gates_interpreter_outside_an_activated_venv(
    repo: Repo, tmp_path: Path
) -> None:
    flat_project(repo, "pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    env = clean_env(PATH=BARE_PATH)
    flags = ("-q", "--cov", "--cov-context=test", "--cov-report=")
    for name, program in (("python", ("python", "-m", "pytest")), ("pytest", ("pytest",))):
        out = tmp_path / f"{name}.coverage"

        status, err = make_map(repo, out, *program, *flags, env=env)

        assert status == 0, err
        assert "tests/test_calc.py::test_neg" in lines_by_test(out)


def test_maps_go_outside_the_checkout_by_default_readable_by_all(repo: Repo, tmp_path: Path) -> None:
    flat_project(repo)
    cache = tmp_path / "cache"

    proc = run_cli("map", "--repo", str(repo.root), "--sha", "HEAD", env=clean_env(XDG_CACHE_HOME=str(cache)))

    assert proc.returncode == 0, proc.stderr
    written = sorted(p.name for p in (cache / "oracle-gate" / "maps").iterdir())
    sha = repo.head()
    assert written == [f"{sha}.coverage", f"{sha}.coverage.manifest.json"]
    for name in written:
        assert stat.S_IMODE((cache / "oracle-gate" / "maps" / name).stat().st_mode) == 0o644
    assert repo.git("status", "--porcelain", "--ignored") == ""


WRONG_BLAME = "--cov --cov-context=test"


def test_a_collection_error_is_named_not_the_coverage_flags(repo: Repo, tmp_path: Path) -> None:
    repo.write("tests/test_x.py", "import not_installed_anywhere\n\n\ndef test_x():\n    pass\n")
    repo.commit("a test importing a missing module")

    status, err = make_map(repo, tmp_path / "map.coverage")

    assert status == 3
    assert "the tests could not be collected (exit status 2)" in err
    assert "No module named 'not_installed_anywhere'" in err
    assert WRONG_BLAME not in err.splitlines()[-1]


def test_missing_pytest_is_named(repo: Repo, tmp_path: Path) -> None:
    flat_project(repo)
    # -S: no site-packages, so this interpreter really has no pytest
    status, err = make_map(repo, tmp_path / "map.coverage", sys.executable, "-S", "-m", "pytest", "--cov")

    assert status == 3
    assert "no map: pytest is not installed for" in err
    assert WRONG_BLAME not in err.splitlines()[-1]


def test_failing_tests_without_coverage_are_named(repo: Repo, tmp_path: Path) -> None:
    repo.write("tests/test_x.py", "def test_x():\n    assert False\n")
    repo.commit("a failing test")

    status, err = make_map(repo, tmp_path / "map.coverage", "python", "-m", "pytest", "-q", env=COVERAGE_PY)

    assert status == 3
    assert "the tests ran (1 failed) but the command measured no per-test coverage" in err.splitlines()[-1]


def test_no_tests_collected_is_named(repo: Repo, tmp_path: Path) -> None:
    repo.write("README", "no tests here\n")
    repo.commit("no tests")

    status, err = make_map(repo, tmp_path / "map.coverage")

    assert status == 3
    assert "pytest collected no tests (exit status 5)" in err.splitlines()[-1]
