"""How a subcommand of ``oracle-gate`` is declared: one :class:`Subcommand` value per command module.

Every module of :mod:`oracle_gate.commands` that the table (:mod:`oracle_gate.commands.table`)
names ends with ``COMMAND = Subcommand(...)``: its name, its help, the shared options it takes
(:mod:`oracle_gate.commands.options`, attached by the table before the command's own), a function
adding its own arguments, and a function running it that returns an
:class:`~oracle_gate.exit_status.ExitStatus`. A command with commands of its own (``freeze add``)
declares them as ``subcommands`` the same way. This module imports nothing heavy: the table reads
a command's declaration only when that command (or ``--help``) is asked for.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from oracle_gate.exit_status import ExitStatus

AddArguments = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], ExitStatus]


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """A command whose only arguments are its shared options (or none)."""


@dataclass(frozen=True)
class Option:
    """An option more than one command takes, defined once: its flags and ``add_argument``'s settings."""

    flags: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)

    def but(self, **changes: Any) -> Option:
        """The same option with some settings changed (``required``, its ``help``)."""
        return dataclasses.replace(self, settings={**self.settings, **changes})

    def attach(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(*self.flags, **self.settings)


@dataclass(frozen=True)
class Subcommand:
    """One subcommand: what the table registers, and the function the dispatcher runs."""

    name: str
    help: str
    description: str | None = None
    run: Run | None = None  # None only for a command made of subcommands
    add_arguments: AddArguments = no_arguments
    options: tuple[Option, ...] = ()
    usage: str | None = None
    subcommands: tuple[Subcommand, ...] = ()

    def __post_init__(self) -> None:
        if (self.run is None) == (not self.subcommands):
            raise ValueError(f"command {self.name!r}: declare either run or subcommands, not both or neither")
