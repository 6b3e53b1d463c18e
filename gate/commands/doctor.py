"""``oracle-gate doctor``: check through GitHub's API that the required check is real
(:mod:`oracle_gate.adopt.doctor`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import GITHUB_REPO, TEXT_OR_JSON
from oracle_gate.commands.output import line
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    from oracle_gate.adopt import DEFAULT_API_URL, DEFAULT_CHECK_NAME
    from oracle_gate.adopt.render import SETUPS

    p.add_argument("--dir", type=Path, default=Path("."), help="the repository's checkout (default: .)")
    p.add_argument("--setup", choices=list(SETUPS), help="which setup (default: the one init wrote)")
    p.add_argument("--app-slug", metavar="SLUG", help="your App's slug (default: the one init wrote)")
    p.add_argument("--check-name", default=DEFAULT_CHECK_NAME, help=f"default: {DEFAULT_CHECK_NAME}")
    p.add_argument("--api-url", help=f"GitHub's API URL (default: $GITHUB_API_URL, else {DEFAULT_API_URL})")
    p.add_argument(
        "--fix",
        action="store_true",
        help="make what the API can: the environment (default branch only; never its secrets) and a "
        "ruleset requiring the check with your App as its source, where the token may",
    )


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.adopt.doctor import run_doctor

    return ExitStatus(
        run_doctor(
            args.dir,
            token=os.environ.get("GITHUB_TOKEN", "").strip(),
            api_url=args.api_url or os.environ.get("GITHUB_API_URL"),
            repo=args.repo,
            setup=args.setup,
            app_slug=args.app_slug,
            check_name=args.check_name,
            out=line,
            output_format=args.format,
            fix=args.fix,
        )
    )


COMMAND = Subcommand(
    "doctor",
    help="check through GitHub's API that the required check is real",
    description="From the repository's checkout, with a token in GITHUB_TOKEN (never a flag): check "
    "that the check is required on the default branch with your App as its source (branch "
    "protection or a ruleset), that the environment holding the App's key allows the default "
    "branch only, that the App has the permissions and events, that a map exists for the default "
    "branch's head, that the policy and freeze parse, and that the installed workflows are what "
    "init writes for this version (else the difference). One line each, with the fix. Exit 0 "
    "nothing missing, 1 something missing, 3 could not run.",
    options=(GITHUB_REPO, TEXT_OR_JSON),
    add_arguments=add_arguments,
    run=run,
)
