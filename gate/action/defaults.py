"""Values the Action and ``oracle-gate publish`` share: defaults, the repository pattern, comment modes.

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
MAX_ANNOTATIONS_PER_RUN = 500
#: The run's wall-time budget in seconds (input time-budget; gate.action.budget).
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
