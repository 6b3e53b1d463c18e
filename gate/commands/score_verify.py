"""``oracle-gate score-verify``: the trusted stage of the scoring run (:mod:`oracle_gate.score.trusted`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO, REPORT_FORMAT, REPORT_OUTPUT
from oracle_gate.commands.output import emit
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--report", type=Path, required=True, help="the uploaded score.json")
    p.add_argument("--base", required=True, help="the parent commit")
    p.add_argument("--head", required=True, help="the commit the report must be about")
    p.add_argument("--coverage", type=Path, required=True, help="the parent's map from the trusted store")


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.judge.verdict import EXIT_STATUS
    from oracle_gate.score.report import format_score
    from oracle_gate.score.trusted import verify_uploaded

    result = verify_uploaded(args.report, args.repo, args.base, args.head, args.coverage)
    emit(format_score(result, args.format), args.output)
    return EXIT_STATUS[result.score.score]


COMMAND = Subcommand(
    "score-verify",
    help="check an uploaded score.json against what this (trusted) run knows, and print the score",
    description="The trusted stage of the scoring run (TRUST.md 13): compute the diff verdict here, "
    "read the parent's facts from --coverage, and accept the report only when it is about this "
    "(parent, head, map manifest, diff verdict); the score is then recomputed from the report's "
    "per-test outcomes. A report that does not check is unscored (score_report_rejected). Runs no "
    "code of the change. Exit 0 pass_clean, 1 fail, 2 unscored, 3 could not run.",
    options=(REPO, REPORT_FORMAT, REPORT_OUTPUT),
    add_arguments=add_arguments,
    run=run,
)
