"""Which ref's workflow file GitHub runs for each event, from /work/shared/github/README.md.

The facts (README, "Corrections and additions", and its ``pull_request_target`` row):

* ``pull_request``: the file of the pull request's merge commit (``refs/pull/N/merge``): the pull
  request can rewrite or delete any job and add any job;
* ``pull_request_target``: the default branch's (github.com since 2025-12-08; GHES < 3.20: the base's);
* ``workflow_run`` and ``issue_comment``: the default branch's;
* ``merge_group``: the queue's merge commit (``gh-readonly-queue/...``), which holds the queued pull
  requests' changes, their workflow edits included: trusted only when those edits cannot be queued
  unjudged, i.e. the gate step protects ``.github/workflows/**``;
* ``push``: the pushed commit's, so the default branch's only for pushes filtered to it;
* ``schedule``: the default branch's latest commit (GitHub's events page, ``schedule``);
* ``workflow_dispatch``: the ref the dispatcher picks, any branch it can push.
"""

from __future__ import annotations

from enum import Enum


class WorkflowFile(Enum):
    """Whose copy of the workflow file a run executes."""

    DEFAULT_BRANCH = "the default branch's"
    PR_MERGE_COMMIT = "the pull request's merge commit's"
    MERGE_GROUP_COMMIT = "the merge queue's merge commit's"
    PUSHED_REF = "the pushed ref's"
    CHOSEN_REF = "the ref the dispatcher chose"


WORKFLOW_FILE_BY_EVENT: dict[str, WorkflowFile] = {
    "pull_request": WorkflowFile.PR_MERGE_COMMIT,
    "pull_request_target": WorkflowFile.DEFAULT_BRANCH,
    "workflow_run": WorkflowFile.DEFAULT_BRANCH,
    "issue_comment": WorkflowFile.DEFAULT_BRANCH,
    "merge_group": WorkflowFile.MERGE_GROUP_COMMIT,
    "push": WorkflowFile.PUSHED_REF,
    "schedule": WorkflowFile.DEFAULT_BRANCH,
    "workflow_dispatch": WorkflowFile.CHOSEN_REF,
}


def workflow_file_of(event: str, *, push_branches: list[str] | None, default_branch: str) -> WorkflowFile:
    """The workflow file a run of ``event`` executes; a ``push`` filtered to the default branch alone
    runs that branch's file. An event not in the table is treated as the pull request's (fail closed)."""
    found = WORKFLOW_FILE_BY_EVENT.get(event, WorkflowFile.PR_MERGE_COMMIT)
    if found is WorkflowFile.PUSHED_REF and push_branches == [default_branch]:
        return WorkflowFile.DEFAULT_BRANCH
    return found
