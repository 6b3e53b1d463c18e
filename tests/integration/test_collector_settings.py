"""One answer whoever measures: the collector and coverage.py (``ctrace``, pytest-cov) over one
generated project that uses every coverage.py setting that changes which lines count for which test,
compared as (test context, file, line) sets.

The settings (docs/coverage-maps.md lists what each collector does with each): ``[run] source_pkgs``
(matched against the module name, so a helper module of the tests is not measured), ``source`` (a
directory), ``include`` and ``omit`` (coverage.py's own glob matching, relative and ``*`` patterns),
``concurrency = thread`` (threads started by ``threading`` are measured, those started with
``_thread.start_new_thread`` are not, as execnet's receiver threads showed in bench/map_real.py),
``[report] exclude_lines`` (not applied to measurement by coverage.py: the excluded lines that run
are in both maps), and pytest-cov's ``no_cover`` (marker and fixture: the test's call phase is not
measured, its setup is). On today's main the collector measured the tests' helper under
``source_pkgs`` and ignored ``no_cover``; before bench/map_real.py it measured ``_thread`` threads,
and a test that deletes ``sys._getframe`` (attrs does) failed only under the collector.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_collector import by_collector, by_ctrace
from tests.support.py312 import require_venv312
from tests.support.repo import Repo, clean_env

CORE = """DEBUG = False


def double(x):
    y = x * 2
    if DEBUG:  # pragma: no cover
        print(y)
    return y


def noisy(x):
    return x + 1  # pragma: no cover


def spare(x):
    if DEBUG:
        return x
    return -x
"""
TESTS = """import _thread
import sys
import threading

import pytest

from helpers import make
from other import triple
from pkg.core import double, noisy, spare
from pkg.skipped import skipped


@pytest.fixture
def prepared():
    return double(1)


def test_plain(prepared):
    assert double(make(2)) == 4 and noisy(1) == 2 and skipped(2) == 1 and triple(1) == 3


@pytest.mark.no_cover
def test_marked(prepared):
    assert double(3) == 6 and triple(2) == 6 and spare(1) == -1


def test_fixture(no_cover, prepared):
    assert double(4) == 8 and make(1) == 1


def test_thread():
    worker = threading.Thread(target=spare, args=(5,))
    worker.start()
    worker.join()


def test_raw_thread():
    done = [_thread.allocate_lock(), _thread.allocate_lock()]
    for lock in done:
        lock.acquire()
    _thread.start_new_thread(lambda: (spare(6), done[0].release()), ())
    _thread.start_new_thread(lambda: (threading.current_thread(), double(7), done[1].release()), ())
    for lock in done:
        lock.acquire()


def test_without_getframe(monkeypatch):
    monkeypatch.delattr(sys, "_getframe")  # attrs' test_missing_sys_getframe: code of a new file runs
    namespace = {}
    exec(compile("def generated():\\n    return 1\\n", "<generated>", "exec"), namespace)
    assert namespace["generated"]() == 1
"""
FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "pkg/skipped.py": "def skipped(x):\n    return x - 1\n",
    "other.py": "def triple(x):\n    return x * 3\n",
    "tests/helpers.py": "def make(x):\n    return x + 0\n",
    "tests/test_core.py": TESTS,
}
REPORT = "[report]\nexclude_lines =\n    pragma: no cover\n    if DEBUG:\n"
CONFIGS = {
    "source_pkgs": "[run]\nsource_pkgs = pkg\nomit = */pkg/skipped.py\nconcurrency = thread\n" + REPORT,
    "include": "[run]\ninclude =\n    pkg/*\n    */tests/helpers.py\nomit = pkg/skipped.py\n" + REPORT,
    "source": "[run]\nsource = pkg\n" + REPORT,
    "nothing": REPORT,
}
EXPECTED_FILES = {  # which files each configuration measures (coverage.py's answer, checked too)
    "source_pkgs": {"pkg/core.py"},
    "include": {"pkg/core.py", "tests/helpers.py"},
    "source": {"pkg/core.py", "pkg/skipped.py"},
    "nothing": {"pkg/core.py", "pkg/skipped.py", "other.py", "tests/helpers.py"},
}


@pytest.fixture(scope="module")
def py312() -> Path:
    return require_venv312()


def write_project(root: Path, config: str) -> Path:
    for rel, text in {**FILES, ".coveragerc": config}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_the_collector_and_coverage_py_record_the_same_lines_under_each_setting(
    measurer: tuple[Path, str], tmp_path: Path, config: str
) -> None:
    python, collector = measurer
    root = write_project(tmp_path / "project", CONFIGS[config])

    expected = by_ctrace(python, root, tmp_path / "ctrace" / "data")
    got = by_collector(python, root, tmp_path / collector / "data", collector)

    measured = {rel for files in expected.values() for rel in files if not rel.startswith("tests/test_")}
    assert measured == EXPECTED_FILES[config]
    marked = "tests/test_core.py::test_marked"
    assert f"{marked}|setup" in expected  # no_cover: the call is not measured, the setup is
    assert f"{marked}|run" not in expected
    assert "tests/test_core.py::test_fixture|run" not in expected
    assert {6, 12} <= expected["tests/test_core.py::test_plain|run"]["pkg/core.py"]  # excluded lines that ran
    assert got == expected


def test_a_setting_the_collector_cannot_follow_is_named_on_one_line_before_coverage_py_measures(
    measurer: tuple[Path, str], tmp_path: Path
) -> None:
    python, collector = measurer
    repo = Repo(tmp_path / "repo")
    for rel, text in {**FILES, ".coveragerc": "[run]\nsource_pkgs = pkg\npatch = subprocess\n"}.items():
        repo.write(rel, text)
    repo.commit("patch = subprocess")
    out = tmp_path / "map.coverage"
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

    proc = subprocess.run(
        argv, env=clean_env(ORACLE_GATE_COLLECTOR=collector), capture_output=True, text=True, check=False
    )

    assert_coverage_py_measured(
        proc,
        out,
        "the collector cannot follow [run] patch = subprocess: measuring other processes is coverage.py's "
        "machinery",
    )


@pytest.mark.parametrize("library", ["greenlet", "eventlet", "gevent"])
def test_the_settrace_collector_leaves_greenlets_to_coverage_py(
    library: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The C tracer needs coverage.py's ``concur_id_func`` machinery for them (sys.monitoring does not)."""
    from oracle_gate.maps.inside.trace_collector import trace_refusal

    (tmp_path / ".coveragerc").write_text(f"[run]\nconcurrency = {library},thread\n")
    monkeypatch.chdir(tmp_path)

    assert trace_refusal() == f"[run] concurrency = {library}: the C tracer follows threads only"
    (tmp_path / ".coveragerc").write_text("[run]\nconcurrency = thread\n")
    assert trace_refusal() is None


def test_the_settrace_collector_steps_aside_for_pytest_cov_run_from_addopts(tmp_path: Path) -> None:
    """Two tracers in one process would switch each other off: pytest-cov from ``addopts`` (which
    ``map`` cannot see in the command) makes the collector refuse, and coverage.py measures."""
    repo = Repo(tmp_path / "repo")
    addopts = "[pytest]\naddopts = --cov --cov-context=test --cov-report=\n"
    for rel, text in {**FILES, "pytest.ini": addopts}.items():
        repo.write(rel, text)
    repo.commit("pytest-cov in addopts")
    out = tmp_path / "map.coverage"
    argv = [sys.executable, "-m", "oracle_gate", "map", "--repo", str(repo.root), "--sha", "HEAD"]

    proc = subprocess.run(
        [*argv, "--out", str(out)],
        env=clean_env(ORACLE_GATE_COLLECTOR="settrace"),
        capture_output=True,
        text=True,
        check=False,
    )

    assert_coverage_py_measured(
        proc,
        out,
        "the collector cannot follow a coverage.py already measuring the tests (pytest-cov's --cov, in the "
        "command or addopts)",
    )


def assert_coverage_py_measured(proc: subprocess.CompletedProcess[str], out: Path, why: str) -> None:
    """``map`` made its map with coverage.py and said why in exactly one line."""
    assert proc.returncode == 0, proc.stderr[-3000:]
    notes = [line for line in proc.stderr.splitlines() if line.startswith("oracle-gate map: measuring with")]
    assert notes == [f"oracle-gate map: measuring with coverage.py: {why}"]
    assert '"collector": "coverage.py"' in out.with_name(out.name + ".manifest.json").read_text()
