"""Reading a repository's pull requests, commits and permissions (never writing)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from github.Repository import Repository

from oracle_gate.github.client import NotFound, github_call

if TYPE_CHECKING:
    from oracle_gate.github.reviews import ReviewReader


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


@dataclass(frozen=True)
class Pulls:
    """One repository's pull requests, over the (lazy) PyGithub repository; never a token."""

    repo: Repository = field(repr=False)

    def pull_request(self, number: int) -> PullInfo:
        """``pulls/get``: head and base SHAs (check runs go on the head SHA, not the merge commit)."""
        with github_call(f"read pull request #{number}"):
            pull = self.repo.get_pull(number)
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
            return tuple(parent.sha for parent in self.repo.get_commit(sha).parents)

    def pull_request_files(self, number: int) -> list[PullFile]:
        """``pulls/list-files``, every page (GitHub lists at most 3000 files: compare ``changed_files``)."""
        with github_call(f"list the files of pull request #{number}"):
            return [
                PullFile(f.filename, f.previous_filename, f.status)
                for f in self.repo.get_pull(number).get_files()
            ]

    def review_reader(self) -> ReviewReader:
        """v3.5 approvals: this repository's reviews, team memberships and permissions."""
        from oracle_gate.github.reviews import ReviewReader

        return ReviewReader(self.repo)

    def permission_of(self, login: str) -> str:
        """``admin``, ``write``, ``read`` or ``none`` (also for an unknown user) on this repository."""
        try:
            with github_call(f"read the permission of {login}"):
                return str(self.repo.get_collaborator_permission(login))
        except NotFound:
            return "none"
