"""The replay command the comment prints, run as printed, gives the same verdict.

The verdict is made with options that change it (an extra protected glob with a space and a quote,
``allow_failing_parent``); the command is taken from the rendered comment, split like a shell would
split it, and run as a subprocess in the repository with the map's path in place of ``MAP``.
"""

from __future__ import annotations

import json
import shlex

from oracle_gate.render.formats import format_verdict
from oracle_gate.render.markdown import to_markdown
from tests.support.factories import Project
from tests.support.markdown import replay_command_of
from tests.support.repo import run_cli

GLOBS = ("vendor data/**", "it's/**")


def test_the_printed_command_replays_the_verdict(project: Project) -> None:
    head = project.head(lambda repo: repo.write("vendor data/table.csv", "a,b\n"))
    verdict = project.check(head, protect=GLOBS, allow_failing_parent=True)
    assert verdict.verdict == "fail"
    assert "protected by 'vendor data/**'" in verdict.reasons[0].detail
    assert project.check(head).verdict != "fail", "the extra glob must be what makes it fail"

    argv = shlex.split(replay_command_of(to_markdown(verdict)))
    assert argv.count("MAP") == 1
    argv[argv.index("MAP")] = str(project.coverage)
    proc = run_cli(*argv[1:], "--format", "json", cwd=project.root)

    assert proc.returncode == verdict.exit_status, proc.stderr
    assert json.loads(proc.stdout) == json.loads(format_verdict(verdict, "json"))
