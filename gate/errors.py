"""Every exception the gate raises on purpose, named for how it ends.

One root, :class:`OracleGateError`, and one family per outcome, because each ends differently:

* :class:`GateError` -- the gate cannot run at all (not a repository, unknown
  revision, git broke, a bad input of the Action or the command line). The CLI
  exits 3 and no verdict is produced; the Action posts a failure check.
* :class:`InputError` -- one oracle input (policy, freeze manifest, lock,
  coverage map) is unusable. The gate still runs; the core turns the problem
  into the ``oracle_incomplete`` reason, so a bad input can never pass.
* :class:`Refused` -- untrusted input refused before any use (a webhook body
  or payload of the wrong shape or size, a map artifact, a file that is not a
  regular file or is over its cap, a token handed over wrong). Whoever reads it
  answers no (HTTP 4xx, no map, a failure check); nothing is judged from it.
* :class:`PublishError` -- GitHub did not take what was posted (refused,
  unavailable, rate limited); says what and why, never the token.
* :class:`RetryLater` -- worth another attempt later (the bot requeues the job).

Every message names the file or the input it is about and the problem, in one line.
"""

from __future__ import annotations


class OracleGateError(Exception):
    """The root: an error the gate raised on purpose (anything else is a bug)."""


class GateError(OracleGateError):
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


class InputError(OracleGateError):
    """An oracle input is malformed: names the file and what is wrong with it."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class Refused(OracleGateError):
    """Untrusted input refused before any use; the message names the input and why."""


class PublishError(OracleGateError):
    """Something could not be posted on GitHub; says what and why, never the token."""

    def __init__(self, what: str, why: str, status: int | None = None) -> None:
        super().__init__(f"could not {what}: {why}")
        self.what = what
        self.why = why
        self.status = status


class RetryLater(OracleGateError):
    """Worth another attempt later (GitHub unavailable or rate limited, the process stopping)."""
