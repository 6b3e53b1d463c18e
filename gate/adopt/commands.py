"""The ``init`` and ``doctor`` subcommands' arguments; gate/cli.py registers them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from oracle_gate.adopt.render import DEFAULT_MAP_REPEAT, SETUPS


def add_init(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "init",
        help="write the gate's workflows and oracle-gate.toml into a repository",
        description="Write a setup's workflows (.github/workflows/) and oracle-gate.toml with its "
        "defaults spelled out, from the repository's default branch, Python version, test "
        "requirements and layout; then print the steps left to do by hand, numbered. Running it "
        "again changes nothing; a file init did not write (or one edited since) is kept unless "
        "--force. With no release commit to pin (--ref, or the commit this gate was installed from) "
        "it writes nothing and exits 3: a placeholder pin is no check. Exit 0 done, 1 a file was "
        "kept, 3 could not run.",
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
    p.add_argument("--format", choices=["text", "json"], default="text", help="output (default: text)")
    p.add_argument(
        "--map-repeat",
        type=int,
        default=DEFAULT_MAP_REPEAT,
        metavar="N",
        help=f"how many times the map workflows run the parent's tests (oracle-gate map --repeat N; "
        f"default: {DEFAULT_MAP_REPEAT}): what differed between runs never makes a line live (contract "
        "v3.4), at N times the cost; 1 for a suite (or shard) whose plain run takes over ~5 minutes",
    )
    p.set_defaults(func=run_init_command)


def run_init_command(args: argparse.Namespace) -> int:
    from oracle_gate.adopt.init import run_init

    return run_init(
        args.repo,
        setup=args.setup,
        app_slug=args.app_slug,
        ref=args.ref,
        force=args.force,
        out=print,
        map_repeat=args.map_repeat,
        output_format=args.format,
    )


def add_doctor(sub: argparse._SubParsersAction[Any]) -> None:
    from oracle_gate.adopt import DEFAULT_API_URL, DEFAULT_CHECK_NAME

    p = sub.add_parser(
        "doctor",
        help="check through GitHub's API that the required check is real",
        description="From the repository's checkout, with a token in GITHUB_TOKEN (never a flag): check "
        "that the check is required on the default branch with your App as its source (branch "
        "protection or a ruleset), that the environment holding the App's key allows the default "
        "branch only, that the App has the permissions and events, that a map exists for the default "
        "branch's head, that the policy and freeze parse, and that the installed workflows are what "
        "init writes for this version (else the difference). One line each, with the fix. Exit 0 "
        "nothing missing, 1 something missing, 3 could not run.",
    )
    p.add_argument("--dir", type=Path, default=Path("."), help="the repository's checkout (default: .)")
    p.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: the checkout's origin)")
    p.add_argument("--setup", choices=list(SETUPS), help="which setup (default: the one init wrote)")
    p.add_argument("--app-slug", metavar="SLUG", help="your App's slug (default: the one init wrote)")
    p.add_argument("--check-name", default=DEFAULT_CHECK_NAME, help=f"default: {DEFAULT_CHECK_NAME}")
    p.add_argument("--api-url", help=f"GitHub's API URL (default: $GITHUB_API_URL, else {DEFAULT_API_URL})")
    p.add_argument("--format", choices=["text", "json"], default="text", help="output (default: text)")
    p.add_argument(
        "--fix",
        action="store_true",
        help="make what the API can: the environment (default branch only; never its secrets) and a "
        "ruleset requiring the check with your App as its source, where the token may",
    )
    p.set_defaults(func=run_doctor_command)


def run_doctor_command(args: argparse.Namespace) -> int:
    import os

    from oracle_gate.adopt.doctor import run_doctor

    return run_doctor(
        args.dir,
        token=os.environ.get("GITHUB_TOKEN", "").strip(),
        api_url=args.api_url or os.environ.get("GITHUB_API_URL"),
        repo=args.repo,
        setup=args.setup,
        app_slug=args.app_slug,
        check_name=args.check_name,
        out=print,
        output_format=args.format,
        fix=args.fix,
    )
