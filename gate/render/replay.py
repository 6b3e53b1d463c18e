"""The command that replays a verdict on the reader's machine."""

from __future__ import annotations

import shlex

from oracle_gate.judge.verdict import Verdict


def replay_command(v: Verdict) -> str:
    """The ``oracle-gate check`` command that replays ``v``: its commits and every option that
    ``protocol.options`` records (``--protect``, ``--allow-failing-parent``), each shell-quoted.

    ``--protect=GLOB`` is one word so that a glob starting with ``-`` is not read as an option.
    ``MAP`` is a placeholder: the map's path is the reader's, its digest is in the protocol.
    """
    words = ["oracle-gate", "check", "--repo", ".", "--base", v.parent, "--head", v.head]
    words += ["--coverage", "MAP", "--coverage-sha", v.parent]
    words += [f"--protect={glob}" for glob in v.protocol.extra_protected]
    if v.protocol.allow_failing_parent:
        words.append("--allow-failing-parent")
    return " ".join(shlex.quote(word) for word in words)
