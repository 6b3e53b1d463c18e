"""Keep the token out of every child's reach (TRUST.md invariant 9).

GitHub starts the Docker action with the token in its environment (``INPUT_GITHUB-TOKEN``).
``os.environ.pop`` removes it from what children inherit, but not from ``/proc/<pid>/environ``: that
file shows the environment the process was *exec'd* with, and any process of the same user (a
``coverage-command``'s tests, git's hooks) can read its parent's. So the entrypoint first re-execs
itself (same pid, same argv) with the token removed from the environment and written into a pipe
whose read end is the only thing the new image inherits; the new image reads the pipe once, closes
it, and hands the token to :func:`oracle_gate.action.entry.main` in a private mapping. After that, no
environment block of this process, initial or current, holds the token, and no descriptor a child
inherits leads to it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence

from oracle_gate.errors import Refused

TOKEN_INPUT = "INPUT_GITHUB-TOKEN"  # noqa: S105 - the variable's name, not a token
TOKEN_FD = "ORACLE_GATE_TOKEN_FD"  # noqa: S105 - the variable's name, not a token
MAX_TOKEN_BYTES = 4096  # a pipe holds 64 KiB; GitHub's tokens are well under 1 KiB


class HandoffError(Refused):
    """The token could not be handed to the re-exec'd entrypoint."""


def reexec_without_token(environ: Mapping[str, str], argv: Sequence[str]) -> None:
    """Re-exec this interpreter with ``argv`` (``sys.orig_argv``) and ``environ`` minus the token,
    passing the token through an inherited pipe. Returns only when there is no token to hide."""
    token = environ.get(TOKEN_INPUT)
    if token is None:
        return
    data = token.encode("utf-8", "surrogateescape")
    if len(data) > MAX_TOKEN_BYTES:
        raise HandoffError(f"input 'github-token' is longer than {MAX_TOKEN_BYTES} bytes: not a GitHub token")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    os.set_inheritable(read_end, True)
    child_env = {name: value for name, value in environ.items() if name not in (TOKEN_INPUT, TOKEN_FD)}
    child_env[TOKEN_FD] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    # The same interpreter and argv, no shell: nothing here is the pull request's.
    os.execve(sys.executable, [sys.executable, *argv[1:]], child_env)  # noqa: S606


def environ_with_token(environ: Mapping[str, str]) -> dict[str, str]:
    """A private copy of ``environ`` holding the token read from the pipe :func:`reexec_without_token`
    left (the descriptor is closed; the process environment is not changed)."""
    private = dict(environ)
    where = private.pop(TOKEN_FD, None)
    if where is None:
        return private
    try:
        fd = int(where)
    except ValueError as exc:
        raise HandoffError(f"{TOKEN_FD} is not a file descriptor: {where!r}") from exc
    try:
        chunks = []
        while chunk := os.read(fd, MAX_TOKEN_BYTES + 1):
            chunks.append(chunk)
    except OSError as exc:
        raise HandoffError(f"cannot read the token from descriptor {fd}: {exc.strerror or exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    private[TOKEN_INPUT] = b"".join(chunks).decode("utf-8", "surrogateescape")
    return private
