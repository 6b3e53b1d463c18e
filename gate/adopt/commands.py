"""The ``init`` and ``doctor`` subcommands' arguments; gate/cli.py registers them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gate.adopt.render import SETUPS


def add_init(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "init",
        help="write the gate's workflows and oracle-gate.toml into a repository",
        description="Write a setup's workflows (.github/workflows/) and oracle-gate.toml with its "
        "defaults spelled out, from the repository's default branch, Python version, test "
        "requirements and layout; then print the steps left to do by hand, numbered. Running it "
        "again changes nothing; a file init did not write (or one edited since) is kept unless "
        "--force. Exit 0 done, 1 a file was kept, 3 could not run.",
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the repository's root (default: .)")
    p.add_argument("--setup", choices=list(SETUPS), default="primary", help="which setup (default: primary)")
    p.add_argument("--app-slug", metavar="SLUG", help="your GitHub App's slug (the required check's source)")
    p.add_argument(
        "--ref",
        metavar="SHA",
        help="the gate's release commit to pin (default: the commit this gate was installed from, if any)",
    )
    p.add_argument("--force", action="store_true", help="replace files init did not write, or edited ones")
    p.set_defaults(func=run_init_command)


def run_init_command(args: argparse.Namespace) -> int:
    from gate.adopt.init import run_init

    return run_init(
        args.repo, setup=args.setup, app_slug=args.app_slug, ref=args.ref, force=args.force, out=print
    )
