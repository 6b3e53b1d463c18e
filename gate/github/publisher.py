"""Posting on GitHub, all through PyGithub: check run, status fallback, sticky comment, replies.

The write side of the flow. It posts the content it is given (:class:`CheckContent`,
:class:`StickyComment`, a reply's text) and renders nothing: what a verdict looks like on GitHub
is :mod:`oracle_gate.github.content`. A publishing failure is a typed :class:`PublishError` (named for the
outcome, message free of the token; see :mod:`oracle_gate.github.client`) or, through
:meth:`Publisher.publish`, a :class:`NotPosted` line in the result saying what was not posted and why.

Choices, with the GitHub behaviour they rest on (D = https://docs.github.com/en):

* **Completed checks.** The check is created already completed, so it never
  hangs pending on a half-published run. Which conclusion and which status
  state a verdict gets is the content's choice (:mod:`oracle_gate.github.content`).
* **Annotations.** At most 50 per request (D/rest/checks/runs): the first 50
  go with the create, the rest are appended by PATCHes of 50.
* **Status fallback.** Only GitHub Apps (GITHUB_TOKEN is one) may write check
  runs; a personal access token, or a GITHUB_TOKEN granted ``statuses`` but
  not ``checks``, gets 403. Then a commit status with the same context name
  is posted, with the content's status state and description.
* **Sticky comment.** Found by its marker at the start of a comment body,
  walking every page of the issue's comments; only comments by the token's
  own identity (:meth:`Publisher.own_login`) are candidates, so a marker
  pasted by a person or planted by another bot is never adopted. Updated in
  place, never deleted and reposted, not touched when unchanged.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from github.CheckRun import CheckRun
from github.IssueComment import IssueComment
from github.Repository import Repository

from oracle_gate.github.client import (
    GateRetry,
    GitHubUnavailable,
    NotFound,
    NotPermitted,
    PublishError,
    RateLimited,
    RequestRejected,
    RetrySettings,
    github_call,
    make_client,
    make_retry,
    open_repo,
)
from oracle_gate.github.defaults import (
    DEFAULT_API_URL,
    DEFAULT_CHECK_NAME,
    DEFAULT_MAX_API_WRITES,
)
from oracle_gate.github.limits import ANNOTATIONS_PER_REQUEST

MAX_ANNOTATIONS_PER_REQUEST = ANNOTATIONS_PER_REQUEST  # D/rest/checks/runs
#: Attempts at one POST that creates something (check run, comment); between two, the publisher
#: re-lists to adopt what a lost answer had created (POSTs are not retried by the HTTP layer).
POST_ATTEMPTS = 4
MAX_WRITES_PER_RUN = DEFAULT_MAX_API_WRITES  # oracle_gate.github.defaults says what it leaves room for
GITHUB_ACTIONS_LOGIN = "github-actions[bot]"  # who GITHUB_TOKEN comments as
REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})

_log = logging.getLogger(__name__)
T = TypeVar("T")

if TYPE_CHECKING:
    from oracle_gate.github.reviews import ReviewReader


# -- what is posted ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckContent:
    """Everything one check-run post sends, and the commit status that replaces it if refused."""

    conclusion: str
    title: str
    summary: str
    summary_truncated: bool
    status_state: str
    status_description: str
    annotations: list[dict[str, str | int]] = field(default_factory=list)
    #: Annotations the per-run cap kept out (the summary says so).
    annotations_left_out: int = 0
    #: Sent instead of ``summary`` when GitHub refuses the check run (422) for its size.
    minimal_summary: str | None = None


@dataclass(frozen=True)
class StickyComment:
    """The sticky comment's body (starting with ``marker``, by which it is found again); ``create``
    False posts it only over an existing sticky comment."""

    marker: str
    body: str
    create: bool = True
    truncated: bool = False


# -- results -----------------------------------------------------------------------------------------


class CommentAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"  # the sticky comment already says exactly this: no request sent
    SKIPPED = "skipped"  # nothing to post (mode never, or on-change with a first pass_clean)
    FAILED = "failed"  # see ``not_posted``


@dataclass(frozen=True)
class NotPosted:
    """Something that was not posted, and why; ``refused`` when the token may not write it
    (:class:`NotPermitted`: a fork PR's read-only GITHUB_TOKEN, Dependabot, a PAT on the Checks API)."""

    what: str
    why: str
    refused: bool = False


def _not_posted(what: str, err: PublishError) -> NotPosted:
    return NotPosted(what, str(err), refused=isinstance(err, NotPermitted))


@dataclass(frozen=True)
class CheckResult:
    """What the check-run step posted; ``check_run_id`` is None when only a status (or nothing) went out."""

    conclusion: str
    check_run_id: int | None = None
    used_status_fallback: bool = False
    status_state: str | None = None
    annotations_total: int = 0
    annotations_posted: int = 0
    summary_truncated: bool = False
    not_posted: tuple[NotPosted, ...] = ()

    @property
    def posted(self) -> bool:
        return self.check_run_id is not None or self.status_state is not None


@dataclass(frozen=True)
class CommentResult:
    action: CommentAction
    comment_id: int | None = None
    truncated: bool = False
    not_posted: tuple[NotPosted, ...] = ()


@dataclass(frozen=True)
class PublishResult:
    check: CheckResult
    comment: CommentResult

    @property
    def not_posted(self) -> tuple[NotPosted, ...]:
        return self.check.not_posted + self.comment.not_posted


class WritesSpent(PublishError):
    """The run's bound on write requests was reached; the rest is not posted (and said so)."""


@dataclass(frozen=True)
class PullInfo:
    """What the gate needs of a pull request (from ``pulls/get``)."""

    number: int
    head_sha: str
    base_sha: str
    head_ref: str
    base_ref: str
    from_fork: bool
    author: str
    # How many files the pull request changes (pulls/get ``changed_files``), to tell whether
    # ``pulls/list-files`` (at most 3000 files) listed them all. Not compared: informational.
    changed_files: int | None = field(default=None, compare=False)
    # pulls/get ``mergeable``: None while GitHub computes the test merge (after a push), False with
    # conflicts (then refs/pull/N/merge is stale or absent). Not compared: informational.
    mergeable: bool | None = field(default=None, compare=False)
    # pulls/get ``state``: False once closed (or merged). Not compared: informational.
    open: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class PullFile:
    """One entry of ``pulls/list-files``: the file's path, its old path when renamed, its status."""

    filename: str
    previous_filename: str | None
    status: str

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.filename,) if self.previous_filename is None else (self.previous_filename, self.filename)


# -- the publisher -----------------------------------------------------------------------------------


class Publisher:
    """Posts to one repository. Takes the (lazy) PyGithub repository, never a token."""

    def __init__(
        self,
        repo: Repository,
        *,
        check_name: str = DEFAULT_CHECK_NAME,
        details_url: str | None = None,
        comment_author: str | None = None,
        max_writes: int = MAX_WRITES_PER_RUN,
    ) -> None:
        """``details_url`` links the check (e.g. the workflow run); ``comment_author`` is the login the
        sticky comment is posted as (``github-actions[bot]`` for GITHUB_TOKEN), when known;
        ``max_writes`` bounds the write requests this publisher sends."""
        self._repo = repo
        self.max_writes = max_writes
        self.writes = 0
        self._own_login: str | None = None
        self.check_name = check_name
        self.details_url = details_url
        self.comment_author = comment_author
        #: Set by a caller that may run again after a crash (the bot): the check run's stable
        #: ``external_id``, by which a later attempt finds and finishes the run instead of adding one
        #: (:meth:`_adopt_check_run`); ``check_app`` is the App slug such a run must be posted by.
        self.external_id: str | None = None
        self.check_app: str | None = None

    def __repr__(self) -> str:
        return f"Publisher(check_name={self.check_name!r})"

    @contextmanager
    def _write(self, what: str) -> Iterator[None]:
        """One write request, counted against the run's :attr:`max_writes` (TRUST.md invariant 8: a
        change cannot make the gate spend the token's hourly budget); :class:`WritesSpent` past it."""
        if self.writes >= self.max_writes:
            raise WritesSpent(what, f"the run's {self.max_writes} API writes are spent")
        self.writes += 1
        with github_call(what):
            yield

    # -- everything at once ------------------------------------------------------------------------

    def publish(
        self,
        check: CheckContent,
        *,
        head_sha: str,
        pr_number: int | None = None,
        comment: StickyComment | None = None,
    ) -> PublishResult:
        """Check run (or status), then the sticky comment (none when ``comment`` or ``pr_number`` is
        None); never raises :class:`PublishError`.

        Each part that could not be posted is reported in the result instead,
        so the caller can still write its outputs and step summary.
        """
        try:
            posted = self.publish_check(check, head_sha)
        except PublishError as err:
            _log.warning("%s", err)
            posted = CheckResult(check.conclusion, not_posted=(_not_posted("check run", err),))
        if pr_number is None:
            sticky = CommentResult(CommentAction.SKIPPED)
        else:
            try:
                sticky = self.publish_comment(comment, pr_number)
            except PublishError as err:
                _log.warning("%s", err)
                sticky = CommentResult(CommentAction.FAILED, not_posted=(_not_posted("sticky comment", err),))
        return PublishResult(posted, sticky)

    # -- check run -----------------------------------------------------------------------------------

    def publish_check(self, content: CheckContent, head_sha: str) -> CheckResult:
        """A completed check run with the content's conclusion and every annotation.

        Falls back to a commit status when the token may not write check runs.
        Raises :class:`PublishError` only when neither could be posted.
        """
        adopted = self._adopt_check_run(head_sha, content)
        if adopted is not None:
            return self._finish_adopted(adopted[0], content, adopted[1])
        batches = _batches(content.annotations, MAX_ANNOTATIONS_PER_REQUEST)
        try:
            run, content = self._create_check_run_or_minimal(head_sha, content, batches[0] if batches else [])
        except NotPermitted as err:
            _log.info("%s; posting a commit status instead", err)
            return self._status_fallback(head_sha, content, err)
        posted = len(batches[0]) if batches else 0
        return self._append_the_rest(run, content, batches[1:], posted)

    def start_check(self, content: CheckContent, head_sha: str) -> int:
        """An ``in_progress`` check run under :attr:`external_id` (required), its id; completed later by
        :meth:`complete_check`. The run an earlier attempt of the same job posted is reused whatever
        its state, so a job run again after a crash never adds a second run; a completed one is left
        completed until :meth:`complete_check` (its earlier conclusion stands meanwhile)."""
        external_id = self._stable_external_id()
        run = self._find_check_run(head_sha, external_id)
        if run is None:
            run = _post_exactly_once(
                lambda: self._create_in_progress(head_sha, content, external_id),
                lambda: self._find_check_run(head_sha, external_id),
                "check runs",
            )
        elif run.status != "completed":
            with self._write("update the check run in progress"):
                run.edit(output=_output(content, []))
        return int(run.id)

    def complete_check(self, content: CheckContent, head_sha: str) -> CheckResult:
        """Complete the run :meth:`start_check` posted under :attr:`external_id` with the content
        (any state: a re-run updates it) and its annotations (the score's lines no live test checks);
        created completed when there is none."""
        run = self._find_check_run(head_sha, self._stable_external_id())
        if run is None:
            return self.publish_check(content, head_sha)
        extra: dict[str, Any] = {"details_url": self.details_url} if self.details_url else {}
        batches = _batches(content.annotations, MAX_ANNOTATIONS_PER_REQUEST)
        first = batches[0] if batches else []
        with self._write("complete the check run"):
            run.edit(
                status="completed", conclusion=content.conclusion, output=_output(content, first), **extra
            )
        if content.annotations:
            return self._append_the_rest(run, content, batches[1:], len(first))
        return CheckResult(
            conclusion=content.conclusion, check_run_id=run.id, summary_truncated=content.summary_truncated
        )

    def _stable_external_id(self) -> str:
        if self.external_id is None:
            raise ValueError("a check run in progress needs a stable external_id")
        return self.external_id

    def _create_in_progress(self, head_sha: str, content: CheckContent, external_id: str) -> CheckRun:
        extra: dict[str, Any] = {"details_url": self.details_url} if self.details_url else {}
        with self._write("create the check run in progress"):
            return self._repo.create_check_run(
                name=self.check_name,
                head_sha=head_sha,
                status="in_progress",
                output=_output(content, []),
                external_id=external_id,
                **extra,
            )

    def _append_the_rest(
        self, run: CheckRun, content: CheckContent, rest: list[list[dict[str, str | int]]], posted: int
    ) -> CheckResult:
        """Append the remaining annotation batches to ``run`` (``posted`` already there); the first
        batch GitHub refuses ends the appending, and the result says which annotations are missing."""
        not_posted: list[NotPosted] = []
        for batch in rest:
            try:
                self._append_annotations(run, content, batch)
            except PublishError as err:
                missing = f"annotations {posted + 1}-{len(content.annotations)} of {len(content.annotations)}"
                not_posted.append(_not_posted(missing, err))
                break
            posted += len(batch)
        return CheckResult(
            conclusion=content.conclusion,
            check_run_id=run.id,
            annotations_total=len(content.annotations),
            annotations_posted=posted,
            summary_truncated=content.summary_truncated,
            not_posted=tuple(not_posted),
        )

    def _create_check_run_or_minimal(
        self, head_sha: str, content: CheckContent, annotations: list[dict[str, str | int]]
    ) -> tuple[CheckRun, CheckContent]:
        """Create the check run; if GitHub refuses it as invalid (422: a summary over its size limit
        is the case recognised), try once more with the content's minimal summary, so that a verdict is
        posted rather than nothing. Returns the run and the content it carries."""
        try:
            return self._create_check_run_once(head_sha, content, annotations), content
        except RequestRejected as err:
            if not _is_size_refusal(err) or content.minimal_summary is None:
                raise
            _log.warning("%s; posting the check run again with a minimal summary", err)
            minimal = replace(content, summary=content.minimal_summary, summary_truncated=True)
            return self._create_check_run_once(head_sha, minimal, annotations), minimal

    def _create_check_run_once(
        self, head_sha: str, content: CheckContent, annotations: list[dict[str, str | int]]
    ) -> CheckRun:
        """Create the check run exactly once, even when an answer is lost.

        A POST that failed with a 5xx or a timeout may have been applied (GitHub has no idempotency
        keys), so before each new attempt the head's check runs are re-listed and one carrying this
        attempt's ``external_id`` is adopted instead of creating a second one.
        """
        external_id = self.external_id or f"oracle-gate:{uuid.uuid4().hex}"
        return _post_exactly_once(
            lambda: self._create_check_run(head_sha, content, annotations, external_id),
            lambda: self._find_check_run(head_sha, external_id),
            "check runs",
        )

    def _adopt_check_run(self, head_sha: str, content: CheckContent) -> tuple[CheckRun, int] | None:
        """The check run an earlier attempt of the same job posted (same :attr:`external_id`, posted
        by :attr:`check_app`, same conclusion and title), and how many annotations it already has.

        Only with a stable ``external_id``. A run of another App is never adopted (a pull request's
        workflow can post a run with any ``external_id``; and it could not be updated). A run of a
        different verdict is not adopted either: annotations cannot be removed from a run, so a new
        verdict gets a new run (the newest run of a name is the one GitHub shows); nor is any run
        but our newest of the name."""
        if self.external_id is None:
            return None
        with github_call(f"list the check runs of {head_sha[:12]}"):
            ours = [
                run
                for run in self._repo.get_commit(head_sha).get_check_runs(
                    check_name=self.check_name, filter="all"
                )
                if self._posted_by_us(run)
            ]
            # Only our newest run of the name: adopting an older one (success, then failure, then
            # success again) would leave the newer run, the one GitHub shows, as it was.
            newest = max(ours, key=lambda run: run.id, default=None)
            if (
                newest is not None
                and newest.external_id == self.external_id
                and newest.conclusion == content.conclusion
                and newest.output.title == content.title
            ):
                return newest, int(newest.output.annotations_count or 0)
        return None

    def _finish_adopted(self, run: CheckRun, content: CheckContent, already: int) -> CheckResult:
        """Bring an adopted run up to ``content``: summary and link again, then the annotations it
        does not have yet (a crash may have come between two batches)."""
        rest = content.annotations[already:]
        batches = _batches(rest, MAX_ANNOTATIONS_PER_REQUEST) or [[]]
        extra: dict[str, Any] = {"details_url": self.details_url} if self.details_url else {}
        with self._write("update the check run an earlier attempt posted"):
            run.edit(conclusion=content.conclusion, output=_output(content, batches[0]), **extra)
        posted = already + len(batches[0])
        return self._append_the_rest(run, content, batches[1:], posted)

    def _find_check_run(self, head_sha: str, external_id: str) -> CheckRun | None:
        with github_call(f"list the check runs of {head_sha[:12]}"):
            runs = self._repo.get_commit(head_sha).get_check_runs(check_name=self.check_name, filter="all")
            return next(
                (run for run in runs if run.external_id == external_id and self._posted_by_us(run)), None
            )

    def _posted_by_us(self, run: CheckRun) -> bool:
        """Posted by :attr:`check_app` (when it is known): an ``external_id`` alone can be imitated."""
        return self.check_app is None or run.app.slug == self.check_app

    def _create_check_run(
        self,
        head_sha: str,
        content: CheckContent,
        annotations: list[dict[str, str | int]],
        external_id: str,
    ) -> CheckRun:
        """Created completed: a required check never sits pending on a half-published run."""
        extra: dict[str, Any] = {"details_url": self.details_url} if self.details_url else {}
        extra["external_id"] = external_id
        with self._write("create the check run"):
            return self._repo.create_check_run(
                name=self.check_name,
                head_sha=head_sha,
                status="completed",
                conclusion=content.conclusion,
                output=_output(content, annotations),
                **extra,
            )

    def _append_annotations(
        self, run: CheckRun, content: CheckContent, annotations: list[dict[str, str | int]]
    ) -> None:
        """PATCH with the next batch: GitHub appends annotations (title and summary are re-sent as is)."""
        with self._write("append annotations to the check run"):
            run.edit(output=_output(content, annotations))

    def _status_fallback(self, head_sha: str, content: CheckContent, refused: NotPermitted) -> CheckResult:
        with self._write("post the commit status (fallback for the refused check run)"):
            self._repo.get_commit(head_sha).create_status(
                state=content.status_state,
                description=content.status_description,
                context=self.check_name,
                **({"target_url": self.details_url} if self.details_url else {}),
            )
        not_posted = [_not_posted("check run", refused)]
        if content.annotations:
            not_posted.append(
                NotPosted(
                    f"{len(content.annotations)} annotation(s)", "a commit status carries no annotations"
                )
            )
        return CheckResult(
            conclusion=content.conclusion,
            used_status_fallback=True,
            status_state=content.status_state,
            annotations_total=len(content.annotations),
            summary_truncated=content.summary_truncated,
            not_posted=tuple(not_posted),
        )

    # -- sticky comment ------------------------------------------------------------------------------
    def publish_comment(self, comment: StickyComment | None, pr_number: int) -> CommentResult:
        """Create or update the sticky comment (skipped when ``comment`` is None: mode ``never``);
        raises :class:`PublishError` on failure."""
        if comment is None:
            return CommentResult(CommentAction.SKIPPED)
        return self.upsert_sticky(pr_number, comment)

    def upsert_sticky(self, pr_number: int, comment: StickyComment) -> CommentResult:
        """Update the sticky comment in place when its body differs; create one if none and ``create``."""
        if not comment.body.startswith(comment.marker):
            raise ValueError("a sticky comment body must start with its marker")
        existing = self.find_sticky(pr_number, comment.marker)
        if existing is None:
            if not comment.create:
                return CommentResult(CommentAction.SKIPPED)
            created = self._create_comment_once(
                pr_number, comment.body, lambda: self.find_sticky(pr_number, comment.marker)
            )
            return CommentResult(CommentAction.CREATED, created.id, comment.truncated)
        if _same_text(existing.body, comment.body):
            return CommentResult(CommentAction.UNCHANGED, existing.id, comment.truncated)
        with self._write(f"update the sticky comment {existing.id}"):
            existing.edit(comment.body)
        return CommentResult(CommentAction.UPDATED, existing.id, comment.truncated)

    def _create_comment_once(
        self, issue_number: int, body: str, landed: Callable[[], IssueComment | None]
    ) -> IssueComment:
        """Post a comment exactly once: after a 5xx or a timeout, ``landed`` re-lists the comments
        and a comment it finds (with this very text) is adopted rather than posted a second time."""

        def post() -> IssueComment:
            with self._write(f"comment on #{issue_number}"):
                return self._repo.get_issue(issue_number).create_comment(body)

        def same() -> IssueComment | None:
            found = landed()
            return found if found is not None and _same_text(found.body, body) else None

        return _post_exactly_once(post, same, "comments")

    def _find_own_comment(self, issue_number: int, body: str) -> IssueComment | None:
        with github_call(f"list the comments of #{issue_number}"):
            for comment in self._repo.get_issue(issue_number).get_comments():
                if _same_text(comment.body, body) and self._is_ours(comment):
                    return comment
        return None

    def find_sticky(self, pr_number: int, marker: str) -> IssueComment | None:
        """The oldest comment of ours that starts with ``marker``, across every page of comments."""
        with github_call(f"list the comments of #{pr_number}"):
            for comment in self._repo.get_issue(pr_number).get_comments():
                if (comment.body or "").startswith(marker) and self._is_ours(comment):
                    return comment
        return None

    def _is_ours(self, comment: IssueComment) -> bool:
        """Written by the token's own identity (:meth:`own_login`), never just by some bot: the
        pull request's own agent or bot could plant the marker, and updating its comment is a 403."""
        return bool(comment.user.login == self.own_login())

    def own_login(self) -> str:
        """The login this token comments as: ``comment_author`` when given (the action's input, the
        bot's ``<slug>[bot]``); else ``GET /user`` for a user token; else (an installation token has
        no user: 403) ``github-actions[bot]``, GITHUB_TOKEN's author. An App installation token used
        in a workflow needs ``comment-author: <slug>[bot]``."""
        if self.comment_author is not None:
            return self.comment_author
        if self._own_login is None:
            try:
                with github_call("learn the token's own login (GET /user)"):
                    _, data = self._repo.requester.requestJsonAndCheck("GET", "/user")
                self._own_login = str(data["login"])
            except NotPermitted:
                self._own_login = GITHUB_ACTIONS_LOGIN
        return self._own_login

    # -- pull requests and bot commands ----------------------------------------------------------

    def pull_request(self, number: int) -> PullInfo:
        """``pulls/get``: head and base SHAs (check runs go on the head SHA, not the merge commit)."""
        with github_call(f"read pull request #{number}"):
            pull = self._repo.get_pull(number)
            head_repo = pull.head.repo
            return PullInfo(
                number=number,
                head_sha=pull.head.sha,
                base_sha=pull.base.sha,
                head_ref=pull.head.ref,
                base_ref=pull.base.ref,
                from_fork=head_repo is None or head_repo.full_name != pull.base.repo.full_name,
                author=pull.user.login,
                changed_files=pull.changed_files,
                mergeable=pull.mergeable,
                open=pull.state == "open",
            )

    def commit_parents(self, sha: str) -> tuple[str, ...]:
        """``repos/get-commit``: the parents GitHub records for commit ``sha``, in order."""
        with github_call(f"read commit {sha[:12]}"):
            return tuple(parent.sha for parent in self._repo.get_commit(sha).parents)

    def pull_request_files(self, number: int) -> list[PullFile]:
        """``pulls/list-files``, every page (GitHub lists at most 3000 files: compare ``changed_files``)."""
        with github_call(f"list the files of pull request #{number}"):
            return [
                PullFile(f.filename, f.previous_filename, f.status)
                for f in self._repo.get_pull(number).get_files()
            ]

    def review_reader(self) -> ReviewReader:
        """v3.5 approvals: this repository's reviews, team memberships and permissions."""
        from oracle_gate.github.reviews import ReviewReader

        return ReviewReader(self._repo)

    def permission_of(self, login: str) -> str:
        """``admin``, ``write``, ``read`` or ``none`` (also for an unknown user) on this repository."""
        try:
            with github_call(f"read the permission of {login}"):
                return str(self._repo.get_collaborator_permission(login))
        except NotFound:
            return "none"

    def react(self, issue_number: int, comment_id: int, content: str) -> None:
        """Add a reaction: ``eyes``/``+1`` for an accepted command, ``confused``/``-1`` for an ignored one."""
        if content not in REACTIONS:
            raise ValueError(f"reaction must be one of {sorted(REACTIONS)}")
        with self._write(f"react {content} to comment {comment_id}"):
            self._repo.get_issue(issue_number).get_comment(comment_id).create_reaction(content)

    def reply(self, issue_number: int, body: str) -> int:
        """Post a plain (non-sticky) comment, already cut to GitHub's limit; returns its id."""
        found = self._create_comment_once(
            issue_number, body, lambda: self._find_own_comment(issue_number, body)
        )
        return int(found.id)


def _output(content: CheckContent, annotations: list[dict[str, str | int]]) -> dict[str, Any]:
    output: dict[str, Any] = {"title": content.title, "summary": content.summary}
    if annotations:
        output["annotations"] = annotations
    return output


def _post_exactly_once(post: Callable[[], T], landed: Callable[[], T | None], listed: str) -> T:
    """``post()`` (a POST that creates something), at most :data:`POST_ATTEMPTS` times, yet creating
    it once: after a 5xx or a timeout the POST may have landed (GitHub has no idempotency keys), so
    ``landed()`` re-lists the ``listed`` and what it finds is adopted instead of posting again."""
    for attempt in range(POST_ATTEMPTS):
        try:
            return post()
        except GitHubUnavailable as err:
            _log.warning("%s; re-listing the %s before trying again", err, listed)
            found = landed()
            if found is not None:
                return found
            if attempt + 1 == POST_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


#: How GitHub words a 422 on a check run's size ("Only 65535 characters are allowed; 78664 were
#: supplied.", as users report it) and how the fake words it.
_SIZE_REFUSAL = re.compile(r"(?i)characters are allowed|too long|longer than|larger than")


def _is_size_refusal(err: RequestRejected) -> bool:
    return err.status == 422 and _SIZE_REFUSAL.search(err.why) is not None


def _batches(items: list[T], size: int) -> list[list[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _same_text(a: str | None, b: str) -> bool:
    """Equal bodies, ignoring the CRLF/LF difference GitHub may introduce."""
    return (a or "").replace("\r\n", "\n") == b.replace("\r\n", "\n")


__all__ = [
    "DEFAULT_API_URL",
    "DEFAULT_CHECK_NAME",
    "CheckContent",
    "CheckResult",
    "CommentAction",
    "CommentResult",
    "GateRetry",
    "GitHubUnavailable",
    "NotFound",
    "NotPermitted",
    "NotPosted",
    "PublishError",
    "PublishResult",
    "Publisher",
    "PullFile",
    "PullInfo",
    "RateLimited",
    "RequestRejected",
    "RetrySettings",
    "StickyComment",
    "WritesSpent",
    "make_client",
    "make_retry",
    "open_repo",
]
