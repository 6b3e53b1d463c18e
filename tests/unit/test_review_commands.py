"""The command grammar both front doors share (issue 17): one rule for case and position, anchored,
linear time on any input, and the permission rule."""

from __future__ import annotations

import time

import pytest

from oracle_gate.review.commands import (
    ACCEPTED_REACTION,
    REFUSED_REACTION,
    Command,
    may_command,
    parse_command,
    reaction_for,
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/oracle-gate rerun", Command.RERUN),
        ("/oracle-gate explain", Command.EXPLAIN),
        ("/Oracle-Gate ReRun", Command.RERUN),  # case never matters (the Action's rule)
        ("  \n\n /oracle-gate rerun  \nthanks!", Command.RERUN),  # the first non-blank line
        ("/oracle-gate\trerun\r\nmore", Command.RERUN),
        ("/oracle-gate rerun please", None),  # anything else on the line: no command
        ("/oracle-gate reruns", None),
        ("/oracle-gaterun", None),
        ("please\n/oracle-gate rerun", None),  # a command on a later line (the bot's old rule)
        ("> /oracle-gate rerun", None),  # quoted
        ("`/oracle-gate rerun`", None),
        ("/oracle-gate", None),
        ("/oracle-gate deploy", None),
        ("/oracle-gate\u00a0rerun", None),  # a no-break space is not a separator
        ("/oracle-gate\x0crerun", None),
        ("", None),
    ],
)
def test_the_grammar(body: str, expected: Command | None) -> None:
    assert parse_command(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        " " * (1 << 20),
        "/oracle-gate " + " " * (1 << 20) + "rerun",
        "/oracle-gate rerun" + " x" * (1 << 19),
        "\n" * (1 << 20) + "/oracle-gate rerun",
        "/oracle-gate" * (1 << 17),
        "/oracle-gate \t" * (1 << 16),
    ],
    ids=["blanks", "wide-gap", "long-line", "newlines-then-command", "repeated-prefix", "prefix-blanks"],
)
def test_a_one_mebibyte_adversarial_comment_is_parsed_in_bounded_time(body: str) -> None:
    """The bot's old regex took about 7 s on 64 KiB of such text, on the server's event loop."""
    started = time.perf_counter()
    for _ in range(10):
        parsed = parse_command(body)
    elapsed = (time.perf_counter() - started) / 10
    assert elapsed < 0.05, f"{elapsed:.3f} s for one 1 MiB comment"
    assert parsed in (None, Command.RERUN)


def test_only_writers_may_command_and_the_reactions_say_so() -> None:
    assert [p for p in ("admin", "maintain", "write", "triage", "read", "none", None) if may_command(p)] == [
        "admin",
        "maintain",
        "write",
    ]
    assert reaction_for(True) == ACCEPTED_REACTION
    assert reaction_for(False) == REFUSED_REACTION
