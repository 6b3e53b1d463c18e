"""``check --approvals FILE``: the approving reviews, as the API described them, read from a file.

The file is JSON, a list of ``{"login", "commit", "teams", "permission"}`` objects (contract v3.5).
Anything else is a usage error (exit 3) with one line naming the file: a file the gate cannot read
as approvals must never be judged as "no approvals", silently.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from oracle_gate.errors import UsageError
from oracle_gate.files import read_bounded
from oracle_gate.judge.approvals import Approval

MAX_APPROVALS_BYTES = 4 * 1024 * 1024
KEYS = ("login", "commit", "teams", "permission")
SHAPE = '[{"login": ..., "commit": ..., "teams": [...], "permission": ...}]'


def read_approvals(path: Path) -> tuple[Approval, ...]:
    """The approvals in ``path``; raises UsageError naming the file and what is wrong."""
    try:
        doc = json.loads(read_bounded(path, MAX_APPROVALS_BYTES).decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"--approvals {path}: cannot read it ({exc.strerror or exc})") from exc
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UsageError(f"--approvals {path}: not valid JSON ({_one_line(exc)})") from exc
    if not isinstance(doc, list):
        raise UsageError(f"--approvals {path}: expected a JSON list {SHAPE}, got {type(doc).__name__}")
    return tuple(_approval(path, index, entry) for index, entry in enumerate(doc))


def _approval(path: Path, index: int, entry: object) -> Approval:
    where = f"--approvals {path}: entry {index}"
    if not isinstance(entry, dict):
        raise UsageError(f"{where} is not an object {SHAPE}")
    missing = [key for key in KEYS if key not in entry]
    if missing:
        raise UsageError(f"{where} lacks {', '.join(repr(k) for k in missing)}")
    login, commit, teams, permission = (entry[key] for key in KEYS)
    if not (isinstance(login, str) and isinstance(commit, str) and isinstance(permission, str)):
        raise UsageError(f"{where}: 'login', 'commit' and 'permission' must be strings")
    if not isinstance(teams, list) or not all(isinstance(t, str) for t in teams):
        raise UsageError(f"{where}: 'teams' must be a list of strings (org/team slugs)")
    return Approval(login=login, commit=commit, teams=tuple(teams), permission=permission)


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def add_approval_arguments(p: argparse.ArgumentParser) -> None:
    """``check``'s v3.5 options."""
    p.add_argument(
        "--approvals",
        type=Path,
        metavar="FILE",
        help='the approving reviews as JSON [{"login", "commit", "teams", "permission"}] (contract v3.5); '
        "needs --author",
    )
    p.add_argument(
        "--author", metavar="LOGIN", help="the pull request's author (never counts as an approver)"
    )
    p.add_argument(
        "--pr-head",
        metavar="REV",
        help="the pull request's head, whose full SHA an approval must name (default: --head)",
    )


def approval_request(args: argparse.Namespace) -> dict[str, Any]:
    """The CheckRequest fields for ``check``'s v3.5 options (UsageError when they do not fit)."""
    if args.approvals is None:
        return {}
    if not args.author or not args.author.strip():
        raise UsageError("--approvals needs --author LOGIN (an author never approves their own change)")
    return {"approvals": read_approvals(args.approvals), "author": args.author, "pr_head": args.pr_head}
