"""``oracle-gate``: the command line.

Exit status: 0 ``pass_clean``, 1 ``fail``, 2 ``unscored``, 3 the gate could
not run (bad arguments included: argparse's own usage errors exit 3 here, so
they can never be mistaken for a verdict).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import NoReturn

from oracle_gate import __version__
from oracle_gate.errors import GateError, OutputError
from oracle_gate.exit_status import ExitStatus

FORMATS = ("text", "json", "markdown")


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitStatus.CANNOT_RUN, f"{self.prog}: error: {message}\n")


def say(message: str) -> None:
    """One line on standard error, prefixed with the program's name. Messages quote paths and
    answers the pull request controls, so no line break, ``::`` or ``##[`` in them reaches the
    runner as a workflow command (:func:`oracle_gate.escape.log_line`)."""
    from oracle_gate import colour
    from oracle_gate.escape import log_line

    line = f"oracle-gate: {log_line(message)}"
    print(colour.message(line) if colour.wanted(sys.stderr) else line, file=sys.stderr)


def emit(text: str, output: Path | None, *, fmt: str = "") -> None:
    if output is None:
        from oracle_gate import colour

        if fmt == "text" and colour.wanted(sys.stdout):
            text = colour.verdicts(text)
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            from oracle_gate.files import write_atomically

            write_atomically(output, text)
        except OSError as exc:
            raise OutputError(f"cannot write the report to {output}: {exc.strerror or exc}") from exc


def add_check(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "check",
        help="judge the change from --base to --head",
        description="Judge the change from --base to --head against the parent's oracle "
        "and per-test coverage map. Exit 0 pass_clean, 1 fail, 2 unscored, "
        "3 the gate could not run.",
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
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
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("--output", type=Path, help="write the report to this file instead of standard output")
    for name in FORMATS:
        p.add_argument(
            f"--{name}",
            type=Path,
            metavar="FILE",
            dest=f"{name}_file",
            help=f"also write the {name} report to FILE (several formats in one run)",
        )
    from oracle_gate.approvals_file import add_approval_arguments

    add_approval_arguments(p)
    p.set_defaults(func=run_check_command)


def run_check_command(args: argparse.Namespace) -> int:
    from oracle_gate.maps.mapbytes import EarlyHash

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
    from oracle_gate.report import format_verdict

    emit(format_verdict(verdict, args.format), args.output, fmt=args.format)
    for name in FORMATS:
        target = getattr(args, f"{name}_file")
        if target is not None:
            emit(format_verdict(verdict, name), target)
    return verdict.exit_status


def add_demo(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "demo",
        help="run the gate on a built-in example (no GitHub, no network)",
        description="Build a small example repository in a temporary directory, measure "
        "its per-test coverage with coverage.py and run the gate on three "
        "changes: one pass_clean, one unscored, one fail.",
    )
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build the example in DIR and keep it (default: a temporary directory)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="how to print each verdict")
    p.set_defaults(func=run_demo_command)


def run_demo_command(args: argparse.Namespace) -> int:
    from oracle_gate.demo import run_demo

    return run_demo(keep=args.keep, fmt=args.format)


def add_map(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "map",
        help="measure the per-test coverage map of a commit, bound to its SHA",
        description="Check REV out into a temporary git worktree (never the working tree), run the "
        "test command there with one coverage context per test, and write FILE plus "
        "FILE.manifest.json binding it to the full SHA. With --combine, merge shard maps "
        "measured at one SHA instead. Exit 0 map written, 1 map written but the parent's "
        "tests failed (flagged: check uses it only with --allow-failing-parent) or, with "
        "--fail-on-drift, drift found (the map is written, not flagged), 3 no map.",
        usage="%(prog)s --repo DIR --sha REV [--out FILE] [--shard I/N] [--repeat N]\n"
        "       [--copy-ignored PATH] [--previous MANIFEST [--fail-on-drift]] [-- COMMAND ...]\n"
        "       %(prog)s --combine OUT SHARD [SHARD ...]",
    )
    p.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
    p.add_argument("--sha", help="the commit to measure (any revision; the manifest records the full SHA)")
    p.add_argument(
        "--out",
        type=Path,
        help="the coverage data file to write, manifest beside it (default: outside the checkout, "
        "$ORACLE_GATE_MAPS/SHA.coverage or ~/.cache/oracle-gate/maps/SHA.coverage)",
    )
    p.add_argument("--shard", metavar="I/N", help="measure only shard I of N (tests split by file hash)")
    p.add_argument(
        "--combine",
        type=Path,
        metavar="OUT",
        help="merge the given shard maps into OUT (one SHA, one --repeat; their unstable observations kept)",
    )
    p.add_argument(
        "--repeat",
        metavar="N",
        help="run the tests N times (default 1); the manifest records what differed between runs as "
        "'unstable', which check does not count for live tests (contract v3.4); costs N test runs; "
        "every shard of one map needs the same N (--combine refuses a mix)",
    )
    p.add_argument(
        "--copy-ignored",
        action="append",
        metavar="PATH",
        help="copy this git-ignored file the build writes (e.g. src/pkg/_version.py) from the checkout "
        "into the map's worktree (repeatable)",
    )
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress: tests done of collected and the time elapsed (default auto: a live line on a "
        "terminal, else a line every 30 s; never: none)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show the test command's own output")
    p.add_argument(
        "--previous",
        type=Path,
        metavar="MANIFEST",
        help="the manifest of the last map of the default branch: report frozen tests whose observed "
        "lines shrank by more than half while their files did not change, and live tests that "
        "disappeared",
    )
    p.add_argument(
        "--fail-on-drift",
        action="store_true",
        help="with --previous: drift (or drift that cannot be computed) makes the exit status 1; the map "
        "is still written and not flagged (it is a true map of the commit, and check uses it)",
    )
    p.add_argument(
        "args",
        nargs="*",
        metavar="COMMAND | SHARD",
        help="after --: the test command (default: python -m pytest -q -p no:cacheprovider -p no:randomly, "
        "measured by oracle-gate's collector: sys.monitoring on Python 3.12+, coverage.py's C tracer on "
        "3.11; when the coverage configuration needs coverage.py (plugins, patch, concurrency = "
        "multiprocessing, greenlets on 3.11): python -m pytest -q -p no:cacheprovider -p no:randomly --cov "
        "--cov-context=test --cov-report=); with --combine: the shard maps",
    )
    p.set_defaults(func=run_map_command)


def run_map_command(args: argparse.Namespace) -> int:
    from oracle_gate.maps.build import run_map_cli

    return run_map_cli(args, say)


def add_publish(sub: argparse._SubParsersAction[Parser]) -> None:
    from oracle_gate.github.defaults import DEFAULT_API_URL, DEFAULT_CHECK_NAME, CommentMode

    p = sub.add_parser(
        "publish",
        help="post a stored verdict.json on a pull request (stage 2 of the fork-safe workflow)",
        description="Post a verdict.json computed by an earlier run as the check run and sticky comment "
        "of pull request N. The token is read from the environment variable GITHUB_TOKEN, never from a "
        "flag. The stored verdict comes from a run the pull request could influence, so it is checked "
        "first: the pull request's head must be --head-sha (else nothing is posted), and when the pull "
        "request changes a file under .github/workflows/ a non-fail verdict is replaced by fail. "
        "Exit 0 pass_clean, 1 fail, 2 unscored (the verdict posted), 3 nothing could be posted.",
    )
    p.add_argument("--verdict", type=Path, required=True, metavar="FILE", help="the stored verdict.json")
    p.add_argument("--repo", required=True, metavar="OWNER/NAME", help="the repository of the pull request")
    p.add_argument("--pr", type=int, required=True, metavar="N", help="the pull request's number")
    p.add_argument(
        "--head-sha", required=True, metavar="SHA", help="the head commit the verdict was computed for"
    )
    p.add_argument(
        "--check-name",
        default=DEFAULT_CHECK_NAME,
        help=f"name of the check run (default: {DEFAULT_CHECK_NAME})",
    )
    p.add_argument(
        "--comment",
        choices=[str(mode) for mode in CommentMode],
        default=str(CommentMode.ON_CHANGE),
        help=f"sticky comment mode, as the action's input (default: {CommentMode.ON_CHANGE})",
    )
    p.add_argument("--api-url", help=f"GitHub's API URL (default: $GITHUB_API_URL, else {DEFAULT_API_URL})")
    p.add_argument(
        "--comment-author",
        metavar="LOGIN",
        help="the login the token comments as, as the action's input: only its marker comment is the "
        "sticky one. Set it to <slug>[bot] for a GitHub App installation token (GET /user names no one)",
    )
    p.set_defaults(func=run_publish_command)


def run_publish_command(args: argparse.Namespace) -> int:
    import re
    import uuid

    from oracle_gate import report
    from oracle_gate.action.publish_stored import publish_stored, read_stored_verdict
    from oracle_gate.errors import UsageError
    from oracle_gate.github.defaults import DEFAULT_API_URL, CommentMode, is_repository
    from oracle_gate.github.publisher import Publisher, make_client, open_repo

    token = os.environ.get("GITHUB_TOKEN", "").strip()
    if not token:
        raise UsageError("GITHUB_TOKEN is not set (the token is read from the environment, never a flag)")
    if not is_repository(args.repo):
        raise UsageError(f"--repo must be OWNER/NAME, got {args.repo!r}")
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", args.head_sha):
        raise UsageError(f"--head-sha must be a full commit SHA, got {args.head_sha!r}")
    if args.pr < 1:
        raise UsageError(f"--pr must be a pull request number, got {args.pr}")
    stored = read_stored_verdict(args.verdict)
    api_url = args.api_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL
    publisher = Publisher(
        open_repo(make_client(token, api_url), args.repo),
        check_name=args.check_name,
        comment_author=args.comment_author or None,
    )
    verdict, result = publish_stored(
        publisher,
        stored,
        pr_number=args.pr,
        head_sha=args.head_sha,
        comment_mode=CommentMode(args.comment),
        say=say,
    )
    # The stored verdict's text comes from a run the pull request could influence: in a workflow
    # log, keep it from being read as workflow commands.
    guard = uuid.uuid4().hex if os.environ.get("GITHUB_ACTIONS") == "true" else None
    text = report.to_text(verdict)
    emit(f"::stop-commands::{guard}\n{text}::{guard}::\n" if guard else text, None)
    for missing in result.not_posted:
        say(f"not posted: {missing.what}: {missing.why}")
    if not result.check.posted:
        say("error: neither a check run nor a commit status could be posted")
        return ExitStatus.CANNOT_RUN
    return verdict.exit_status


def add_serve(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the GitHub App webhook server (the bot)",
        description="Serve GitHub App webhooks: verify each delivery's signature, queue it, judge pull "
        "requests in a bounded worker pool and post the verdict as the App. Configured from the "
        "environment only (ORACLE_GATE_APP_ID, ORACLE_GATE_PRIVATE_KEY_FILE, ORACLE_GATE_WEBHOOK_SECRET, "
        "ORACLE_GATE_API_URL, ORACLE_GATE_STATE_DIR, ORACLE_GATE_CONCURRENCY, ...; every setting is in "
        "docs/bot-operations.md): no secret is ever a flag.",
    )
    p.set_defaults(func=run_serve_command)


def run_serve_command(args: argparse.Namespace) -> int:
    from oracle_gate.bot.config import from_environment
    from oracle_gate.bot.serve import serve

    return serve(from_environment(os.environ))


def add_app_manifest(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "app-manifest",
        help="print the GitHub App manifest for the bot",
        description="Print the manifest that creates the bot's GitHub App in one step (its permissions, "
        "its events, its webhook URL).",
    )
    p.add_argument("--hook-url", required=True, help="where GitHub sends webhooks (the server's /webhook)")
    p.add_argument("--name", default="Oracle Gate", help="the App's name (unique on GitHub)")
    p.set_defaults(func=run_app_manifest_command)


def run_app_manifest_command(args: argparse.Namespace) -> int:
    from oracle_gate.bot.manifest import app_manifest

    emit(app_manifest(args.hook_url, name=args.name), None)
    return 0


Registrar = Callable[["argparse._SubParsersAction[Parser]"], None]

# Every command, in the order ``--help`` lists them, with what registers it: a function here, or
# "module:function" for a command whose module is imported only when that command runs (or for the
# full parser: --help, a usage error). ``oracle-gate map`` then does not pay for importing the judge,
# the adoption templates or the scoring run (issue 19: map's cost on Python 3.11).
COMMANDS: tuple[tuple[str, Registrar | str], ...] = (
    ("check", add_check),
    ("demo", add_demo),
    ("map", add_map),
    ("publish", add_publish),
    ("serve", add_serve),
    ("app-manifest", add_app_manifest),
    ("surface", "oracle_gate.surface_cli:add_surface"),
    ("init", "oracle_gate.adopt.commands:add_init"),
    ("doctor", "oracle_gate.adopt.commands:add_doctor"),
    ("freeze", "oracle_gate.freeze_cmd:add_freeze"),  # v3.7 / issue 18: the freeze's life cycle
    ("score", "oracle_gate.score.command:add_score"),
    ("score-verify", "oracle_gate.score.command:add_score_verify"),
)
COMMAND_NAMES = tuple(name for name, _ in COMMANDS)


def registrar(entry: Registrar | str) -> Registrar:
    """The function that registers a command, its module imported now if it is named as text."""
    if isinstance(entry, str):
        module, _, function = entry.partition(":")
        found: Registrar = getattr(import_module(module), function)
        return found
    return entry


def build_parser(command: str | None = None) -> Parser:
    """The parser of every command, or (``command`` one of :data:`COMMAND_NAMES`) of that command
    alone: the one that will run, its module the only one imported. The one-command parser still
    names every command in its usage line (argparse's default ``metavar``, spelled out), so a usage
    error reads the same whichever was built."""
    parser = Parser(prog="oracle-gate", description="Decide whether an agent-written change may be scored.")
    parser.add_argument("--version", action="version", version=f"oracle-gate {__version__}")
    every = None if command is None else "{" + ",".join(COMMAND_NAMES) + "}"
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar=every)
    for name, entry in COMMANDS:
        if command is None or name == command:
            registrar(entry)(sub)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs when its first word names one (options before it, ``--help`` or
    ``--version``, need the full parser), else None."""
    return argv[0] if argv and argv[0] in COMMAND_NAMES else None


def closed_pipe() -> int:
    """The reader of standard output went away (``oracle-gate demo | head``): stop quietly, as
    other commands do, with the status a shell reports for SIGPIPE. Standard output is pointed at
    /dev/null so that the interpreter's last flush does not raise again."""
    import signal

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor behind sys.stdout (run in process)
        pass
    return 128 + signal.SIGPIPE


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(chosen_command(words)).parse_args(words)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return closed_pipe()
    except GateError as exc:
        say(f"error: {exc}")
        return ExitStatus.CANNOT_RUN
    except Exception as exc:  # a broken gate must never exit 0
        if os.environ.get("ORACLE_GATE_DEBUG"):
            raise
        say(f"internal error: {type(exc).__name__}: {exc} (set ORACLE_GATE_DEBUG=1 for a traceback)")
        return ExitStatus.CANNOT_RUN
