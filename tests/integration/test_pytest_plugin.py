"""The oracle-gate pytest plugin, run for real on a small suite: pytest in this process through
``pytester`` (the plugin loaded from its entry point, as a user gets it), and in a subprocess where
the process itself matters (what importing the plugin loads; ``coverage run -m pytest``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from oracle_gate.maps.inside.shards import shard_of
from tests.support.repo import clean_env

SUITE = """\
import pytest


def test_x():
    pass


def test_x2():
    pass


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    pass


class TestA:
    def test_y(self):
        pass

    def test_z(self):
        pass
"""

Run = Callable[..., subprocess.CompletedProcess[str]]
ALL = [
    "tests/test_a.py::test_x",
    "tests/test_a.py::test_x2",
    "tests/test_a.py::test_param[1]",
    "tests/test_a.py::test_param[2]",
    "tests/test_a.py::TestA::test_y",
    "tests/test_a.py::TestA::test_z",
]


def write_freeze(root: Path, *nodeids: str, name: str = "freeze.json") -> None:
    entries = [
        {"nodeid": n, "reason": f"flaky: {n.rsplit('::', 1)[-1]}", "bound_sha": "abcd"} for n in nodeids
    ]
    (root / name).write_text(json.dumps({"schema": 1, "frozen": entries}))


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    """The suite in pytester's directory, which is also the working directory of :func:`pytest_run`."""
    root = pytester.path
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text(SUITE)
    (root / "pytest.ini").write_text("[pytest]\n")
    return root


@pytest.fixture
def pytest_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Run:
    """pytest in this process with ``args`` from the directory ``root``, as a finished process."""

    def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(root)
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)
        stdout, stderr = (
            "".join(f"{line}\n" for line in lines) for lines in (result.outlines, result.errlines)
        )
        return subprocess.CompletedProcess(["pytest", *args], int(result.ret), stdout, stderr)

    return run


def collected(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith("tests/")]


def test_frozen_ids_are_deselected_at_collection_with_prefix_rules(suite: Path, pytest_run: Run) -> None:
    write_freeze(suite, "tests/test_a.py::test_x", "tests/test_a.py::test_param", "tests/test_a.py::TestA")

    proc = pytest_run(suite, "--collect-only", "-q", "--oracle-freeze=freeze.json")

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert collected(proc) == ["tests/test_a.py::test_x2"]  # test_x2 is not under the test_x prefix
    assert "1/6 tests collected (5 deselected)" in proc.stdout
    assert "5 frozen test(s) deselected (freeze.json):" in proc.stdout
    assert "  tests/test_a.py::test_x: flaky: test_x" in proc.stdout
    assert (
        "  tests/test_a.py::test_param[2] (by tests/test_a.py::test_param): flaky: test_param" in proc.stdout
    )
    assert "  tests/test_a.py::TestA::test_z (by tests/test_a.py::TestA): flaky: TestA" in proc.stdout


def test_the_ini_option_enables_it_relative_to_the_rootdir(suite: Path, pytest_run: Run) -> None:
    (suite / "ci").mkdir()
    write_freeze(suite, "tests/test_a.py::TestA::test_y", name="ci/freeze.json")
    (suite / "pytest.ini").write_text("[pytest]\noracle_freeze = ci/freeze.json\n")

    proc = pytest_run(suite / "tests", "-q")  # invoked from a subdirectory: still found from the rootdir

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "5 passed, 1 deselected" in proc.stdout
    assert "tests/test_a.py::TestA::test_y: flaky: test_y" in proc.stdout


def test_it_is_inert_unless_enabled(suite: Path, pytest_run: Run) -> None:
    write_freeze(suite, "tests/test_a.py::test_x")  # present, but not enabled

    proc = pytest_run(suite, "--collect-only", "-q")

    assert collected(proc) == ALL
    assert "oracle-gate" not in proc.stdout
    probe = (
        "import sys, oracle_gate.maps.inside.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.startswith('oracle_gate')))"
    )
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert (
        imported.stdout.strip() == "['oracle_gate', 'oracle_gate.maps', 'oracle_gate.maps.inside', "
        "'oracle_gate.maps.inside.pytest_plugin', 'oracle_gate.maps.inside.shards']"
    )


def test_a_frozen_test_with_a_skip_marker_is_a_policy_error(suite: Path, pytest_run: Run) -> None:
    source = SUITE.replace("def test_x():", "@pytest.mark.skip(reason='flaky')\ndef test_x():")
    (suite / "tests" / "test_a.py").write_text(source)
    write_freeze(suite, "tests/test_a.py::test_x")

    proc = pytest_run(suite, "-q", "--oracle-freeze=freeze.json")

    assert proc.returncode == 4
    assert "tests/test_a.py::test_x is frozen and also carries a pytest.mark.skip marker" in proc.stderr
    assert "passed" not in proc.stdout  # stopped before any test ran


def test_an_xfail_marker_on_a_parametrized_frozen_case_is_caught_too(suite: Path, pytest_run: Run) -> None:
    source = SUITE.replace("[1, 2])", "[1, pytest.param(2, marks=pytest.mark.xfail)])")
    (suite / "tests" / "test_a.py").write_text(source)
    write_freeze(suite, "tests/test_a.py::test_param")

    proc = pytest_run(suite, "-q", "--oracle-freeze=freeze.json")

    assert proc.returncode == 4
    assert (
        "tests/test_a.py::test_param[2] is frozen (by 'tests/test_a.py::test_param') and also carries a "
        "pytest.mark.xfail marker" in proc.stderr
    )


def test_a_frozen_test_named_on_the_command_line_is_an_error(suite: Path, pytest_run: Run) -> None:
    write_freeze(suite, "tests/test_a.py::TestA")

    proc = pytest_run(suite, "-q", "--oracle-freeze=freeze.json", "tests/test_a.py::TestA::test_y")

    assert proc.returncode == 4
    assert "tests/test_a.py::TestA::test_y is frozen but was named on the command line" in proc.stderr
    fine = pytest_run(suite, "-q", "--oracle-freeze=freeze.json", "tests/test_a.py")  # a file is not forcing
    assert fine.returncode == 0
    assert "4 passed, 2 deselected" in fine.stdout


def test_a_frozen_test_put_back_by_another_plugin_is_an_error(suite: Path, pytest_run: Run) -> None:
    write_freeze(suite, "tests/test_a.py::test_x")
    (suite / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n"
        "@pytest.hookimpl(wrapper=True, tryfirst=True)\n"
        "def pytest_collection_modifyitems(items):\n"
        "    everything = list(items)\n"
        "    yield\n"
        "    items[:] = everything\n"
    )

    proc = pytest_run(suite, "-q", "--oracle-freeze=freeze.json")

    assert proc.returncode == 4
    assert "tests/test_a.py::test_x is frozen but is still collected" in proc.stderr


def test_a_missing_or_broken_freeze_file_is_a_usage_error(suite: Path, pytest_run: Run) -> None:
    missing = pytest_run(suite, "-q", "--oracle-freeze=nope.json")
    assert missing.returncode == 4
    assert "cannot read the freeze manifest nope.json" in missing.stderr
    (suite / "freeze.json").write_text("{not json")
    broken = pytest_run(suite, "-q", "--oracle-freeze=freeze.json")
    assert broken.returncode == 4
    assert "freeze.json: not valid JSON" in broken.stderr


def test_shards_partition_the_suite_by_file(suite: Path, pytest_run: Run) -> None:
    for i in range(6):
        (suite / "tests" / f"test_more_{i}.py").write_text(f"def test_{i}():\n    pass\n")
    whole = collected(pytest_run(suite, "--collect-only", "-q"))
    parts = [collected(pytest_run(suite, "--collect-only", "-q", f"--oracle-shard={i}/3")) for i in (1, 2, 3)]

    assert sorted(nodeid for part in parts for nodeid in part) == sorted(whole)
    assert sum(len(p) for p in parts) == len(whole)  # disjoint
    for index, part in enumerate(parts, start=1):
        assert all(shard_of(nodeid, 3) == index for nodeid in part)


def test_contexts_are_recorded_under_coverage_run(suite: Path, tmp_path: Path) -> None:
    data = tmp_path / "contexts.coverage"
    env = clean_env(COVERAGE_FILE=str(data), COVERAGE_CORE="ctrace")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "run",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--oracle-contexts",
        ],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from coverage import CoverageData

    cov = CoverageData(basename=str(data), read_only=True)
    cov.read()
    tests = {c.rpartition("|")[0] for c in cov.measured_contexts() if c}
    phases = {c.rpartition("|")[2] for c in cov.measured_contexts() if c}
    cov.close()
    assert tests == set(ALL)
    assert phases == {"setup", "run", "teardown"}


def run_for_a_map(root: Path, report: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest in a subprocess as ``oracle-gate map`` runs it (map mode, a report file), coverage.py's
    collector chosen so that this 3.11 interpreter needs no ``sys.monitoring``."""
    env = clean_env(
        ORACLE_GATE_MAP="1", ORACLE_GATE_REPORT=str(report), ORACLE_GATE_COLLECTOR="coverage.py", **env
    )
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)


def events(report: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in report.read_text().splitlines()]


def test_under_xdist_the_controller_reports_alone_with_the_workers_shard_and_freeze(
    suite: Path, tmp_path: Path
) -> None:
    for i in range(6):
        (suite / "tests" / f"test_more_{i}.py").write_text(f"def test_{i}():\n    pass\n")
    everything = [*ALL, *(f"tests/test_more_{i}.py::test_{i}" for i in range(6))]
    shard = sorted(t for t in everything if shard_of(t, 2) == 1)
    frozen = shard[0]
    write_freeze(suite, frozen, "tests/test_nowhere.py")
    report = tmp_path / "report.jsonl"

    proc = run_for_a_map(
        suite, report, "-n", "2", ORACLE_GATE_SHARD="1/2", ORACLE_GATE_FREEZE=str(suite / "freeze.json")
    )

    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = events(report)
    kinds = [e["event"] for e in seen]
    assert kinds[:2] == ["start", "collected"]  # from the controller only: one of each
    assert kinds[2:] == ["test"] * len(shard) + ["finish"]
    assert seen[0]["xdist"] is True
    assert seen[1] == {"event": "collected", "tests": len(shard), "frozen": 1}
    finish = seen[-1]
    assert finish["ran"] == shard
    assert finish["tests"] == len(shard)
    assert finish["shard"] == [1, 2]
    assert finish["frozen"] == [frozen]  # run for the map, by a worker
    assert finish["collector"] == "coverage.py"
    assert f"{frozen}: flaky: " in proc.stdout  # the controller's summary names it


def test_under_xdist_a_freeze_policy_error_of_the_workers_reaches_the_report(
    suite: Path, tmp_path: Path
) -> None:
    source = SUITE.replace("def test_x():", "@pytest.mark.skip(reason='flaky')\ndef test_x():")
    (suite / "tests" / "test_a.py").write_text(source)
    write_freeze(suite, "tests/test_a.py::test_x")
    report = tmp_path / "report.jsonl"

    proc = run_for_a_map(suite, report, "-n", "2", ORACLE_GATE_FREEZE=str(suite / "freeze.json"))

    assert proc.returncode != 0
    errors = [e["errors"] for e in events(report) if e["event"] == "policy_error"]
    assert errors
    expected = (
        "tests/test_a.py::test_x is frozen and also carries a pytest.mark.skip marker: a frozen test "
        "must not be skipped in place (remove the marker; the freeze manifest is the one place that "
        "takes a test out)"
    )
    assert all(e == [expected] for e in errors)  # each worker's, the same
    assert "passed" not in proc.stdout
