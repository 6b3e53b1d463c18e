"""``oracle-gate surface``: the freeze surface report (:mod:`oracle_gate.surface`).

Everything heavy is imported when the command runs, so the CLI's start stays light.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO, REPORT_FORMAT, REPORT_OUTPUT
from oracle_gate.commands.output import emit
from oracle_gate.errors import UsageError
from oracle_gate.exit_status import ExitStatus

SURFACE_FORMATS = ("markdown", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--coverage", type=Path, required=True, metavar="MAP", help="the map (data file or manifest)"
    )
    p.add_argument("--rev", help="the commit the map measures (default: its manifest's, else HEAD)")
    p.add_argument(
        "--badge",
        action="store_true",
        help="write shields.io endpoint JSON of the frozen-only share instead of the report",
    )
    p.add_argument(
        "--today", metavar="YYYY-MM-DD", help="the date ages and expiry are counted to (default: UTC today)"
    )


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate import surface
    from oracle_gate.judge.surface import badge, parse_date

    today = dt.datetime.now(dt.UTC).date()
    if args.today is not None:
        parsed = parse_date(args.today)
        if parsed is None:
            raise UsageError(f"--today must be a date YYYY-MM-DD, got {args.today!r}")
        today = parsed
    report = surface.read_surface(args.repo, args.coverage, args.rev, today)
    if args.badge:
        text = json.dumps(badge(report.surface.share)) + "\n"
    elif args.format == "json":
        text = json.dumps(surface.to_json(report), indent=2) + "\n"
    else:
        text = surface.to_markdown(report)
    emit(text, args.output)
    return ExitStatus.OK


COMMAND = Subcommand(
    "surface",
    help="report the freeze surface: the code only frozen tests observe",
    description="Read a parent coverage map whole and report, per file, the lines only frozen tests "
    "observe; per freeze entry, the frozen-only lines it observes, its age (from its bound "
    "commit's date), owner and expiry; and the share of measured lines that are frozen-only. "
    "Exit 0 report written, 3 the report could not be made.",
    options=(
        REPO,
        REPORT_FORMAT.but(choices=SURFACE_FORMATS, default="markdown", help="default: markdown"),
        REPORT_OUTPUT,
    ),
    add_arguments=add_arguments,
    run=run,
)
