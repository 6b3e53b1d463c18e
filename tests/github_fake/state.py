"""What the fake GitHub remembers between requests: plain dataclasses, no HTTP.

The server (``server.py``) owns one :class:`State` and guards it with a lock;
tests read these objects to assert what was published.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

PERMISSIONS = ("admin", "maintain", "write", "triage", "read", "none")


def now_iso() -> str:
    """The current UTC time the way GitHub writes it (``YYYY-MM-DDTHH:MM:SSZ``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class RepoState:
    full_name: str
    id: int
    private: bool = False
    default_branch: str = "main"
    # login -> one of PERMISSIONS; a login not listed answers "none".
    permissions: dict[str, str] = field(default_factory=dict)

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]


@dataclass
class PullState:
    repo: str
    number: int
    id: int
    head_sha: str
    base_sha: str
    head_ref: str = "feature"
    base_ref: str = "main"
    fork: bool = False
    author: str = "agent-bot"
    head_owner: str = ""  # the fork's owner when ``fork``; the base repo's owner otherwise
    title: str = "A change written by an agent"
    labels: list[str] = field(default_factory=list)
    # What pulls/list-files answers (and pulls/get counts as ``changed_files``), in order.
    files: list[PullFileState] = field(default_factory=list)
    # What pulls/get answers as ``mergeable``, one per request, the last one from then on (GitHub
    # answers null while it computes the test merge after a push).
    mergeable: list[bool | None] = field(default_factory=lambda: [True])
    closed_at: str | None = None  # closed (an ISO time): pulls/get answers state "closed"


@dataclass
class PullFileState:
    filename: str
    status: str = "modified"  # added, removed, modified, renamed, copied, changed, unchanged
    previous_filename: str | None = None
    additions: int = 1
    deletions: int = 1


@dataclass
class CommitState:
    """A commit of a repository as ``repos/get-commit`` answers it: its SHA and its parents, in order."""

    repo: str
    sha: str
    parents: list[str]


@dataclass
class CommentState:
    repo: str
    issue_number: int
    id: int
    body: str
    user: str
    created_at: str
    updated_at: str


@dataclass
class CheckRunState:
    repo: str
    id: int
    name: str
    head_sha: str
    status: str = "queued"
    conclusion: str | None = None
    details_url: str | None = None
    external_id: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    # Appended across create and every update, as GitHub does.
    annotations: list[dict[str, Any]] = field(default_factory=list)
    updates: int = 0
    app_login: str = "github-actions"


@dataclass
class StatusState:
    repo: str
    sha: str
    id: int
    state: str
    context: str
    description: str | None
    target_url: str | None
    creator: str
    created_at: str


@dataclass
class ReactionState:
    repo: str
    comment_id: int
    id: int
    content: str
    user: str
    created_at: str


@dataclass
class WorkflowRunState:
    """One GitHub Actions run of a workflow file (``path``), as ``actions/list-workflow-runs`` lists it."""

    repo: str
    id: int
    path: str  # .github/workflows/<file>
    head_sha: str
    head_branch: str = "main"
    event: str = "push"
    status: str = "completed"
    conclusion: str | None = "success"
    head_repo: str = ""  # the repository the head is in; the run's own repository when empty


@dataclass
class ArtifactState:
    """An artifact of a run: its name and the zip ``actions/download-artifact`` redirects to."""

    repo: str
    id: int
    run_id: int
    name: str
    zip_bytes: bytes
    expired: bool = False


@dataclass
class HookDeliveryState:
    """One delivery of the App's webhook, as ``apps/list-webhook-deliveries`` lists it (newest first)."""

    id: int
    guid: str
    event: str
    action: str | None
    status_code: int
    delivered_at: str
    installation_id: int | None = None
    repository_id: int | None = None
    redelivery: bool = False

    @property
    def status(self) -> str:
        return "OK" if 200 <= self.status_code < 300 else "failed"


@dataclass
class State:
    """Everything the fake knows; ids come from one counter, as unique as GitHub's."""

    repos: dict[str, RepoState] = field(default_factory=dict)
    pulls: dict[tuple[str, int], PullState] = field(default_factory=dict)
    comments: list[CommentState] = field(default_factory=list)
    commits: dict[tuple[str, str], CommitState] = field(default_factory=dict)
    check_runs: list[CheckRunState] = field(default_factory=list)
    statuses: list[StatusState] = field(default_factory=list)
    reactions: list[ReactionState] = field(default_factory=list)
    workflow_runs: list[WorkflowRunState] = field(default_factory=list)
    artifacts: list[ArtifactState] = field(default_factory=list)
    hook_deliveries: list[HookDeliveryState] = field(default_factory=list)
    redelivered: list[int] = field(default_factory=list)  # delivery ids asked to be delivered again
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1001))

    def next_id(self) -> int:
        return next(self._ids)

    def issue_exists(self, repo: str, number: int) -> bool:
        """Issues are the pull requests registered for the repo (a PR is an issue)."""
        return (repo, number) in self.pulls

    def issue_comments(self, repo: str, number: int) -> list[CommentState]:
        return [c for c in self.comments if c.repo == repo and c.issue_number == number]

    def comment(self, repo: str, comment_id: int) -> CommentState | None:
        return next((c for c in self.comments if c.repo == repo and c.id == comment_id), None)

    def check_run(self, repo: str, run_id: int) -> CheckRunState | None:
        return next((r for r in self.check_runs if r.repo == repo and r.id == run_id), None)
