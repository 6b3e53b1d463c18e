"""One exception hierarchy (issue 17): every exception class the package defines descends from
``oracle_gate.errors.OracleGateError`` through a family named for how it ends."""

from __future__ import annotations

import errno
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import oracle_gate
from oracle_gate import errors, files

FAMILIES = (errors.GateError, errors.InputError, errors.Refused, errors.PublishError, errors.RetryLater)
# Modules not imported by the walk, each for a reason.
SKIPPED = frozenset({"oracle_gate.__main__"})  # runs the command line when imported


def gate_exception_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(oracle_gate.__path__, "oracle_gate."):
        if info.name in SKIPPED or info.name.endswith("pytest_plugin"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == info.name:
                found.append(value)
    return found


def test_every_exception_of_the_package_has_one_root_and_a_family() -> None:
    classes = gate_exception_classes()
    assert len(classes) >= 20  # the walk found the package's exceptions
    strays = [
        f"{c.__module__}.{c.__qualname__}"
        for c in classes
        if c is not errors.OracleGateError and not issubclass(c, FAMILIES)
    ]
    assert not strays, f"exceptions outside oracle_gate.errors' families: {strays}"


def test_the_families_keep_their_endings() -> None:
    """GateError (exit 3) and InputError (oracle_incomplete) stay apart: neither catches the other."""
    assert not issubclass(errors.InputError, errors.GateError)
    assert not issubclass(errors.GateError, errors.InputError)
    assert not issubclass(errors.Refused, errors.GateError | errors.InputError)


def test_a_refused_file_names_the_file_and_stays_an_os_error(tmp_path: Path) -> None:
    """Readers that already turn an OSError into their input error keep doing so."""
    refused = files.FileRefused(tmp_path / "event.json", "more than the 10-byte limit")
    assert isinstance(refused, OSError)
    assert isinstance(refused, errors.Refused)
    assert refused.errno == errno.EINVAL
    assert "event.json" in str(refused)
    assert "10-byte limit" in str(refused)


@pytest.mark.parametrize(
    "error",
    [
        errors.InputError("policy.toml", "line 3: not TOML"),
        errors.StoredVerdictError("out/verdict.json", "no verdict field"),
        errors.PublishError("create the check run", "403 Resource not accessible"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_the_messages_name_what_they_are_about(error: errors.OracleGateError) -> None:
    text = str(error)
    assert "\n" not in text
    assert any(name in text for name in ("policy.toml", "out/verdict.json", "the check run"))
