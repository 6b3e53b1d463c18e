"""GitHub Actions' cache, modelled by scope, from /work/shared/github/README.md ("Corrections and
additions", Caches): a run saves a key in its own ref's scope; it restores from its own scope first,
then the default branch's. So a pull request's ``pull_request`` run (scope ``refs/pull/N/merge``) can
save any key, and only its own later runs see it first; default-branch entries are read by all.

Which scope a run has, by event: ``pull_request``: ``refs/pull/N/merge``; ``pull_request_target``,
``workflow_run``, ``issue_comment`` and ``schedule``: the default branch (their ``GITHUB_REF``);
``merge_group``: the queue's branch ``refs/heads/gh-readonly-queue/<base>/...``; ``push``: the pushed ref.
A saved key is not overwritten (actions/cache: the first save of a key in a scope wins).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

DEFAULT_BRANCH_SCOPED = frozenset({"pull_request_target", "workflow_run", "issue_comment", "schedule"})


def scope_of(event: str, *, default_branch: str, pr_number: int | None = None, ref: str | None = None) -> str:
    """The cache scope (a ref) of a run of ``event``."""
    if event == "pull_request":
        if pr_number is None:
            raise ValueError("a pull_request run's scope names its pull request")
        return f"refs/pull/{pr_number}/merge"
    if event in DEFAULT_BRANCH_SCOPED:
        return f"refs/heads/{default_branch}"
    if event == "merge_group":
        return f"refs/heads/gh-readonly-queue/{default_branch}/pr-{pr_number or 0}"
    if event == "push" and ref:
        return ref
    raise ValueError(f"no cache scope modelled for {event!r} (ref {ref!r})")


@dataclass
class CacheStore(Generic[T]):
    """Entries by (scope, key); ``restore`` looks in the run's scope, then the default branch's."""

    default_branch: str = "main"
    entries: dict[tuple[str, str], T] = field(default_factory=dict)

    def save(self, scope: str, key: str, value: T) -> bool:
        """Save ``value`` under ``key`` in ``scope``; False (nothing saved) if the key is taken there."""
        if (scope, key) in self.entries:
            return False
        self.entries[(scope, key)] = value
        return True

    def restore_order(self, scope: str) -> list[str]:
        default = f"refs/heads/{self.default_branch}"
        return [scope] if scope == default else [scope, default]

    def restore(self, scope: str, key: str) -> T | None:
        for where in self.restore_order(scope):
            if (where, key) in self.entries:
                return self.entries[(where, key)]
        return None


EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def cache_key(template: str, values: dict[str, Any]) -> str:
    """A workflow's ``key:`` with each ``${{ expr }}`` replaced from ``values`` (a missing one raises)."""
    return EXPRESSION.sub(lambda m: str(values[m.group(1)]), template)


PUSH_ONLY = "github.event_name == 'push'"


def restore_key_templates(workflow: dict[str, Any], *, push_jobs: bool = False) -> list[str]:
    """The ``key:`` of every ``actions/cache/restore`` (or ``actions/cache``) step of a workflow's
    judging jobs; with ``push_jobs``, of its jobs that run only on a push (``if:`` exactly
    :data:`PUSH_ONLY`), whose cache scope is the pushed branch's alone."""
    return [
        str(step["with"]["key"])
        for job in workflow["jobs"].values()
        if (str(job.get("if", "")).strip() == PUSH_ONLY) == push_jobs
        for step in job.get("steps", [])
        if str(step.get("uses", "")).startswith(("actions/cache/restore@", "actions/cache@"))
    ]
