"""Which collector measures a map (:mod:`oracle_gate.maps.choice`): the gate's own on every supported
Python (``sysmon`` on 3.12+, ``settrace`` on 3.11), coverage.py when asked or when the command measures."""

from __future__ import annotations

import sys

import pytest

from oracle_gate.maps.choice import chosen_collector, coverage_py_reason, map_command

PYTEST = ["python", "-m", "pytest", "-q"]


@pytest.mark.parametrize(("version", "expected"), [((3, 11, 7), "settrace"), ((3, 12, 1), "sysmon")])
def test_the_default_is_the_gates_collector_for_the_interpreter(
    monkeypatch: pytest.MonkeyPatch, version: tuple[int, int, int], expected: str
) -> None:
    monkeypatch.setattr(sys, "version_info", version)

    assert chosen_collector(None, {}) == expected
    assert chosen_collector(PYTEST, {}) == expected  # a command that does not measure itself
    assert coverage_py_reason(None, {}) is None  # nothing to explain: no note is printed


def test_coverage_py_measures_when_asked_or_when_the_command_measures_itself() -> None:
    asked = {"ORACLE_GATE_COLLECTOR": "coverage.py"}

    assert chosen_collector(None, asked) == "coverage.py"
    assert coverage_py_reason(None, asked) == "ORACLE_GATE_COLLECTOR=coverage.py asks for it"
    assert chosen_collector([*PYTEST, "--cov"], {}) == "coverage.py"
    assert chosen_collector(["coverage", "run", "-m", "pytest"], {}) == "coverage.py"
    # A shell string (the project's own dogfood step): its words count too.
    assert chosen_collector(["sh", "-c", "ln -s gate pkg && exec python -m pytest --cov=gate"], {}) == (
        "coverage.py"
    )


@pytest.mark.parametrize("name", ["sysmon", "settrace"])
def test_a_named_gate_collector_is_the_one_run(name: str) -> None:
    assert chosen_collector(None, {"ORACLE_GATE_COLLECTOR": name}) == name
    assert map_command(None, name)[1:] == [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
    ]  # no --cov


def test_coverage_py_runs_pytest_cov_with_per_test_contexts() -> None:
    assert "--cov-context=test" in map_command(None, "coverage.py")
