"""``oracle-gate score``: the scoring run (:mod:`oracle_gate.score.run`).

Progress goes to standard error: on a terminal one line rewritten in place, otherwise (CI) one
line per phase. The score's exit status is ``check``'s: 0 ``pass_clean``, 1 ``fail``, 2
``unscored``, 3 the gate could not run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO, REPORT_FORMAT, REPORT_OUTPUT
from oracle_gate.commands.output import emit, write_file
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", required=True, help="the parent commit")
    p.add_argument("--head", required=True, help="the candidate commit")
    p.add_argument("--coverage", type=Path, required=True, help="the parent's map (its manifest beside it)")
    p.add_argument(
        "--score-json",
        type=Path,
        default=Path("score.json"),
        help="where score.json goes (default: ./score.json)",
    )
    p.add_argument(
        "--copy-ignored",
        action="append",
        metavar="PATH",
        help="copy this git-ignored file the build writes (e.g. src/pkg/_version.py) from the checkout "
        "into head's worktree (repeatable; as map --copy-ignored)",
    )
    p.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # the sandbox's checkout of head
    p.add_argument(
        "--wall-seconds", type=float, default=3600.0, help="wall-clock limit of the test runs (default 3600)"
    )


def run(args: argparse.Namespace) -> ExitStatus:
    import json

    from oracle_gate.judge.verdict import EXIT_STATUS
    from oracle_gate.maps.pytest_options import randomly_note
    from oracle_gate.score.report import format_score, score_document
    from oracle_gate.score.run import ScoreRequest, run_score
    from oracle_gate.score.sandbox import not_traceable

    not_traceable()  # TRUST.md 15: head's tests, its children, cannot trace what reports their outcomes
    if (switched_off := randomly_note()) is not None:
        print(f"oracle-gate score: {switched_off}", file=sys.stderr, flush=True)
    result = run_score(
        ScoreRequest(
            repo=args.repo,
            base=args.base,
            head=args.head,
            coverage=args.coverage,
            tree=args.tree,
            wall_seconds=args.wall_seconds,
            copy_ignored=tuple(args.copy_ignored or ()),
        ),
        progress=progress_printer(sys.stderr.isatty()),
    )
    write_file(args.score_json, json.dumps(score_document(result), indent=2) + "\n")
    emit(format_score(result, args.format), args.output)
    return EXIT_STATUS[result.score.score]


def progress_printer(
    tty: bool, write: Callable[[str], Any] | None = None
) -> Callable[[str, int, int | None], None]:
    """A live line on a terminal; one line per phase otherwise (to standard error as it is when
    the line is written)."""
    last: list[str] = []

    def out(text: str) -> None:
        (write or sys.stderr.write)(text)

    def show(phase: str, done: int, total: int | None) -> None:
        if tty:
            count = f" {done}/{total}" if total else (f" {done}" if done else "")
            out(f"\r\x1b[2Koracle-gate score: {phase}{count}" + ("\n" if phase == "compare" else ""))
        elif not last or last[-1] != phase:
            last.append(phase)
            out(f"oracle-gate score: {phase}\n")

    return show


COMMAND = Subcommand(
    "score",
    help="judge the change, then run head's tests under the parent's rules (SCORING.md)",
    description="Judge the change from --base to --head; when the diff verdict is pass_clean, run "
    "head's tests twice in a temporary worktree (the parent's freeze as a collection filter, the "
    "harness first, the second run in reverse order within each file) and compare them with the "
    "parent's map manifest test by test. Writes score.json. Head's code runs: run this where no "
    "token or key is reachable (TRUST.md 13). Exit 0 pass_clean, 1 fail, 2 unscored, 3 could not run.",
    options=(REPO, REPORT_FORMAT, REPORT_OUTPUT),
    add_arguments=add_arguments,
    run=run,
)
