"""Exceptions named for what went wrong.

Two families, because they end differently:

* :class:`GateError` -- the gate cannot run at all (not a repository, unknown
  revision, git broke). The CLI exits 3 and no verdict is produced.
* :class:`InputError` -- one oracle input (policy, freeze manifest, lock,
  coverage map) is unusable. The gate still runs; the core turns the problem
  into the ``oracle_incomplete`` reason, so a bad input can never pass.
"""

from __future__ import annotations


class GateError(Exception):
    """The gate could not run; no verdict can be given."""


class GitError(GateError):
    """A git command failed where the gate needed its answer."""


class NotARepository(GitError):
    """The directory given as the repository is not a git repository."""


class UnknownRevision(GitError):
    """A revision named on the command line does not resolve to a commit."""


class OutputError(GateError):
    """A report could not be written where it was asked for."""


class UsageError(GateError):
    """The command line or the action inputs are wrong."""


class StoredVerdictError(UsageError):
    """A stored ``verdict.json`` (given to ``publish``) is unreadable or not a verdict."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source} is not a verdict.json: {' '.join(problem.split())}")
        self.source = source
        self.problem = problem


class InputError(Exception):
    """An oracle input is malformed: names the file and what is wrong with it."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem
