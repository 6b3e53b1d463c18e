"""``oracle-gate score``: the command line of the scoring run (registered in :mod:`oracle_gate.cli`).

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

from oracle_gate.judge.verdict import EXIT_STATUS

FORMATS = ("text", "json", "markdown")


def add_score(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="judge the change, then run head's tests under the parent's rules (SCORING.md)",
        description="Judge the change from --base to --head; when the diff verdict is pass_clean, run "
        "head's tests twice in a temporary worktree (the parent's freeze as a collection filter, the "
        "harness first, the second run in reverse order within each file) and compare them with the "
        "parent's map manifest test by test. Writes score.json. Head's code runs: run this where no "
        "token or key is reachable (TRUST.md 13). Exit 0 pass_clean, 1 fail, 2 unscored, 3 could not run.",
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
    p.add_argument("--base", required=True, help="the parent commit")
    p.add_argument("--head", required=True, help="the candidate commit")
    p.add_argument("--coverage", type=Path, required=True, help="the parent's map (its manifest beside it)")
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("--output", type=Path, help="write the report to this file instead of standard output")
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
    p.set_defaults(func=run_score_command)


def run_score_command(args: argparse.Namespace) -> int:
    import json

    from oracle_gate.pytest_options import randomly_note
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
    _write(args.score_json, json.dumps(score_document(result), indent=2) + "\n")
    _emit(format_score(result, args.format), args.output)
    return int(EXIT_STATUS[result.score.score])


def add_score_verify(sub: Any) -> None:
    p = sub.add_parser(
        "score-verify",
        help="check an uploaded score.json against what this (trusted) run knows, and print the score",
        description="The trusted stage of the scoring run (TRUST.md 13): compute the diff verdict here, "
        "read the parent's facts from --coverage, and accept the report only when it is about this "
        "(parent, head, map manifest, diff verdict); the score is then recomputed from the report's "
        "per-test outcomes. A report that does not check is unscored (score_report_rejected). Runs no "
        "code of the change. Exit 0 pass_clean, 1 fail, 2 unscored, 3 could not run.",
    )
    p.add_argument("--report", type=Path, required=True, help="the uploaded score.json")
    p.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
    p.add_argument("--base", required=True, help="the parent commit")
    p.add_argument("--head", required=True, help="the commit the report must be about")
    p.add_argument("--coverage", type=Path, required=True, help="the parent's map from the trusted store")
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("--output", type=Path, help="write the report to this file instead of standard output")
    p.set_defaults(func=run_score_verify_command)


def run_score_verify_command(args: argparse.Namespace) -> int:
    from oracle_gate.score.report import format_score
    from oracle_gate.score.trusted import verify_uploaded

    result = verify_uploaded(args.report, args.repo, args.base, args.head, args.coverage)
    _emit(format_score(result, args.format), args.output)
    return int(EXIT_STATUS[result.score.score])


def _emit(text: str, output: Path | None) -> None:
    """The report on standard output, or in ``output``."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        _write(output, text)


def _write(path: Path, text: str) -> None:
    from oracle_gate.errors import OutputError
    from oracle_gate.files import write_atomically

    try:
        write_atomically(path, text)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc


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
