"""The score's progress on standard error: a live line rewritten in place on a terminal, one line
per phase otherwise (CI logs keep every line)."""

from __future__ import annotations

from oracle_gate.commands.score import progress_printer


def test_one_line_per_phase_when_not_a_terminal() -> None:
    out: list[str] = []
    show = progress_printer(False, out.append)
    for phase, done in (
        ("diff verdict", 0),
        ("first run", 0),
        ("first run", 5),
        ("second run", 1),
        ("compare", 0),
    ):
        show(phase, done, 10)
    assert out == [
        f"oracle-gate score: {p}\n" for p in ("diff verdict", "first run", "second run", "compare")
    ]


def test_a_live_line_on_a_terminal() -> None:
    out: list[str] = []
    show = progress_printer(True, out.append)
    show("first run", 3, 10)
    show("compare", 0, None)
    assert out[0] == "\r\x1b[2Koracle-gate score: first run 3/10"
    assert out[1].endswith("compare\n")
