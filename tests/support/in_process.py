"""Run the Docker action's main, or the CLI, in this process, as if it were a process of its own.

:func:`run_action` gives :func:`oracle_gate.action.entry.main` exactly the environment, working directory,
standard output and standard error the subprocess harness gives ``entrypoint.py``, and restores
everything process-wide it touches (``os.environ``, the working directory, the umask, the logging
configuration) afterwards; :func:`run_cli` does the same for ``oracle-gate``. The one difference
from production is the action's GitHub client: the same factory,
:func:`~oracle_gate.github.client.make_client`, without PyGithub's pacing between requests and with no
exponential backoff between retries (waits GitHub asks for are still honoured).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from github import Github

from oracle_gate import cli
from oracle_gate.action.entry import main
from oracle_gate.github.client import RetrySettings, make_client
from oracle_gate.github.writes import POSTING_LOGGER
from tests.support.repo import clean_env

Completed = subprocess.CompletedProcess[str]

UNPACED_RETRY = dataclasses.replace(RetrySettings(), backoff_factor=0)
# The loggers the entrypoint configures; their handlers and levels are put back after each run.
ACTION_LOGGERS = ("", "github", "github.GithubRetry", POSTING_LOGGER)


def unpaced_client(token: str, api_url: str) -> Github:
    """The production client without PyGithub's pacing (0.25 s per request, 1 s per write)."""
    return make_client(
        token, api_url, retry=UNPACED_RETRY, seconds_between_requests=0, seconds_between_writes=0
    )


@dataclasses.dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str


def run_action(env: Mapping[str, str], cwd: Path) -> Outcome:
    """``entrypoint.py`` as if started with ``env`` in ``cwd``, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with (
        process_environment(env, cwd),
        pristine_logging(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        status = main(os.environ, out=out, make_github=unpaced_client)
    return Outcome(status, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def process_environment(env: Mapping[str, str], cwd: Path) -> Iterator[None]:
    """``os.environ`` is exactly ``env`` and the working directory ``cwd``; both (and the umask)
    restored afterwards."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_umask = os.umask(0o022)
    os.umask(saved_umask)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        os.umask(saved_umask)


@contextlib.contextmanager
def pristine_logging() -> Iterator[None]:
    """Logging as a fresh process has it (no root handler, so the entrypoint's ``basicConfig``
    writes to the redirected standard error); the previous handlers and levels restored after."""
    loggers = [logging.getLogger(name) for name in ACTION_LOGGERS]
    saved = [(logger, list(logger.handlers), logger.level) for logger in loggers]
    logging.getLogger().handlers.clear()
    try:
        yield
    finally:
        for logger, handlers, level in saved:
            for added in set(logger.handlers) - set(handlers):
                added.close()
            logger.handlers[:] = handlers
            logger.setLevel(level)


def run_cli(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Completed:
    """``python -m oracle_gate *args`` as :func:`tests.support.repo.run_cli` runs it, in this process:
    :func:`oracle_gate.cli.main` with that environment and working directory, its output captured and its
    exit status (argparse's ``SystemExit`` included) returned."""
    out, err = io.StringIO(), io.StringIO()
    with (
        process_environment(env if env is not None else clean_env(), cwd or Path.cwd()),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            status = cli.main(list(args))
        except SystemExit as exc:
            status = exit_status(exc)
    return subprocess.CompletedProcess(
        [sys.executable, "-m", "oracle_gate", *args], status, out.getvalue(), err.getvalue()
    )


def exit_status(exc: SystemExit) -> int:
    """The status a process exiting with ``exc`` would have (a message means 1, as Python does)."""
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1
