"""``oracle-gate publish``: post a stored verdict.json on a pull request (stage 2 of the fork-safe
workflow, :mod:`oracle_gate.action.publish_stored`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import GITHUB_REPO
from oracle_gate.commands.output import emit, error, say
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    from oracle_gate.github.defaults import DEFAULT_API_URL, DEFAULT_CHECK_NAME, CommentMode

    p.add_argument("--verdict", type=Path, required=True, metavar="FILE", help="the stored verdict.json")
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


def run(args: argparse.Namespace) -> ExitStatus:
    import re
    import uuid

    from oracle_gate.action.publish_stored import publish_stored, read_stored_verdict
    from oracle_gate.errors import UsageError
    from oracle_gate.github.client import make_client, open_repo
    from oracle_gate.github.defaults import DEFAULT_API_URL, CommentMode, is_repository
    from oracle_gate.github.repository import connect
    from oracle_gate.render.text import to_text

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
    github = connect(
        open_repo(make_client(token, api_url), args.repo), comment_author=args.comment_author or None
    )
    verdict, result = publish_stored(
        github,
        stored,
        pr_number=args.pr,
        head_sha=args.head_sha,
        check_name=args.check_name,
        comment_mode=CommentMode(args.comment),
        say=say,
    )
    # The stored verdict's text comes from a run the pull request could influence: in a workflow
    # log, keep it from being read as workflow commands.
    guard = uuid.uuid4().hex if os.environ.get("GITHUB_ACTIONS") == "true" else None
    text = to_text(verdict)
    emit(f"::stop-commands::{guard}\n{text}::{guard}::\n" if guard else text)
    for missing in result.not_posted:
        say(f"not posted: {missing.what}: {missing.why}")
    if not result.check.posted:
        error("neither a check run nor a commit status could be posted")
        return ExitStatus.CANNOT_RUN
    return verdict.exit_status


COMMAND = Subcommand(
    "publish",
    help="post a stored verdict.json on a pull request (stage 2 of the fork-safe workflow)",
    description="Post a verdict.json computed by an earlier run as the check run and sticky comment "
    "of pull request N. The token is read from the environment variable GITHUB_TOKEN, never from a "
    "flag. The stored verdict comes from a run the pull request could influence, so it is checked "
    "first: the pull request's head must be --head-sha (else nothing is posted), and when the pull "
    "request changes a file under .github/workflows/ a non-fail verdict is replaced by fail. "
    "Exit 0 pass_clean, 1 fail, 2 unscored (the verdict posted), 3 nothing could be posted.",
    options=(GITHUB_REPO.but(required=True, help="the repository of the pull request"),),
    add_arguments=add_arguments,
    run=run,
)
