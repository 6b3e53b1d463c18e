"""``oracle-gate``: the command line's entry point (``oracle_gate.cli:main``).

Exit status: 0 ``pass_clean``, 1 ``fail``, 2 ``unscored``, 3 the gate could not run (bad arguments
included: argparse's own usage errors exit 3 here, so they can never be mistaken for a verdict).
The commands are declared in :mod:`oracle_gate.commands` and listed in its table; this module
chooses the one that runs, runs it, and turns what escapes it into one line and exit 3.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from oracle_gate.commands.output import error, say
from oracle_gate.commands.table import COMMAND_NAMES, build_parser
from oracle_gate.errors import GateError
from oracle_gate.exit_status import ExitStatus

__all__ = ["COMMAND_NAMES", "build_parser", "chosen_command", "main"]


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs when its first word names one (options before it, ``--help`` or
    ``--version``, need the full parser), else None."""
    return argv[0] if argv and argv[0] in COMMAND_NAMES else None


def closed_pipe() -> int:
    """The reader of standard output went away (``oracle-gate demo | head``): stop quietly, as
    other commands do, with the status a shell reports for SIGPIPE. Standard output is pointed at
    /dev/null so that the interpreter's last flush does not raise again."""
    import signal

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor behind sys.stdout (run in process)
        pass
    return 128 + signal.SIGPIPE


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(chosen_command(words)).parse_args(words)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return closed_pipe()
    except GateError as exc:
        error(str(exc))
        return ExitStatus.CANNOT_RUN
    except Exception as exc:  # a broken gate must never exit 0
        if os.environ.get("ORACLE_GATE_DEBUG"):
            raise
        say(f"internal error: {type(exc).__name__}: {exc} (set ORACLE_GATE_DEBUG=1 for a traceback)")
        return ExitStatus.CANNOT_RUN
