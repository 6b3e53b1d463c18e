"""``oracle-gate demo``: the gate on a built-in example (:mod:`oracle_gate.demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPORT_FORMAT
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build the example in DIR and keep it (default: a temporary directory)",
    )


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.demo import run_demo

    return ExitStatus(run_demo(keep=args.keep, fmt=args.format))


COMMAND = Subcommand(
    "demo",
    help="run the gate on a built-in example (no GitHub, no network)",
    description="Build a small example repository in a temporary directory, measure "
    "its per-test coverage with coverage.py and run the gate on three "
    "changes: one pass_clean, one unscored, one fail.",
    options=(REPORT_FORMAT.but(help="how to print each verdict"),),
    add_arguments=add_arguments,
    run=run,
)
