"""``oracle-gate check``: judge the change from --base to --head."""

from __future__ import annotations

import argparse
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO, REPORT_FORMAT, REPORT_FORMATS, REPORT_OUTPUT
from oracle_gate.commands.output import emit, say
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--base", required=True, help="the parent commit: the trusted commit the change applies to"
    )
    p.add_argument("--head", required=True, help="the candidate commit")
    p.add_argument(
        "--coverage",
        type=Path,
        help="the parent's per-test coverage map: a coverage.py data "
        "file with test contexts, a JSON map, or a map manifest from 'oracle-gate map' (default: the "
        "map 'oracle-gate map' wrote for --base in its default store, ~/.cache/oracle-gate/maps)",
    )
    p.add_argument("--coverage-sha", help="the commit the map was measured on (when it has no manifest)")
    p.add_argument(
        "--protect",
        action="append",
        default=[],
        metavar="GLOB",
        help="an extra protected glob (repeatable); it can only add protection",
    )
    p.add_argument(
        "--allow-failing-parent",
        action="store_true",
        help="use a map whose manifest records a failing parent test run",
    )
    for name in REPORT_FORMATS:
        p.add_argument(
            f"--{name}",
            type=Path,
            metavar="FILE",
            dest=f"{name}_file",
            help=f"also write the {name} report to FILE (several formats in one run)",
        )
    from oracle_gate.approvals_file import add_approval_arguments

    add_approval_arguments(p)


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.maps.reader.mapbytes import EarlyHash

    if args.coverage is None:
        from oracle_gate.maps.store import stored_map

        args.coverage = stored_map(args.repo, args.base)
        if args.coverage is not None:
            say(f"using the map of {args.base} from the map store: {args.coverage}")
    # Hashing a large map takes a core for a while: start it before importing the gate (~40 ms).
    early_hash = EarlyHash(args.coverage) if args.coverage is not None else None
    from oracle_gate.approvals_file import approval_request
    from oracle_gate.check import CheckRequest, run_check
    from oracle_gate.judge.verdict import ReasonCode

    verdict = run_check(
        CheckRequest(
            repo=args.repo,
            base=args.base,
            head=args.head,
            coverage=args.coverage,
            coverage_sha=args.coverage_sha,
            extra_protected=tuple(args.protect),
            allow_failing_parent=args.allow_failing_parent,
            **approval_request(args),
        ),
        early_hash=early_hash,
    )
    for reason in verdict.reasons:
        if reason.code == ReasonCode.ORACLE_INCOMPLETE:
            say(reason.detail)
    from oracle_gate.render.formats import format_verdict

    emit(format_verdict(verdict, args.format), args.output, fmt=args.format)
    for name in REPORT_FORMATS:
        target = getattr(args, f"{name}_file")
        if target is not None:
            emit(format_verdict(verdict, name), target)
    return verdict.exit_status


COMMAND = Subcommand(
    "check",
    help="judge the change from --base to --head",
    description="Judge the change from --base to --head against the parent's oracle "
    "and per-test coverage map. Exit 0 pass_clean, 1 fail, 2 unscored, "
    "3 the gate could not run.",
    options=(REPO, REPORT_FORMAT, REPORT_OUTPUT),
    add_arguments=add_arguments,
    run=run,
)
