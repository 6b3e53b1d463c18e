"""``oracle-gate init``: write the gate's workflows and oracle-gate.toml (:mod:`oracle_gate.adopt.init`)."""

from __future__ import annotations

import argparse

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO, TEXT_OR_JSON
from oracle_gate.commands.output import line
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    from oracle_gate.adopt.render import DEFAULT_MAP_REPEAT, SETUPS

    p.add_argument("--setup", choices=list(SETUPS), default="primary", help="which setup (default: primary)")
    p.add_argument("--app-slug", metavar="SLUG", help="your GitHub App's slug (the required check's source)")
    p.add_argument(
        "--ref",
        metavar="SHA",
        help="the gate's release commit to pin (default: the commit this gate was installed from, if any)",
    )
    p.add_argument("--force", action="store_true", help="replace files init did not write, or edited ones")
    p.add_argument(
        "--map-repeat",
        type=int,
        default=DEFAULT_MAP_REPEAT,
        metavar="N",
        help=f"how many times the map workflows run the parent's tests (oracle-gate map --repeat N; "
        f"default: {DEFAULT_MAP_REPEAT}): what differed between runs never makes a line live (contract "
        "v3.4), at N times the cost; 1 for a suite (or shard) whose plain run takes over ~5 minutes",
    )


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.adopt.init import run_init

    return ExitStatus(
        run_init(
            args.repo,
            setup=args.setup,
            app_slug=args.app_slug,
            ref=args.ref,
            force=args.force,
            out=line,
            map_repeat=args.map_repeat,
            output_format=args.format,
        )
    )


COMMAND = Subcommand(
    "init",
    help="write the gate's workflows and oracle-gate.toml into a repository",
    description="Write a setup's workflows (.github/workflows/) and oracle-gate.toml with its "
    "defaults spelled out, from the repository's default branch, Python version, test "
    "requirements and layout; then print the steps left to do by hand, numbered. Running it "
    "again changes nothing; a file init did not write (or one edited since) is kept unless "
    "--force. With no release commit to pin (--ref, or the commit this gate was installed from) "
    "it writes nothing and exits 3: a placeholder pin is no check. Exit 0 done, 1 a file was "
    "kept, 3 could not run.",
    options=(REPO, TEXT_OR_JSON),
    add_arguments=add_arguments,
    run=run,
)
