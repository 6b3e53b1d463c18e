"""``oracle-gate surface``: the command line of the freeze surface report (:mod:`oracle_gate.surface`).

Registered by :mod:`oracle_gate.cli`; everything heavy is imported when the command runs, so the CLI's
start stays as light as before.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from oracle_gate.errors import OutputError, UsageError

SURFACE_FORMATS = ("markdown", "json")


def add_surface(sub: Any) -> None:
    """Add the ``surface`` command to the CLI's subparsers."""
    p = sub.add_parser(
        "surface",
        help="report the freeze surface: the code only frozen tests observe",
        description="Read a parent coverage map whole and report, per file, the lines only frozen tests "
        "observe; per freeze entry, the frozen-only lines it observes, its age (from its bound "
        "commit's date), owner and expiry; and the share of measured lines that are frozen-only. "
        "Exit 0 report written, 3 the report could not be made.",
    )
    p.add_argument(
        "--coverage", type=Path, required=True, metavar="MAP", help="the map (data file or manifest)"
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
    p.add_argument("--rev", help="the commit the map measures (default: its manifest's, else HEAD)")
    p.add_argument("--format", choices=SURFACE_FORMATS, default="markdown", help="default: markdown")
    p.add_argument(
        "--badge",
        action="store_true",
        help="write shields.io endpoint JSON of the frozen-only share instead of the report",
    )
    p.add_argument("--output", type=Path, help="write to this file instead of standard output")
    p.add_argument(
        "--today", metavar="YYYY-MM-DD", help="the date ages and expiry are counted to (default: UTC today)"
    )
    p.set_defaults(func=run_surface_command)


def run_surface_command(args: argparse.Namespace) -> int:
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
    _emit(text, args.output)
    return 0


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from oracle_gate.files import write_atomically

    try:
        write_atomically(output, text)
    except OSError as exc:
        raise OutputError(f"cannot write the report to {output}: {exc.strerror or exc}") from exc
