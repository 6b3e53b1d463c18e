"""The Docker action's entrypoint: the process's environment in, exit status out.

First the token leaves the process environment for good (:mod:`oracle_gate.action.token_handoff`: a re-exec
without it, the token passed through a pipe), so no child can read it, not even from
``/proc/<this pid>/environ``. Everything else is :func:`oracle_gate.action.entry.main` (configuration,
clients, the run, failing closed), which the end-to-end tests also call in-process.
"""

from __future__ import annotations

import os
import sys

from oracle_gate.action.entry import main
from oracle_gate.action.token_handoff import TOKEN_FD, HandoffError, environ_with_token, reexec_without_token
from oracle_gate.action.workflow_io import workflow_command
from oracle_gate.exit_status import ExitStatus


def start() -> int:
    try:
        reexec_without_token(os.environ, sys.orig_argv)
        environ = environ_with_token(os.environ)
    except (HandoffError, OSError) as exc:
        print(workflow_command("error", f"Oracle Gate: {exc}"), flush=True)
        return ExitStatus.CANNOT_RUN
    os.environ.pop(TOKEN_FD, None)
    return main(environ)


if __name__ == "__main__":
    sys.exit(start())
