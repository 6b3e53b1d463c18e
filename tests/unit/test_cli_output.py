"""Colour only for a terminal, and progress for a terminal or a log."""

from __future__ import annotations

import io

import pytest

from oracle_gate import colour
from oracle_gate.maps.build import is_the_gates_own
from oracle_gate.maps.command import PeriodicProgress, TerminalProgress, choose_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color() -> None:
    assert colour.wanted(Terminal(), {})
    assert not colour.wanted(Terminal(), {"NO_COLOR": "1"})
    assert not colour.wanted(Terminal(), {"TERM": "dumb"})
    assert not colour.wanted(io.StringIO(), {})  # piped or a file


def test_the_verdict_word_and_error_prefix_are_coloured() -> None:
    painted = colour.verdicts("oracle-gate: fail (oracle_edit_forbidden)\n  parent a  head b\n")
    assert painted.startswith("oracle-gate: \033[1;31mfail\033[0m (oracle_edit_forbidden)")
    assert colour.message("oracle-gate: error: bad").startswith("oracle-gate: \033[1;31merror:\033[0m")
    assert colour.message("oracle-gate: mapping x") == "oracle-gate: mapping x"


def test_a_log_gets_one_progress_line_every_30_seconds() -> None:
    stream = io.StringIO()
    progress = PeriodicProgress(stream)
    for second in range(0, 95, 5):
        progress(second // 3, 40, float(second))
    assert stream.getvalue().splitlines() == [
        "oracle-gate: map: 10/40 tests done, 00:30 elapsed",
        "oracle-gate: map: 20/40 tests done, 01:00 elapsed",
        "oracle-gate: map: 30/40 tests done, 01:30 elapsed",
    ]


@pytest.mark.parametrize(
    ("mode", "tty", "kind"),
    [("auto", True, TerminalProgress), ("auto", False, PeriodicProgress), ("never", True, type(None))],
)
def test_progress_is_live_on_a_terminal_and_periodic_otherwise(
    mode: str, tty: bool, kind: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on main: ``map`` printed nothing between its first and last line off a terminal."""
    monkeypatch.delenv("CI", raising=False)
    assert isinstance(choose_progress(mode, False, Terminal() if tty else io.StringIO()), kind)


def test_the_gates_own_files_are_not_outside_the_worktree() -> None:
    """Seen on main after ``pip install -e .``: the gate's own gate/__init__.py (outside gate/maps/)
    was reported as parent code outside the worktree."""
    import oracle_gate

    assert is_the_gates_own(oracle_gate.__file__)
    assert is_the_gates_own(
        str(__import__("oracle_gate.maps.inside.collector").maps.inside.collector.__file__)
    )
    assert not is_the_gates_own("/elsewhere/project/gate/__init__.py")
