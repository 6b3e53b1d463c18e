"""The command line builds one command's parser when the first word names it (issue 19: ``map`` must
not import the judge, the adoption templates or the scoring run to parse its arguments), and that
parser reads the same as the full one: every command listed, the same usage line, each command's help."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

from oracle_gate.cli import COMMAND_NAMES, build_parser, chosen_command


def subcommands(parser: argparse.ArgumentParser) -> list[str]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return list(actions[0].choices)


def test_the_table_names_every_command_the_full_parser_has() -> None:
    assert subcommands(build_parser()) == list(COMMAND_NAMES)


@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_one_commands_parser_has_that_command_and_the_full_usage_line(name: str) -> None:
    one = build_parser(name)

    assert subcommands(one) == [name]
    assert one.format_usage() == build_parser().format_usage()


@pytest.mark.parametrize(
    ("argv", "chosen"),
    [
        (["map", "--sha", "HEAD"], "map"),
        (["score-verify"], "score-verify"),
        (["--help"], None),
        (["--version"], None),
        (["-h", "map"], None),
        ([], None),
        (["bogus"], None),
        (["--", "map"], None),
    ],
)
def test_only_a_first_word_naming_a_command_chooses_it(argv: list[str], chosen: str | None) -> None:
    assert chosen_command(argv) == chosen


def test_the_full_help_lists_every_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "oracle_gate", "--help"], capture_output=True, text=True, check=False
    )

    assert out.returncode == 0
    listed = out.stdout.split("positional arguments:", 1)[1]
    for name in COMMAND_NAMES:
        assert re.search(rf"^    {re.escape(name)}(\s|$)", listed, re.MULTILINE), name


@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_each_commands_help_still_works(name: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "oracle_gate", name, "--help"], capture_output=True, text=True, check=False
    )

    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: oracle-gate {name}")


def test_a_usage_error_after_a_command_shows_every_command() -> None:
    """``map --bogus`` is reported by the top-level parser, whose usage line lists the commands."""
    out = subprocess.run(
        [sys.executable, "-m", "oracle_gate", "map", "--bogus"], capture_output=True, text=True, check=False
    )

    assert out.returncode == 3
    assert "{" + ",".join(COMMAND_NAMES) + "}" in " ".join(out.stderr.split())
    assert "unrecognized arguments: --bogus" in out.stderr
