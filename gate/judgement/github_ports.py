"""The write ports over a repository's :class:`~oracle_gate.github.checks.Checks` and
:class:`~oracle_gate.github.comments.Comments` (:func:`oracle_gate.github.repository.connect`).

:class:`PostedChecks` and :class:`PostedComments` never raise :class:`PublishError`: what was not
posted is in the result, or in the log line ``warn`` gets (a reaction, a reply)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from oracle_gate.errors import PublishError
from oracle_gate.github.checks import Checks
from oracle_gate.github.comments import Comments
from oracle_gate.github.values import (
    CheckContent,
    CheckResult,
    CheckTarget,
    CommentAction,
    CommentResult,
    StickyComment,
    not_posted,
)

_log = logging.getLogger("oracle_gate.judgement")


def _warn(line: str) -> None:
    _log.warning("%s", line)


class PostedChecks:
    """:class:`~oracle_gate.judgement.ports.Checks` over a repository's checks; ``details_url`` links
    a check whose target names no link (the Action's workflow run)."""

    def __init__(self, checks: Checks, details_url: str | None = None, what: str = "check run") -> None:
        self.checks = checks
        self.details_url = details_url
        self.what = what

    def publish(self, content: CheckContent, target: CheckTarget) -> CheckResult:
        if target.details_url is None and self.details_url is not None:
            target = replace(target, details_url=self.details_url)
        try:
            return self.checks.publish(content, target)
        except PublishError as exc:
            return CheckResult(content.conclusion, not_posted=(not_posted(self.what, exc),))


class PostedComments:
    """:class:`~oracle_gate.judgement.ports.Comments` over a repository's comments."""

    def __init__(self, comments: Comments, warn: Callable[[str], None] = _warn) -> None:
        self.comments = comments
        self.warn = warn

    def sticky(self, pr_number: int, comment: StickyComment | None) -> CommentResult:
        try:
            return self.comments.sticky(pr_number, comment)
        except PublishError as exc:
            return CommentResult(CommentAction.FAILED, not_posted=(not_posted("sticky comment", exc),))

    def reply(self, issue_number: int, body: str) -> int | None:
        try:
            return self.comments.reply(issue_number, body)
        except PublishError as exc:
            self.warn(f"Oracle Gate: reply not posted: {exc}")
            return None

    def react(self, issue_number: int, comment_id: int, reaction: str) -> None:
        try:
            self.comments.react(issue_number, comment_id, reaction)
        except PublishError as exc:
            self.warn(f"Oracle Gate: reaction not posted: {exc}")
