"""The write ports over the publisher both doors hold (:class:`~oracle_gate.github.publisher.Publisher`).

:class:`PublisherChecks` and :class:`PublisherComments` never raise :class:`PublishError`: what was
not posted is in the result, or in the log line ``warn`` gets (a reaction, a reply)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from oracle_gate.errors import PublishError
from oracle_gate.github.client import NotPermitted
from oracle_gate.github.publisher import (
    CheckContent,
    CheckResult,
    CommentAction,
    CommentResult,
    NotPosted,
    Publisher,
    StickyComment,
)
from oracle_gate.judgement.ports import CheckTarget

_log = logging.getLogger("oracle_gate.judgement")


def _warn(line: str) -> None:
    _log.warning("%s", line)


class PublisherChecks:
    """:class:`~oracle_gate.judgement.ports.Checks` over a publisher: the target's name, id and link
    are the publisher's for this one post."""

    def __init__(self, publisher: Publisher, what: str = "check run") -> None:
        self.publisher = publisher
        self.what = what

    def publish(self, content: CheckContent, target: CheckTarget) -> CheckResult:
        publisher = self.publisher
        publisher.check_name = target.name
        publisher.external_id = target.external_id
        if target.details_url is not None:
            publisher.details_url = target.details_url
        try:
            return publisher.publish_check(content, target.head_sha)
        except PublishError as exc:
            refused = isinstance(exc, NotPermitted)
            return CheckResult(content.conclusion, not_posted=(NotPosted(self.what, str(exc), refused),))


class PublisherComments:
    """:class:`~oracle_gate.judgement.ports.Comments` over a publisher."""

    def __init__(self, publisher: Publisher, warn: Callable[[str], None] = _warn) -> None:
        self.publisher = publisher
        self.warn = warn

    def sticky(self, pr_number: int, comment: StickyComment | None) -> CommentResult:
        try:
            return self.publisher.publish_comment(comment, pr_number)
        except PublishError as exc:
            refused = isinstance(exc, NotPermitted)
            return CommentResult(
                CommentAction.FAILED, not_posted=(NotPosted("sticky comment", str(exc), refused),)
            )

    def reply(self, issue_number: int, body: str) -> int | None:
        try:
            return self.publisher.reply(issue_number, body)
        except PublishError as exc:
            self.warn(f"Oracle Gate: reply not posted: {exc}")
            return None

    def react(self, issue_number: int, comment_id: int, reaction: str) -> None:
        try:
            self.publisher.react(issue_number, comment_id, reaction)
        except PublishError as exc:
            self.warn(f"Oracle Gate: reaction not posted: {exc}")
