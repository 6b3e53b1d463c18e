"""The map's layout rules (interpreter, PATH, src/, default output) and no-map causes, as pure functions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oracle_gate.maps.hints import PLUGIN_NOT_STARTED, no_map_cause
from oracle_gate.maps.layout import default_out, interpreter_first_on_path, src_layout_env, with_interpreter

PY = "/opt/venv/bin/python"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["python", "-m", "pytest"], [PY, "-m", "pytest"]),
        (["python3", "-m", "pytest"], [PY, "-m", "pytest"]),
        (["./venv/bin/python", "-m", "pytest"], ["./venv/bin/python", "-m", "pytest"]),
        (["python3.12", "-m", "pytest"], ["python3.12", "-m", "pytest"]),
        (["tox", "-e", "py"], ["tox", "-e", "py"]),
    ],
)
def test_only_a_bare_python_becomes_the_gates_interpreter(argv: list[str], expected: list[str]) -> None:
    assert with_interpreter(argv, PY) == expected


def test_the_interpreters_directory_comes_first_on_path_once() -> None:
    env = interpreter_first_on_path({"PATH": f"/usr/bin{os.pathsep}/opt/venv/bin"}, PY)
    assert env["PATH"] == f"/opt/venv/bin{os.pathsep}/usr/bin"


def test_src_goes_first_on_pythonpath_only_when_the_checkout_has_it(tmp_path: Path) -> None:
    assert "PYTHONPATH" not in src_layout_env({}, tmp_path)
    (tmp_path / "src").mkdir()
    env = src_layout_env({"PYTHONPATH": "/elsewhere"}, tmp_path)
    assert env["PYTHONPATH"] == f"{tmp_path / 'src'}{os.pathsep}/elsewhere"


def test_the_default_output_is_a_cache_directory_named_by_sha() -> None:
    sha = "a" * 40
    assert default_out(sha, {"ORACLE_GATE_MAPS": "/maps"}) == Path(f"/maps/{sha}.coverage")
    assert default_out(sha, {"XDG_CACHE_HOME": "/c"}) == Path(f"/c/oracle-gate/maps/{sha}.coverage")


@pytest.mark.parametrize(
    ("status", "tail", "cause"),
    [
        (1, "/usr/bin/python: No module named pytest", "pytest is not installed for python"),
        (4, "pytest: error: unrecognized arguments: --cov --cov-context=test", "pytest-cov is not installed"),
        (2, "E   ModuleNotFoundError: No module named 'tomli'", "No module named 'tomli'"),
        (5, "no tests ran in 0.01s", "pytest collected no tests"),
        (4, "ERROR: file or directory not found: nope", "refused its command line (exit status 4): file or"),
        (1, "FAILED t.py::test_x\n1 failed in 0.1s", "the tests ran (1 failed)"),
    ],
)
def test_the_cause_named_is_the_one_the_output_shows(status: int, tail: str, cause: str) -> None:
    found = no_map_cause(status, tail, ["python", "-m", "pytest"])
    assert found is not None
    assert cause in found


def test_no_cause_is_made_up_when_the_output_shows_none() -> None:
    assert no_map_cause(0, "3 passed in 0.1s", ["python"]) is None


def test_a_plugin_that_never_started_is_the_cause_when_the_collector_was_to_measure() -> None:
    tail = "Ran 0 tests in 0.000s\n\nNO TESTS RAN"  # python -m unittest: exit status 5, as pytest's
    found = no_map_cause(5, tail, ["python", "-m", "unittest"], plugin_started=False)

    assert found == PLUGIN_NOT_STARTED
    assert "\n" not in found
    assert "oracle-gate pytest plugin never started" in found
    assert "-p oracle_gate" in found  # the entry point's name, which -p loads with autoload off
    assert "--cov --cov-context=test" in found
    assert "coverage run -m pytest --oracle-contexts" in found
    # pytest missing is still named first; a plugin that started (or was not needed) changes nothing
    assert "pytest is not installed" in str(
        no_map_cause(1, "No module named pytest", ["py"], plugin_started=False)
    )
    assert (
        no_map_cause(5, tail, ["python"], plugin_started=True) == "pytest collected no tests (exit status 5)"
    )
    assert no_map_cause(0, "ok", ["python"], plugin_started=None) is None


def test_an_exception_that_stopped_pytest_before_its_plugins_is_the_cause_not_the_plugin() -> None:
    """pluggy with ``--cov=pluggy`` in addopts and ``filterwarnings = error``: pytest-cov's start raised
    a CoverageWarning before any plugin was configured; the hint said the command "did not run pytest
    with the plugin loaded" (issue 28, tried on a real project)."""
    tail = (
        '  File ".../coverage/control.py", line 470, in _warn\n'
        "    warnings.warn(msg, category=CoverageWarning, stacklevel=2)\n"
        "coverage.exceptions.CoverageWarning: --include is ignored because --source is set (include-ignored)"
    )
    found = no_map_cause(1, tail, ["python", "-m", "pytest"], plugin_started=False)

    assert found == (
        "the test command stopped (exit status 1) before pytest configured its plugins: "
        "coverage.exceptions.CoverageWarning: --include is ignored because --source is set (include-ignored)"
    )
    conftest = "ImportError while loading conftest 'c.py'.\nE   ModuleNotFoundError: No module named 'x'"
    assert "ModuleNotFoundError: No module named 'x'" in str(
        no_map_cause(4, conftest, ["pytest"], plugin_started=False)
    )
