"""The table of ``oracle-gate``'s commands, and the parser built from it.

Each command is named here with the module that declares it (``COMMAND``, a
:class:`~oracle_gate.commands.declare.Subcommand`). A module is imported only when its command runs, or
for the full parser (``--help``, a usage error): ``oracle-gate map`` then does not pay for importing
the judge, the adoption templates or the scoring run (issue 19: map's cost on Python 3.11). This is the
only place that adds subparsers or attaches the shared options.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module
from typing import NoReturn

from oracle_gate import __version__
from oracle_gate.commands.declare import Subcommand
from oracle_gate.exit_status import ExitStatus

#: Every command, in the order ``--help`` lists them, with the module that declares it.
TABLE: tuple[tuple[str, str], ...] = (
    ("check", "oracle_gate.commands.check"),
    ("demo", "oracle_gate.commands.demo"),
    ("map", "oracle_gate.commands.map"),
    ("publish", "oracle_gate.commands.publish"),
    ("serve", "oracle_gate.commands.serve"),
    ("app-manifest", "oracle_gate.commands.app_manifest"),
    ("surface", "oracle_gate.commands.surface"),
    ("init", "oracle_gate.commands.init"),
    ("doctor", "oracle_gate.commands.doctor"),
    ("freeze", "oracle_gate.commands.freeze"),  # v3.7 / issue 18: the freeze's life cycle
    ("score", "oracle_gate.commands.score"),
    ("score-verify", "oracle_gate.commands.score_verify"),
)
COMMAND_NAMES = tuple(name for name, _ in TABLE)


class Parser(argparse.ArgumentParser):
    """argparse's usage errors exit 3 here, so they can never be mistaken for a verdict."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitStatus.CANNOT_RUN, f"{self.prog}: error: {message}\n")


def declared(name: str) -> Subcommand:
    """The declaration of command ``name``, its module imported now."""
    module = dict(TABLE)[name]
    command = getattr(import_module(module), "COMMAND", None)
    if not isinstance(command, Subcommand) or command.name != name:
        raise TypeError(f"{module} must declare COMMAND = Subcommand({name!r}, ...)")
    return command


def register(sub: argparse._SubParsersAction[Parser], command: Subcommand) -> None:
    """Add ``command``'s parser: its shared options first, then its own arguments (or its commands)."""
    parser = sub.add_parser(
        command.name, help=command.help, description=command.description, usage=command.usage
    )
    for option in command.options:
        option.attach(parser)
    command.add_arguments(parser)
    if command.subcommands:
        inner = parser.add_subparsers(dest=f"{command.name}_command", required=True, parser_class=Parser)
        for child in command.subcommands:
            register(inner, child)
    else:
        parser.set_defaults(func=command.run)


def build_parser(command: str | None = None) -> Parser:
    """The parser of every command, or (``command`` one of :data:`COMMAND_NAMES`) of that command
    alone: the one that will run, its module the only one imported. The one-command parser still
    names every command in its usage line (argparse's default ``metavar``, spelled out), so a usage
    error reads the same whichever was built."""
    parser = Parser(prog="oracle-gate", description="Decide whether an agent-written change may be scored.")
    parser.add_argument("--version", action="version", version=f"oracle-gate {__version__}")
    every = None if command is None else "{" + ",".join(COMMAND_NAMES) + "}"
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar=every)
    for name in COMMAND_NAMES:
        if command is None or name == command:
            register(sub, declared(name))
    return parser
