"""The ``sys.monitoring`` collector (:mod:`oracle_gate.maps.inside.collector`) against coverage.py's
``ctrace``.

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

from tests.support.py312 import require_venv312
from tests.support.repo import Repo, clean_env
from tests.support.shaped_suites import SUITES, write_suite

Lines = dict[str, dict[str, set[int]]]  # {context: {repo-relative path: lines}}


@pytest.fixture(scope="module")
def py312() -> Path:
    return require_venv312()


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


def by_collector(python: Path, root: Path, out: Path, collector: str = "sysmon") -> Lines:
    env = clean_env(
        COVERAGE_FILE=str(out),
        ORACLE_GATE_MAP="1",
        ORACLE_GATE_COLLECTOR=collector,
        PYTHONDONTWRITEBYTECODE="1",
    )
    run_pytest(python, root, env)
    written = sorted(out.parent.glob(f"{out.name}.*"))
    assert written, "the collector wrote no data file"
    return contexts_of(written, root)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_the_collector_records_the_same_lines_as_ctrace_context_by_context(
    measurer: tuple[Path, str], tmp_path: Path, suite: str
) -> None:
    python, collector = measurer
    root = write_suite(tmp_path / "project", suite)

    expected = by_ctrace(python, root, tmp_path / "ctrace" / "data")
    got = by_collector(python, root, tmp_path / collector / "data", collector)

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


def map_with(python: Path, repo: Repo, out: Path, *command: str, **env: str) -> dict[str, object]:
    argv = [
        str(python),
        "-m",
        "oracle_gate",
        "map",
        "--repo",
        str(repo.root),
        "--sha",
        "HEAD",
        "--out",
        str(out),
    ]
    argv += ["--", *command] if command else []
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
    # no testpaths, a tests/ directory: the default runs it (oracle_gate.maps.testpaths)
    assert by_sysmon["command"] == [
        str(py312),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "tests",
    ]
    assert by_coverage["collector"] == "coverage.py"
    assert contexts_of([sysmon], repo.root) == contexts_of([ctrace], repo.root)
    proc = subprocess.run(
        [
            str(py312),
            "-m",
            "oracle_gate",
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


# -- pytest-xdist ---------------------------------------------------------------------------------------
# Under ``-n 2`` the controller and both workers load the plugin; each worker measures what it runs and
# writes its own data file. Which worker runs which test (and so which test's teardown finalizes a
# module-scoped fixture) depends on timing under ``--dist load``: runs are compared context by context
# where the schedule is the same (one run measured by both, or ``--dist loadfile``, one file a worker).


def test_under_xdist_the_collector_records_the_same_lines_as_ctrace_in_the_same_run(
    py312: Path, tmp_path: Path
) -> None:
    for suite in sorted(SUITES):
        root = write_suite(tmp_path / suite, suite)
        ctrace = tmp_path / f"{suite}-ctrace" / "data"
        ctrace.parent.mkdir()
        config = ctrace.with_name("coveragerc")
        config.write_text(f"[run]\ndata_file = {ctrace}\n")
        # Both measure one run (ctrace by sys.settrace, the collector by sys.monitoring), so one schedule.
        # Apart: pytest-cov combines every ``<data file>.*`` beside its own, the workers' files too.
        env = clean_env(
            COVERAGE_CORE="ctrace",
            ORACLE_GATE_MAP="1",
            ORACLE_GATE_COLLECTOR="sysmon",
            PYTHONDONTWRITEBYTECODE="1",
        )
        run_pytest(
            py312,
            root,
            env,
            "-n",
            "2",
            "--cov",
            "--cov-context=test",
            "--cov-report=",
            f"--cov-config={config}",
        )
        by_workers = sorted(root.glob(".coverage.*"))

        expected, got = contexts_of([ctrace], root), contexts_of(by_workers, root)

        assert len(by_workers) == 2, "one data file per worker, none from the controller"
        assert len(expected) >= 10, suite
        assert got == expected, suite


def test_oracle_gate_map_under_xdist_matches_ctrace_and_the_plain_map(
    measurer: tuple[Path, str], tmp_path: Path
) -> None:
    python, collector = measurer
    repo = Repo(tmp_path / "repo")
    for rel, text in SUITES["src-doctests"].items():
        repo.write(rel, text)
    repo.commit("shapes")
    pytest_n2 = ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile")
    maps = {name: tmp_path / f"{name}.coverage" for name in ("plain", "xdist", "ctrace")}

    plain = map_with(python, repo, maps["plain"], ORACLE_GATE_COLLECTOR=collector)
    xdist = map_with(python, repo, maps["xdist"], *pytest_n2, ORACLE_GATE_COLLECTOR=collector)
    ctrace = map_with(
        python, repo, maps["ctrace"], *pytest_n2, "--cov", "--cov-context=test", "--cov-report="
    )

    tests = plain["tests_ran"]
    assert isinstance(tests, list)
    assert len(tests) == 9
    assert "src/shapes.py::shapes" in tests  # the doctest, run by the other worker
    assert (xdist["collector"], ctrace["collector"], plain["collector"]) == (
        collector,
        "coverage.py",
        collector,
    )
    assert xdist["tests_ran"] == ctrace["tests_ran"] == tests
    assert xdist["tests"] == ctrace["tests"] == 9
    assert xdist["tests_passed"] is True
    lines = {name: contexts_of([path], repo.root) for name, path in maps.items()}
    assert len(lines["xdist"]) >= 10
    assert lines["xdist"] == lines["ctrace"]
    assert lines["xdist"] == lines["plain"]


def test_a_project_whose_addopts_run_xdist_gets_a_map_by_the_collector(py312: Path, tmp_path: Path) -> None:
    """The default command under ``addopts = -n 2`` (``--dist load``): every test ran and is in the map,
    the frozen test too; what each test's body and setup ran is the plain run's."""
    repo = make_repo(tmp_path)
    plain = map_with(py312, repo, tmp_path / "plain.coverage")
    frozen = "tests/test_shapes.py::test_thread"
    entry = {"nodeid": frozen, "reason": "a thread race", "bound_sha": repo.head()[:10]}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    repo.write("pytest.ini", "[pytest]\naddopts = -n 2\n")
    repo.commit("xdist by default, one frozen test")

    manifest = map_with(py312, repo, tmp_path / "xdist.coverage")

    assert manifest["collector"] == "sysmon"
    assert manifest["tests_ran"] == plain["tests_ran"]
    assert manifest["tests"] == 8
    assert manifest["frozen"] == {"ran": [frozen], "deselected": []}
    assert manifest["frozen_run"] == 1
    assert manifest["collector_rearm"] == "fired"
    got = contexts_of([tmp_path / "xdist.coverage"], repo.root)
    expected = contexts_of([tmp_path / "plain.coverage"], repo.root)
    assert {c for c in got if not c.endswith("|teardown")} == {
        c for c in expected if not c.endswith("|teardown")
    }
    for context, lines in expected.items():
        if not context.endswith("|teardown"):
            assert got[context] == lines, context

    def teardowns(contexts: Lines) -> dict[str, set[int]]:  # which test's teardown runs them: the schedule's
        union: dict[str, set[int]] = {}
        for context, files in contexts.items():
            for rel, numbers in files.items() if context.endswith("|teardown") else ():
                union.setdefault(rel, set()).update(numbers)
        return union

    assert teardowns(got) == teardowns(expected)


def test_a_command_that_never_runs_pytest_is_named_as_the_cause(py312: Path, tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
    repo.write(
        "test_calc.py",
        "import unittest\n\nfrom calc import add\n\n\n"
        "class TestAdd(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
    )
    repo.commit("unittest")
    out = tmp_path / "map.coverage"
    argv = [
        str(py312),
        "-m",
        "oracle_gate",
        "map",
        "--repo",
        str(repo.root),
        "--sha",
        "HEAD",
        "--out",
        str(out),
    ]

    proc = subprocess.run(
        [*argv, "--", "python", "-m", "unittest"],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )

    assert proc.returncode == 3, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "no map:" in line]
    assert len(errors) == 1, proc.stderr
    assert "the oracle-gate pytest plugin never started (its report has no start event)" in errors[0]
    assert "it is not pytest, or PYTEST_DISABLE_PLUGIN_AUTOLOAD is set without -p oracle_gate" in errors[0]
    assert "pytest --cov --cov-context=test or coverage run -m pytest --oracle-contexts" in errors[0]
    assert "wrote no coverage data" not in proc.stderr
    assert not out.exists()
    # pytest itself, with plugin autoload off: the tests pass (exit 0) but nothing measured them
    autoload_off = subprocess.run(
        argv, env=clean_env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"), capture_output=True, text=True, check=False
    )
    assert autoload_off.returncode == 3, autoload_off.stderr
    assert "no map: the oracle-gate pytest plugin never started" in autoload_off.stderr


@pytest.mark.parametrize(
    "addopts",
    ["--cov=. --cov-report=term-missing", "-ra -q --cov --cov-context=test --cov-report=", "-n 2 --cov=."],
)
def test_pytest_cov_in_addopts_beside_the_collector_leaves_its_map_alone(
    py312: Path, tmp_path: Path, addopts: str
) -> None:
    """pytest-cov from ``addopts`` combines and deletes every ``COVERAGE_FILE.*`` at the end of the
    session: the collector's data file was among them, and ``map`` exited 3 ("isn't a coverage data
    file"). The collector's file is out of its reach now, and the map is the plain run's (issue 28)."""
    repo = make_repo(tmp_path)
    plain = map_with(py312, repo, tmp_path / "plain.coverage")
    repo.write("pytest.ini", f"[pytest]\naddopts = {addopts}\n")
    repo.commit("pytest-cov in addopts")

    manifest = map_with(py312, repo, tmp_path / "cov.coverage")

    assert manifest["collector"] == "sysmon"
    assert manifest["tests_passed"] is True
    assert manifest["tests_ran"] == plain["tests_ran"]
    got = contexts_of([tmp_path / "cov.coverage"], repo.root)
    expected = contexts_of([tmp_path / "plain.coverage"], repo.root)
    if "-n" in addopts:  # which test's teardown runs a module's finalizers is the xdist schedule's
        got, expected = ({c: v for c, v in d.items() if not c.endswith("|teardown")} for d in (got, expected))
    assert len(expected) >= 10
    assert got == expected
