"""Why a test command wrote no usable map: the cause read from its exit status and output.

The old single hint ("it must run pytest with --cov --cov-context=test") blamed the command even when
pytest was missing or the tests could not be imported; :func:`no_map_cause` names what the output
shows instead, and returns None when it shows nothing specific.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

EXIT_TESTS_FAILED = 1  # pytest: some tests failed
EXIT_INTERRUPTED = 2  # pytest: collection errors, or interrupted
EXIT_USAGE = 4  # pytest: command line usage error
EXIT_NO_TESTS = 5  # pytest: no tests collected

# Patterns, compiled by ``re`` where a map fails: a map that succeeds does not pay for them (issue 19).
_NO_PYTEST = r"(?m)No module named '?pytest'?\s*$"
_UNKNOWN_COV = r"unrecognized arguments:.*--cov"
_MISSING_MODULE = r"(ModuleNotFoundError|ImportError): (.+)"
_COLLECTING = "ERROR collecting"
_FAILED = r"\b(\d+) failed\b"
_USAGE = r"(?m)^(?:ERROR: |\S+: error: )(.+)$"
# An exception that stopped pytest before its plugins were configured (a conftest's import, a
# warning made an error by ``filterwarnings = error`` while pytest-cov starts): its last line.
_STARTUP_EXCEPTION = r"(?m)^(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning)): (.+)$"


PLUGIN_NOT_STARTED = (
    "the oracle-gate pytest plugin never started (its report has no start event), so the command did not "
    "run pytest with the plugin loaded (it is not pytest, or PYTEST_DISABLE_PLUGIN_AUTOLOAD is set without "
    "-p oracle_gate); run the tests with pytest, or measure them in the command itself with pytest --cov "
    "--cov-context=test or coverage run -m pytest --oracle-contexts"
)


def no_map_cause(
    exit_status: int, tail: str, argv: Sequence[str], *, plugin_started: bool | None = None
) -> str | None:
    """The specific reason the run made no map, as one clause, or None.

    ``plugin_started`` is False when the gate's own collector was to measure (it runs inside the
    pytest plugin) and the plugin never wrote its ``start`` event: a command that is not pytest (its
    exit status, e.g. unittest's 5 for "no tests ran", says nothing about pytest then).
    """
    program = argv[0] if argv else "the test command"
    missing = _missing_tool(tail, program)
    if missing is None and plugin_started is False:
        return _stopped_at_startup(exit_status, tail) or PLUGIN_NOT_STARTED
    return missing or _pytest_outcome(exit_status, tail)


def _stopped_at_startup(exit_status: int, tail: str) -> str | None:
    """pytest ran but stopped on an exception before the gate's plugin started: that exception."""
    if exit_status == 0:
        return None
    found = re.findall(_STARTUP_EXCEPTION, tail)
    if not found:
        return None
    name, message = found[-1]
    return (
        f"the test command stopped (exit status {exit_status}) before pytest configured its plugins: "
        f"{name}: {message.strip()[:300]}"
    )


def _missing_tool(tail: str, program: str) -> str | None:
    if re.search(_NO_PYTEST, tail):
        return f"pytest is not installed for {program} (install pytest and pytest-cov where the tests run)"
    if re.search(_UNKNOWN_COV, tail):
        return (
            f"pytest-cov is not installed for {program} (pytest does not know --cov; install pytest-cov "
            "there, or give a command that runs an interpreter that has it)"
        )
    return None


def _pytest_outcome(exit_status: int, tail: str) -> str | None:
    if exit_status == EXIT_INTERRUPTED or _COLLECTING in tail:
        missing = re.search(_MISSING_MODULE, tail)
        what = f": {missing.group(1)}: {missing.group(2).strip()}" if missing else ""
        return (
            f"the tests could not be collected (exit status {exit_status}){what}; is the project importable "
            "from its checkout (its dependencies installed; a src layout needs src/ on the path)?"
        )
    if exit_status == EXIT_NO_TESTS:
        return "pytest collected no tests (exit status 5)"
    if exit_status == EXIT_USAGE:
        usage = re.search(_USAGE, tail)
        return f"pytest refused its command line (exit status 4){': ' + usage.group(1) if usage else ''}"
    failed = re.search(_FAILED, tail)
    if exit_status == EXIT_TESTS_FAILED and failed:
        return (
            f"the tests ran ({failed.group(1)} failed) but the command measured no per-test coverage: it "
            "must run pytest with --cov --cov-context=test (or coverage run -m pytest --oracle-contexts)"
        )
    return None
