"""The ``sys.monitoring`` collector (:mod:`gate.maps.collector`) against coverage.py's ``ctrace``.

The suite runs on 3.11; these tests run their pytest sessions (and ``oracle-gate map``) in a cached
Python 3.12 venv (:mod:`tests.support.py312`). They skip, with one reason line, only where
python3.12 is absent, and never when ``CI=true``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from coverage import CoverageData

from tests.support.py312 import python312, venv312
from tests.support.repo import Repo, clean_env
from tests.support.shaped_suites import SUITES, write_suite

Lines = dict[str, dict[str, set[int]]]  # {context: {repo-relative path: lines}}


@pytest.fixture(scope="module")
def py312() -> Path:
    if python312() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("python3.12 is absent, and CI=true: the collector must be tested in CI")
        pytest.skip("python3.12 is not installed: the sys.monitoring collector (3.12+) cannot be tested here")
    return venv312()


def contexts_of(data_files: list[Path], root: Path) -> Lines:
    """Every non-empty context's lines, files under ``root`` only, paths relative to it."""
    result: Lines = {}
    for path in data_files:
        data = CoverageData(basename=str(path), read_only=True)
        data.read()
        for name in data.measured_files():
            rel = os.path.relpath(name, root) if os.path.isabs(name) else name
            if rel.startswith(".."):
                continue
            for line, contexts in data.contexts_by_lineno(name).items():
                for context in filter(None, contexts):
                    result.setdefault(context, {}).setdefault(rel, set()).add(line)
        data.close()
    return result


def run_pytest(python: Path, root: Path, env: dict[str, str], *args: str) -> None:
    argv = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def by_ctrace(python: Path, root: Path, out: Path) -> Lines:
    env = clean_env(COVERAGE_FILE=str(out), COVERAGE_CORE="ctrace", PYTHONDONTWRITEBYTECODE="1")
    run_pytest(python, root, env, "--cov", "--cov-context=test", "--cov-report=")
    return contexts_of([out], root)


def by_collector(python: Path, root: Path, out: Path) -> Lines:
    env = clean_env(
        COVERAGE_FILE=str(out),
        ORACLE_GATE_MAP="1",
        ORACLE_GATE_COLLECTOR="sysmon",
        PYTHONDONTWRITEBYTECODE="1",
    )
    run_pytest(python, root, env)
    written = sorted(out.parent.glob(f"{out.name}.*"))
    assert written, "the collector wrote no data file"
    return contexts_of(written, root)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_the_collector_records_the_same_lines_as_ctrace_context_by_context(
    py312: Path, tmp_path: Path, suite: str
) -> None:
    root = write_suite(tmp_path / "project", suite)

    expected = by_ctrace(py312, root, tmp_path / "ctrace" / "data")
    got = by_collector(py312, root, tmp_path / "sysmon" / "data")

    assert len(expected) >= 10  # every test's phases: the comparison has something to compare
    assert any("|setup" in c for c in expected)
    assert any("|teardown" in c for c in expected)
    assert any("[" in c for c in expected)  # parametrized
    if suite == "src-doctests":
        assert "src/shapes.py::shapes|run" in expected  # the module's doctest ran, as a test
    assert got == expected


def make_repo(tmp_path: Path, config: str = "") -> Repo:
    repo = Repo(tmp_path / "repo")
    for rel, text in SUITES["flat"].items():
        repo.write(rel, text)
    if config:
        repo.write(".coveragerc", config)
    repo.commit("shapes")
    return repo


def map_with(python: Path, repo: Repo, out: Path, **env: str) -> dict[str, object]:
    argv = [str(python), "-m", "gate", "map", "--repo", str(repo.root), "--sha", "HEAD", "--out", str(out)]
    proc = subprocess.run(argv, env=clean_env(**env), capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    manifest: dict[str, object] = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    return manifest


def test_map_uses_the_collector_on_312_and_records_it_and_combine_refuses_mixing(
    py312: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    sysmon, ctrace = tmp_path / "sysmon.coverage", tmp_path / "ctrace.coverage"

    by_sysmon = map_with(py312, repo, sysmon)
    by_coverage = map_with(py312, repo, ctrace, ORACLE_GATE_COLLECTOR="coverage.py")

    assert by_sysmon["collector"] == "sysmon"
    assert str(by_sysmon["python"]).startswith("3.12.")
    assert by_sysmon["command"] == [str(py312), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    assert by_coverage["collector"] == "coverage.py"
    assert contexts_of([sysmon], repo.root) == contexts_of([ctrace], repo.root)
    proc = subprocess.run(
        [
            str(py312),
            "-m",
            "gate",
            "map",
            "--combine",
            str(tmp_path / "mixed.coverage"),
            str(sysmon),
            str(ctrace),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 3
    assert "measured with the coverage.py collector, but" in proc.stderr


def test_a_configuration_that_needs_coverage_py_falls_back_to_it(py312: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "[run]\nconcurrency = multiprocessing,thread\n")

    manifest = map_with(py312, repo, tmp_path / "map.coverage")

    assert manifest["collector"] == "coverage.py"
    assert "--cov-context=test" in list(manifest["command"])  # type: ignore[call-overload]
