"""``check --approvals FILE``: the approving reviews, as the API described them, read from a file.

The file is JSON, a list of ``{"login", "commit", "teams", "permission"}`` objects (contract v3.5),
each of which may carry ``"submitted_at"`` (v3.9.1: the review's ISO time; with
``--base-changed-at``, an entry without it or submitted before it is stale). Anything else is a
usage error (exit 3) with one line naming the file: a file the gate cannot read as approvals must
never be judged as "no approvals", silently. ``--author-permission`` (v3.9.3) is the author's
permission, for a policy whose ``[approvals] authors`` names them.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
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
    submitted = entry.get("submitted_at")
    if submitted is not None and not isinstance(submitted, str):
        raise UsageError(f"{where}: 'submitted_at' must be an ISO time string")
    return Approval(
        login=login,
        commit=commit,
        teams=tuple(teams),
        permission=permission,
        submitted_at=None if submitted is None else iso_time(submitted, f"{where}: 'submitted_at'"),
    )


def iso_time(text: str, where: str) -> datetime:
    """An ISO 8601 time with its offset (GitHub's ``2026-11-30T12:00:00Z``); UsageError otherwise:
    a time without an offset cannot be compared with GitHub's."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise UsageError(f"{where} is not an ISO time: {text[:80]!r}") from exc
    if moment.tzinfo is None:
        raise UsageError(f"{where} has no UTC offset (write it as GitHub does: 2026-11-30T12:00:00Z)")
    return moment


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
        "--base-changed-at",
        metavar="ISO-TIME",
        help="when the pull request's base branch last changed (contract v3.9.1): an approval submitted "
        "before it, or without 'submitted_at', is stale",
    )
    p.add_argument(
        "--author-permission",
        metavar="PERM",
        help="the author's permission now (contract v3.9.3: with maintain or admin, an author named in "
        "[approvals] authors approves their own pull request); needs --author",
    )
    p.add_argument(
        "--pr-head",
        metavar="REV",
        help="the pull request's head, whose full SHA an approval must name (default: --head)",
    )


def approval_request(args: argparse.Namespace) -> dict[str, Any]:
    """The CheckRequest fields for ``check``'s v3.5 and v3.9 options (UsageError when they do not fit)."""
    base_changed = getattr(args, "base_changed_at", None)
    permission = getattr(args, "author_permission", None)
    if args.approvals is None and permission is None:
        if base_changed is not None:
            raise UsageError("--base-changed-at needs --approvals FILE (it makes earlier approvals stale)")
        return {}
    if not args.author or not args.author.strip():
        given = "--approvals" if args.approvals is not None else "--author-permission"
        raise UsageError(f"{given} needs --author LOGIN (an author never approves their own change)")
    return {
        "approvals": read_approvals(args.approvals) if args.approvals is not None else (),
        "author": args.author,
        "pr_head": args.pr_head,
        "base_changed_at": None if base_changed is None else iso_time(base_changed, "--base-changed-at"),
        "author_permission": permission,
    }
