"""What is posted to GitHub and what came of it: the values the write side (:mod:`.checks`,
:mod:`.comments`), the rendering (:mod:`.content`) and both doors share."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from oracle_gate.github.client import NotPermitted, PublishError

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
class CheckTarget:
    """Where a check goes: the commit, the check's name, the id a retry finds it by, its link.

    ``external_id`` set: a caller that may run again after a crash (the bot); a later attempt finds
    the run by it and finishes it instead of adding one. None: a fresh random id per post."""

    head_sha: str
    name: str
    external_id: str | None = None
    details_url: str | None = None


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


def not_posted(what: str, err: PublishError) -> NotPosted:
    """``what`` was not posted because of ``err``."""
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
    """A check, then a sticky comment: what came of each."""

    check: CheckResult
    comment: CommentResult

    @property
    def not_posted(self) -> tuple[NotPosted, ...]:
        return self.check.not_posted + self.comment.not_posted
