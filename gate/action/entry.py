"""The Docker action's main: environment in, exit status out; ``entrypoint.py`` only calls :func:`main`.

Reads the environment once into :class:`~oracle_gate.action.config.ActionConfig`, builds the real clients
once (PyGithub through ``make_github``, by default :func:`oracle_gate.github.client.make_client`; git
through :class:`oracle_gate.git.Git` trusting the workspace's owner for the gate's own commands only) and
calls :func:`oracle_gate.action.run.run`.

It never exits 0 by accident: a configuration error is one ``::error::`` line and exit 3, and so is
an unexpected exception, after trying to post a ``failure`` check on the pull request's head when
the run had learned it (fail closed: a required check must not stay pending or turn green).

The environment and the output stream are parameters so the end-to-end tests can run the same code
in-process (with a client that does not pace its requests); everything else is as in production.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, MutableMapping
from typing import TextIO

import github

from oracle_gate.action.budget import BudgetSpent, wall_time_budget
from oracle_gate.action.config import ActionConfig
from oracle_gate.action.run import EXIT_CANNOT_RUN, RunState, run
from oracle_gate.action.token_handoff import TOKEN_INPUT
from oracle_gate.action.workflow_io import redact, workflow_command
from oracle_gate.errors import UsageError
from oracle_gate.git import Git
from oracle_gate.github.client import PublishError, make_client, open_repo
from oracle_gate.github.content import error_check
from oracle_gate.github.repository import GitHubRepo, connect
from oracle_gate.github.values import CheckTarget
from oracle_gate.github.writes import POSTING_LOGGER

GithubFactory = Callable[[str, str], github.Github]
"""``(token, api_url) -> client``: :func:`make_client` in production."""

__all__ = ["TOKEN_INPUT", "GithubFactory", "configure_logging", "fail_closed", "main"]


def main(
    environ: MutableMapping[str, str],
    *,
    out: TextIO | None = None,
    make_github: GithubFactory = make_client,
) -> int:
    """Run the action once with ``environ`` (the process's environment in production: the token is
    removed from it before anything is started) and return the exit status."""
    out = out if out is not None else sys.stdout
    try:
        config = ActionConfig.from_environ(environ)
    except UsageError as exc:
        print(workflow_command("error", f"Oracle Gate: {exc}"), file=out, flush=True)
        return EXIT_CANNOT_RUN
    except Exception as exc:  # noqa: BLE001 - never a traceback and exit 1: one line, exit 3
        why = redact(f"{type(exc).__name__}: {exc}", [environ.get(TOKEN_INPUT, "")])
        print(
            workflow_command("error", f"Oracle Gate failed reading its configuration: {why}"),
            file=out,
            flush=True,
        )
        return EXIT_CANNOT_RUN
    # Nothing started from here on (git, a coverage-command's tests) needs the token in its environment.
    environ.pop(TOKEN_INPUT, None)
    state = RunState()
    remote: GitHubRepo | None = None
    try:
        configure_logging()
        remote = connect(
            open_repo(make_github(config.token, config.api_url), config.repository),
            comment_author=config.comment_author,
            max_writes=config.max_api_writes,
        )
        git = Git(config.repo_dir, trust_owner=True)
        with wall_time_budget(config.time_budget):
            return run(config, git, remote, out=out, state=state)
    except BudgetSpent as exc:  # spent while publishing: the failure check, unless one went out
        print(workflow_command("error", f"Oracle Gate: {exc}"), file=out, flush=True)
        fail_closed(remote, config, state, str(exc), out)
        return EXIT_CANNOT_RUN
    except Exception as exc:  # noqa: BLE001 - the last line of defence: report, fail closed, never exit 0
        why = redact(f"internal error: {type(exc).__name__}: {exc}", [config.token])
        print(workflow_command("error", f"Oracle Gate failed: {why}"), file=out, flush=True)
        fail_closed(remote, config, state, why, out)
        return EXIT_CANNOT_RUN


def configure_logging() -> None:
    """One line per retry on standard error, nothing twice.

    PyGithub installs its own stream handler on the ``github`` logger; it is replaced by the root
    handler here, and only ``github.GithubRetry`` (which says when and why it retries) is kept at
    INFO. The posting logger's warnings (:data:`~oracle_gate.github.writes.POSTING_LOGGER`) are left
    to oracle_gate.action.outcome, which prints each as ``::warning::``.
    """
    logging.getLogger("github").handlers.clear()
    logging.getLogger("github").setLevel(logging.WARNING)
    logging.getLogger("github.GithubRetry").setLevel(logging.INFO)
    logging.getLogger(POSTING_LOGGER).setLevel(logging.ERROR)
    logging.basicConfig(level=logging.WARNING, format="oracle-gate: %(message)s", stream=sys.stderr)


def fail_closed(
    remote: GitHubRepo | None, config: ActionConfig, state: RunState, why: str, out: TextIO
) -> None:
    """Post a failure check on the head commit unless a check already went out for this run."""
    if remote is None or state.head_sha is None or state.check_posted:
        return
    try:
        target = CheckTarget(state.head_sha, config.check_name, details_url=config.run_url)
        remote.checks.publish(error_check(why), target)
    except PublishError as exc:
        print(
            workflow_command("warning", f"Oracle Gate: the failure check was not posted: {exc}"),
            file=out,
            flush=True,
        )
