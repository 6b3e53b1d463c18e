"""Values the Action and ``oracle-gate publish`` share: defaults, the repository pattern, comment
modes.

Standard library only, so the command line reads them at start without loading PyGithub or jinja2.
"""

from __future__ import annotations

import re
from enum import StrEnum

DEFAULT_CHECK_NAME = "Oracle Gate"  # also action.yml's default for the check-name input
DEFAULT_API_URL = "https://api.github.com"
#: Annotations posted per run (TRUST.md invariant 8): 500 is 10 write requests (50 per request); the
#: summary says how many were left out. 50,000 marker lines would otherwise spend a GITHUB_TOKEN's
#: whole hourly budget.
MAX_ANNOTATIONS_PER_RUN = 500  # input max-annotations' default
MAX_ANNOTATIONS_INPUT = 10_000  # the most max-annotations allows (200 write requests)
#: Write requests per run (input max-api-writes' default): a check run with the 500 annotations of
#: MAX_ANNOTATIONS_PER_RUN is 10, the sticky comment 1, a reply and two reactions 3; the rest is room
#: for reconciling lost answers.
DEFAULT_MAX_API_WRITES = 40
MAX_API_WRITES_INPUT = 1000  # the most max-api-writes allows (GitHub's hourly GITHUB_TOKEN budget is 1000)
#: The run's wall-time budget in seconds (input time-budget; oracle_gate.action.budget).
DEFAULT_TIME_BUDGET = 900
MIN_TIME_BUDGET = 1
MAX_TIME_BUDGET = 6 * 3600  # a GitHub-hosted job's own limit
REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")  # OWNER/NAME


class CommentMode(StrEnum):
    """When the sticky comment is posted (the action's ``comment`` input, ``publish --comment``)."""

    ALWAYS = "always"  # create the sticky comment, or update it when its body changed
    ON_CHANGE = "on-change"  # the same, but never create one just to say pass_clean
    NEVER = "never"


def is_repository(value: str) -> bool:
    """True for ``OWNER/NAME``."""
    return REPOSITORY.fullmatch(value) is not None


#: What the bot's GitHub App asks for (its manifest) and what doctor checks a bot setup's App has.
APP_PERMISSIONS = {
    "checks": "write",
    "pull_requests": "write",
    "issues": "write",
    "contents": "read",
    "actions": "read",
    "metadata": "read",
    "members": "read",  # v3.5: whether a reviewer is a member of a team the policy names
}
APP_EVENTS = [
    "pull_request",
    "pull_request_review",  # v3.5: a review may add or take back an approval
    "check_suite",
    "check_run",
    "merge_group",
    "issue_comment",
    "push",
    # Issue 29: an approval counts only while its approver holds write access (and, for a team the
    # policy names, its membership): a collaborator's permission, a team's members or a team's
    # repositories changing re-judges the pull requests whose verdict rests on approvals.
    "member",
    "membership",
    "team",
    "workflow_run",
]
