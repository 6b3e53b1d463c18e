"""What every command prints, in one place: lines for a person on standard error, reports and
result lines on standard output or in a file, colour only for a terminal (:mod:`oracle_gate.colour`).

Standard error carries one-line messages, each ``oracle-gate: ...``; an error reads
``oracle-gate: error: <file>: <problem>`` where a file is at fault. Standard output carries what the
command was asked for (a report, a manifest, a command's result lines), so it can be piped.
The streams are looked up when a line is written, so a test that swaps them sees every line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from oracle_gate import colour
from oracle_gate.errors import OutputError
from oracle_gate.escape import log_line

PROGRAM = "oracle-gate"


def say(message: str) -> None:
    """One line on standard error, prefixed with the program's name. Messages quote paths and
    answers the pull request controls, so no line break, ``::`` or ``##[`` in them reaches the
    runner as a workflow command (:func:`oracle_gate.escape.log_line`)."""
    line = f"{PROGRAM}: {log_line(message)}"
    print(colour.message(line) if colour.wanted(sys.stderr) else line, file=sys.stderr)


def error(problem: str) -> None:
    """``oracle-gate: error: <problem>`` (the problem names its file first when a file is at fault)."""
    say(f"error: {problem}")


def warning(problem: str) -> None:
    say(f"warning: {problem}")


def line(text: str = "") -> None:
    """One result line on standard output (``freeze add``'s "froze ...", init's steps)."""
    print(text)


def emit(text: str, output: Path | None = None, *, fmt: str = "") -> None:
    """A report on standard output (a text report's verdict words coloured on a terminal), or in
    ``output``."""
    if output is not None:
        write_file(output, text, what="the report")
        return
    if fmt == "text" and colour.wanted(sys.stdout):
        text = colour.verdicts(text)
    sys.stdout.write(text)
    sys.stdout.flush()


def write_file(path: Path, text: str, *, what: str = "") -> None:
    """Write ``text`` to ``path`` atomically; a failure is one line (exit 3), never a traceback."""
    from oracle_gate.files import write_atomically

    try:
        write_atomically(path, text)
    except OSError as exc:
        target = f"{what} to {path}" if what else str(path)
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from exc
