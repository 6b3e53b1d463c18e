"""Run the Docker action's main in this process, with what it would have as a process of its own.

:func:`run_action` gives :func:`gate.action.entry.main` exactly the environment, working directory,
standard output and standard error the subprocess harness gives ``entrypoint.py``, and restores
everything process-wide it touches (``os.environ``, the working directory, the umask, the logging
configuration) afterwards. The one difference from production is the GitHub client: the same
factory, :func:`~gate.action.publisher.make_client`, without PyGithub's pacing between requests and
with no exponential backoff between retries (waits GitHub asks for are still honoured).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from github import Github

from gate.action.entry import main
from gate.action.publisher import RetrySettings, make_client

UNPACED_RETRY = dataclasses.replace(RetrySettings(), backoff_factor=0)
# The loggers the entrypoint configures; their handlers and levels are put back after each run.
ACTION_LOGGERS = ("", "github", "github.GithubRetry", "gate.action.publisher")


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
