"""The options several commands take, each defined once; a command lists the ones it takes in its
:class:`~oracle_gate.commands.declare.Subcommand` and the table attaches them before its own arguments."""

from __future__ import annotations

from pathlib import Path

from oracle_gate.commands.declare import Option

#: The reports ``check`` and ``score`` write (:func:`oracle_gate.render.formats.format_verdict`).
REPORT_FORMATS = ("text", "json", "markdown")

#: The checkout a command reads (``check``, ``map``, ``freeze``, ``init``, ``score``, ...).
REPO = Option(("--repo",), {"type": Path, "default": Path("."), "help": "the git repository (default: .)"})

#: The repository on GitHub (``publish``, ``doctor``): a different thing under the same flag.
GITHUB_REPO = Option(
    ("--repo",), {"metavar": "OWNER/NAME", "help": "the repository (default: the checkout's origin)"}
)

#: The format of a verdict or score report.
REPORT_FORMAT = Option(
    ("--format",), {"choices": REPORT_FORMATS, "default": "text", "help": "report format (default: text)"}
)

#: Where a report goes instead of standard output.
REPORT_OUTPUT = Option(
    ("--output",), {"type": Path, "help": "write the report to this file instead of standard output"}
)

#: The output of a command that prints lines for a person or one JSON document (init, doctor, freeze list).
TEXT_OR_JSON = Option(
    ("--format",), {"choices": ("text", "json"), "default": "text", "help": "output (default: text)"}
)
