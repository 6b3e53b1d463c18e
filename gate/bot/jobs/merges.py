"""The bot's look at a pull request's test merge, for :func:`oracle_gate.review.freshness.fresh_merge`.

One look is ``pulls/get`` (head, base branch, ``mergeable``) and, once ``mergeable`` is known, one
``git fetch`` of both ``refs/pull/N/merge`` and ``refs/heads/<base>`` into refs private to the pull
request, so the merge's parents are compared with the base's tip of the same moment.
"""

from __future__ import annotations

from collections.abc import Callable

from oracle_gate.bot.jobs import mirror
from oracle_gate.errors import GateError
from oracle_gate.git import Git
from oracle_gate.github.pulls import PullInfo, Pulls
from oracle_gate.review.freshness import Sighting

NOT_IN_A_BRANCH_NAME = frozenset(" :^~?*[\\\t\n")


def looker(git: Git, url: str, token: str, pulls: Pulls, first: PullInfo) -> Callable[[], Sighting]:
    """A function that takes one look at pull request ``first.number``'s test merge; the first look
    uses ``first`` (the job's own ``pulls/get``), each later one asks again."""
    number = first.number
    merge_ref = f"refs/oracle-gate/pull/{number}/merge"
    base_ref = f"refs/oracle-gate/pull/{number}/base"
    answers = [first]

    def look() -> Sighting:
        pull = answers.pop() if answers else pulls.pull_request(number)
        branch = pull.base_ref
        if not branch or branch.startswith("-") or NOT_IN_A_BRANCH_NAME & set(branch):
            raise GateError(f"pulls/get names the base branch {branch!r} of #{number}: not a branch name")
        if pull.mergeable is not True:
            return Sighting(number, pull.head_sha, branch, None, pull.mergeable)
        refspecs = [f"+refs/pull/{number}/merge:{merge_ref}", f"+refs/heads/{branch}:{base_ref}"]
        mirror.fetch(git, url, refspecs, token)
        merge = git.commit(merge_ref)
        second = git.commit(f"{merge}^2") if git.has_commit(f"{merge}^2") else None
        return Sighting(
            number,
            pull.head_sha,
            branch,
            git.commit(base_ref),
            True,
            merge,
            git.commit(f"{merge}^1"),
            second,
        )

    return look
