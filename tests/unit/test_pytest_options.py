"""Every pytest run the gate starts ends with the same neutralising options (issue 28)."""

from __future__ import annotations

from pathlib import Path

from oracle_gate.maps import pytest_options
from oracle_gate.maps.pytest_options import NEUTRAL, randomly_installed, randomly_note

GATE = Path(pytest_options.__file__).resolve().parents[1]


def test_randomly_is_switched_off_last_and_the_cache_off() -> None:
    assert NEUTRAL[:2] == ("-p", "no:cacheprovider")
    assert NEUTRAL[-2:] == ("-p", "no:randomly")


def test_the_suites_venv_has_no_randomly_so_nothing_is_said() -> None:
    # pytest-randomly lives only in the matrix's own venvs (tests/support/randomly.py).
    assert not randomly_installed()
    assert randomly_note() is None
    assert "randomly" not in NEUTRAL[:-1]  # no -p randomly where it is not installed: pytest would fail


def test_no_call_site_spells_the_options_itself() -> None:
    """A new pytest run goes through NEUTRAL: a literal -p no:cacheprovider elsewhere is a run that
    would forget -p no:randomly."""
    spelled = [
        str(path.relative_to(GATE))
        for path in GATE.rglob("*.py")
        if path.name != "pytest_options.py" and '"no:cacheprovider"' in path.read_text(encoding="utf-8")
    ]
    assert spelled == []
