"""Posting comments: the sticky comment, plain replies, reactions to a command.

* **Sticky comment.** Found by its marker at the start of a comment body, walking every page of the
  issue's comments; only comments by the token's own identity (:meth:`Comments.own_login`) are
  candidates, so a marker pasted by a person or planted by another bot is never adopted. Updated in
  place, never deleted and reposted, not touched when unchanged.
* **Exactly once.** A comment whose POST lost its answer is looked for (by its very text) before it is
  posted again (:func:`oracle_gate.github.writes.post_exactly_once`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from github.IssueComment import IssueComment
from github.Repository import Repository

from oracle_gate.github.client import NotPermitted, github_call
from oracle_gate.github.values import CommentAction, CommentResult, StickyComment
from oracle_gate.github.writes import WriteBudget, post_exactly_once

GITHUB_ACTIONS_LOGIN = "github-actions[bot]"  # who GITHUB_TOKEN comments as
REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})


@dataclass(frozen=True)
class Comments:
    """One repository's issue comments. ``writes`` is the run's write budget (shared with its checks);
    ``comment_author`` the login the token comments as, when known (``github-actions[bot]`` for
    GITHUB_TOKEN, ``<slug>[bot]`` for the App)."""

    repo: Repository = field(repr=False)
    writes: WriteBudget
    comment_author: str | None = None

    def sticky(self, pr_number: int, comment: StickyComment | None) -> CommentResult:
        """Update the sticky comment in place when its body differs; create one if none and ``create``;
        skipped when ``comment`` is None (mode ``never``). Raises :class:`PublishError` on failure."""
        if comment is None:
            return CommentResult(CommentAction.SKIPPED)
        if not comment.body.startswith(comment.marker):
            raise ValueError("a sticky comment body must start with its marker")
        existing = self.find_sticky(pr_number, comment.marker)
        if existing is None:
            if not comment.create:
                return CommentResult(CommentAction.SKIPPED)
            created = self._create_once(
                pr_number, comment.body, lambda: self.find_sticky(pr_number, comment.marker)
            )
            return CommentResult(CommentAction.CREATED, created.id, comment.truncated)
        if _same_text(existing.body, comment.body):
            return CommentResult(CommentAction.UNCHANGED, existing.id, comment.truncated)
        with self.writes.write(f"update the sticky comment {existing.id}"):
            existing.edit(comment.body)
        return CommentResult(CommentAction.UPDATED, existing.id, comment.truncated)

    def find_sticky(self, pr_number: int, marker: str) -> IssueComment | None:
        """The oldest comment of ours that starts with ``marker``, across every page of comments."""
        with github_call(f"list the comments of #{pr_number}"):
            for comment in self.repo.get_issue(pr_number).get_comments():
                if (comment.body or "").startswith(marker) and self._ours(comment):
                    return comment
        return None

    def reply(self, issue_number: int, body: str) -> int:
        """Post a plain (non-sticky) comment, already cut to GitHub's limit; returns its id."""
        found = self._create_once(issue_number, body, lambda: self._find_own(issue_number, body))
        return int(found.id)

    def react(self, issue_number: int, comment_id: int, content: str) -> None:
        """Add a reaction: ``eyes``/``+1`` for an accepted command, ``confused``/``-1`` for an ignored one."""
        if content not in REACTIONS:
            raise ValueError(f"reaction must be one of {sorted(REACTIONS)}")
        with self.writes.write(f"react {content} to comment {comment_id}"):
            self.repo.get_issue(issue_number).get_comment(comment_id).create_reaction(content)

    def own_login(self) -> str:
        """The login this token comments as: ``comment_author`` when given (the action's input, the
        bot's ``<slug>[bot]``); else ``GET /user`` for a user token; else (an installation token has
        no user: 403) ``github-actions[bot]``, GITHUB_TOKEN's author. An App installation token used
        in a workflow needs ``comment-author: <slug>[bot]``."""
        return self.comment_author if self.comment_author is not None else self._token_login

    @cached_property
    def _token_login(self) -> str:
        """Asked once (a failure other than 403 is not remembered: asked again next time)."""
        try:
            with github_call("learn the token's own login (GET /user)"):
                _, data = self.repo.requester.requestJsonAndCheck("GET", "/user")
            return str(data["login"])
        except NotPermitted:
            return GITHUB_ACTIONS_LOGIN

    def _ours(self, comment: IssueComment) -> bool:
        """Written by the token's own identity (:meth:`own_login`), never just by some bot: the
        pull request's own agent or bot could plant the marker, and updating its comment is a 403."""
        return bool(comment.user.login == self.own_login())

    def _create_once(
        self, issue_number: int, body: str, landed: Callable[[], IssueComment | None]
    ) -> IssueComment:
        """Post a comment exactly once: after a 5xx or a timeout, ``landed`` re-lists the comments
        and a comment it finds (with this very text) is adopted rather than posted a second time."""

        def post() -> IssueComment:
            with self.writes.write(f"comment on #{issue_number}"):
                return self.repo.get_issue(issue_number).create_comment(body)

        def same() -> IssueComment | None:
            found = landed()
            return found if found is not None and _same_text(found.body, body) else None

        return post_exactly_once(post, same, "comments")

    def _find_own(self, issue_number: int, body: str) -> IssueComment | None:
        with github_call(f"list the comments of #{issue_number}"):
            for comment in self.repo.get_issue(issue_number).get_comments():
                if _same_text(comment.body, body) and self._ours(comment):
                    return comment
        return None


def _same_text(a: str | None, b: str) -> bool:
    """Equal bodies, ignoring the CRLF/LF difference GitHub may introduce."""
    return (a or "").replace("\r\n", "\n") == b.replace("\r\n", "\n")
