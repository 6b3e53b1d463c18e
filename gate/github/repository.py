"""One repository on GitHub as the gate uses it: its pull requests, its checks and its comments,
built once over one PyGithub repository and one write budget."""

from __future__ import annotations

from dataclasses import dataclass

from github.Repository import Repository

from oracle_gate.github.checks import Checks
from oracle_gate.github.comments import Comments
from oracle_gate.github.pulls import Pulls
from oracle_gate.github.writes import MAX_WRITES_PER_RUN, WriteBudget


@dataclass(frozen=True)
class GitHubRepo:
    """The three sides of one repository; the checks and the comments spend one write budget."""

    pulls: Pulls
    checks: Checks
    comments: Comments


def connect(
    repo: Repository,
    *,
    check_app: str | None = None,
    comment_author: str | None = None,
    max_writes: int = MAX_WRITES_PER_RUN,
) -> GitHubRepo:
    """``repo`` (from :func:`oracle_gate.github.client.open_repo`: lazy, never a token) as the gate
    uses it. ``check_app``: the App slug whose check runs count as ours (None: any);
    ``comment_author``: the login the token comments as, when known; ``max_writes``: the bound on
    the write requests the checks and the comments send together."""
    writes = WriteBudget(max_writes)
    return GitHubRepo(
        pulls=Pulls(repo),
        checks=Checks(repo, writes, check_app),
        comments=Comments(repo, writes, comment_author),
    )
