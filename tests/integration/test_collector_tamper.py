"""No test can switch the map's measurement off and still get a map (:mod:`oracle_gate.maps.inside.guard`).

Each case adds a test file to a small project whose frozen test calls a helper only it calls; the
file attacks the measurement (at collection time, or from inside a test). ``oracle-gate map`` must
refuse to write a map (exit 3) and name the test, or the module being collected, that did it. On
today's main the first case wrote a map whose frozen test observed nothing (exit 0).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from coverage import CoverageData

from tests.support.py312 import require_venv312
from tests.support.repo import Repo, clean_env

FROZEN = "tests/test_calc.py::test_frozen"

CALC = "def helper(x):\n    y = x + 1\n    return y * 2\n\n\ndef add(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add, helper\n\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_frozen():\n    assert helper(1) == 4\n"
)
FIND_TOOL = (
    "import sys\n\nmon = sys.monitoring\n"
    "tool = next(t for t in range(6) if mon.get_tool(t) == 'oracle-gate')\n"
    # the unwrapped functions, as a determined attacker would dig them out of the guard's wrappers
    "def original(name):\n"
    "    fn = getattr(mon, name)\n"
    "    cells = [c.cell_contents for c in (fn.__closure__ or ())]\n"
    "    return next((c for c in cells if type(c).__name__ == 'builtin_function_or_method'), fn)\n"
)
ATTACKS = {
    # The attack: the line recorder swapped at collection time, through sys.monitoring.
    "swap-recorder-at-collection": (
        FIND_TOOL + "mon.register_callback(tool, mon.events.LINE, lambda code, line: mon.DISABLE)\n",
        "collecting tests/test_a_evil.py",
    ),
    # The same with the unwrapped function: the boundary check compares what register_callback returns.
    "swap-recorder-unwrapped": (
        FIND_TOOL + "original('register_callback')(tool, mon.events.LINE, lambda code, line: mon.DISABLE)\n",
        "collecting tests/test_a_evil.py",
    ),
    "re-register-in-a-test": (
        FIND_TOOL + "\n\ndef test_evil():\n"
        "    original('register_callback')(tool, mon.events.PY_START, lambda code, offset: mon.DISABLE)\n",
        "test tests/test_a_evil.py::test_evil|run",
    ),
    "disable-events-in-a-test": (
        FIND_TOOL + "\n\ndef test_evil():\n    original('set_events')(tool, 0)\n",
        "test tests/test_a_evil.py::test_evil|run",
    ),
    "disable-events-through-sys-monitoring": (
        FIND_TOOL + "\n\ndef test_evil():\n    try:\n        mon.set_events(tool, 0)\n"
        "    except ValueError:\n        pass\n",
        "test tests/test_a_evil.py::test_evil|run",
    ),
    "settrace-in-a-test": (
        "import sys\n\n\ndef test_evil():\n    sys.settrace(lambda *a: None)\n",
        "test tests/test_a_evil.py::test_evil|run",
    ),
}


EVIL_TEST = "test tests/test_a_evil.py::test_evil|run"
# The settrace collector (coverage.py's C tracer, the 3.11 default): (source, what ran, the problem named)
SETTRACE_ATTACKS = {
    "settrace-none-in-a-test": (
        "import sys\n\n\ndef test_evil():\n    sys.settrace(None)\n",
        EVIL_TEST,
        "its trace function was replaced (sys.settrace: None)",
    ),
    "settrace-at-collection": (
        "import sys\n\nsys.settrace(lambda *a: None)\n",
        "collecting tests/test_a_evil.py",
        "its trace function was replaced (sys.settrace: <lambda>)",
    ),
    "threading-hook-in-a-test": (
        "import threading\n\n\ndef test_evil():\n    threading.settrace(lambda *a: None)\n",
        EVIL_TEST,
        "threading's trace hook was replaced (threading.settrace: test_evil.<locals>.<lambda>)",
    ),
    "tracer-store-swapped": (
        "import sys\n\n\ndef test_evil():\n    sys.gettrace().data = {}\n",
        EVIL_TEST,
        "its tracer was pointed at another store or selector",
    ),
    "cached-decision-dropped": (
        "import sys\n\n\ndef test_evil():\n    cache = sys.gettrace().should_trace_cache\n"
        "    for name in [n for n in cache if n.endswith('calc.py')]:\n        cache[name] = None\n",
        "the end of the session",
        "the tracing of ",
    ),
    "coverage-py-left-running-by-a-test": (
        "import coverage\n\n\ndef test_evil():\n    coverage.Coverage(data_file=None).start()\n",
        EVIL_TEST,
        "its trace function was replaced (sys.settrace: CTracer)",
    ),
}


@pytest.fixture(scope="module")
def py312() -> Path:
    return require_venv312()


def project(tmp_path: Path, evil: str | None) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.write("calc.py", CALC)
    repo.write("tests/test_calc.py", TESTS)
    if evil is not None:
        repo.write("tests/test_a_evil.py", evil)  # collected first: the attack precedes every test
    entry = {"nodeid": FROZEN, "reason": "flaky", "bound_sha": "0" * 10}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    repo.commit("calc")
    entry["bound_sha"] = repo.head()[:10]
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    repo.commit("bind the freeze")
    return repo


def run_map(
    python: Path, repo: Repo, out: Path, *command: str, **env: str
) -> subprocess.CompletedProcess[str]:
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
    return subprocess.run(argv, env=clean_env(**env), capture_output=True, text=True, check=False)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_test_that_switches_the_collector_off_gets_no_map(py312: Path, tmp_path: Path, attack: str) -> None:
    source, running = ATTACKS[attack]
    repo = project(tmp_path, source)
    out = tmp_path / "map.coverage"

    proc = run_map(py312, repo, out)

    assert proc.returncode == 3, proc.stderr[-3000:]
    assert not out.exists()
    errors = [line for line in proc.stderr.splitlines() if "no map: the measurement was switched off" in line]
    assert len(errors) == 1, proc.stderr[-3000:]
    assert f"while {running} ran" in errors[0]


@pytest.mark.parametrize("attack", sorted(SETTRACE_ATTACKS))
def test_a_test_that_switches_the_settrace_collector_off_gets_no_map(tmp_path: Path, attack: str) -> None:
    source, running, problem = SETTRACE_ATTACKS[attack]
    repo = project(tmp_path, source)
    out = tmp_path / "map.coverage"

    proc = run_map(Path(sys.executable), repo, out, ORACLE_GATE_COLLECTOR="settrace")

    assert proc.returncode == 3, proc.stderr[-3000:]
    assert not out.exists()
    errors = [line for line in proc.stderr.splitlines() if "no map: the measurement was switched off" in line]
    assert len(errors) == 1, proc.stderr[-3000:]
    assert problem in errors[0]
    assert running in errors[0]


def test_sys_settrace_on_the_coverage_py_path_gets_no_map(py312: Path, tmp_path: Path) -> None:
    source = "import sys\n\n\ndef test_evil():\n    sys.settrace(None)\n"
    repo = project(tmp_path, source)

    proc = run_map(py312, repo, tmp_path / "map.coverage", ORACLE_GATE_COLLECTOR="coverage.py")

    assert proc.returncode == 3, proc.stderr[-3000:]
    assert (
        "no map: the measurement was switched off by the code under test: coverage.py's trace " in proc.stderr
    )
    assert "while test tests/test_a_evil.py::test_evil|run ran" in proc.stderr


def test_a_test_that_traces_and_restores_the_trace_function_still_gets_a_map(
    py312: Path, tmp_path: Path
) -> None:
    """No false alarm: a test may use ``sys.settrace`` (a debugger's test) and put it back."""
    source = (
        "import sys\n\n\ndef test_traces():\n    before = sys.gettrace()\n"
        "    sys.settrace(lambda *a: None)\n    sys.settrace(before)\n"
    )
    repo = project(tmp_path, source)

    for python, collector in ((py312, "sysmon"), (py312, "coverage.py"), (Path(sys.executable), "settrace")):
        out = tmp_path / f"{collector}.coverage"
        proc = run_map(python, repo, out, ORACLE_GATE_COLLECTOR=collector)
        assert proc.returncode == 0, proc.stderr[-3000:]
        manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
        assert manifest["collector"] == collector
        assert FROZEN in manifest["tests_ran"]


def test_a_test_that_runs_coverage_py_itself_still_gets_a_map_measured_around_it(tmp_path: Path) -> None:
    """A test may measure something with coverage.py in-process (a coverage plugin's own tests):
    coverage.py pauses the collector under it and resumes it when stopped (its collector stack), so
    the map is made and the tests after it are measured. The collector's first version gave no map."""
    source = (
        "import coverage\n\n\ndef test_measures():\n    cov = coverage.Coverage(data_file=None)\n"
        "    cov.start()\n    cov.stop()\n"
    )
    repo = project(tmp_path, source)
    out = tmp_path / "map.coverage"

    proc = run_map(Path(sys.executable), repo, out, ORACLE_GATE_COLLECTOR="settrace")

    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["collector"] == "settrace"
    data = CoverageData(basename=str(out), read_only=True)
    data.read()
    frozen_lines = {n for n, cs in data.contexts_by_lineno("calc.py").items() if f"{FROZEN}|run" in cs}
    assert frozen_lines == {2, 3}  # the frozen test ran after it: measured


def test_under_xdist_a_worker_that_is_switched_off_gets_no_map(py312: Path, tmp_path: Path) -> None:
    """Only the worker sees its collector switched off: it writes that to the report itself."""
    source, running = ATTACKS["swap-recorder-unwrapped"]
    repo = project(tmp_path, source)
    out = tmp_path / "map.coverage"

    proc = run_map(py312, repo, out, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2")

    assert proc.returncode == 3, proc.stderr[-3000:]
    assert not out.exists()
    assert "no map: the measurement was switched off by the code under test: " in proc.stderr
    assert f"while {running} ran" in proc.stderr
