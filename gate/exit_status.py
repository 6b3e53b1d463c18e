"""The exit statuses of ``oracle-gate`` and of the Action, in one place.

The command line exits with the verdict (0 ``pass_clean``, 1 ``fail``, 2 ``unscored``, see
:attr:`oracle_gate.judge.verdict.Verdict.exit_status`); the Action exits 1 when the verdict is one of
``fail-on``. Both exit 3 when the gate could not run, so that status is never mistaken for a verdict.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0  # CLI: pass_clean or the command did its job; Action: the verdict is not in fail-on
    FAILED = 1  # CLI: the verdict is fail; Action: the verdict is one of fail-on
    UNSCORED = 2  # CLI only: the verdict is unscored
    CANNOT_RUN = 3  # no verdict: bad arguments or configuration, or the gate broke
