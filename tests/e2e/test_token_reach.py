"""No child of the action can read the token: not from its own environment, and not from the
``/proc/<pid>/environ`` of the action or any other ancestor (TRUST.md invariant 9)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.github_fake import FakeGitHub
from tests.support.harness import Runner
from tests.support.project import Project
from tests.support.token_probe import holders, write_probe


def probe(tmp_path: Path) -> tuple[str, Path]:
    script, out = write_probe(tmp_path), tmp_path / "probe.json"
    return f"python {script} {out}", out


def test_a_coverage_command_finds_the_token_in_no_environment_it_can_read(
    project: Project, fake: FakeGitHub, tmp_path: Path
) -> None:
    """entrypoint.py as the Docker action runs it; the map build's command reads its own environment
    and every ancestor's /proc/<pid>/environ up the tree (the action's included)."""
    runner = Runner(project, fake, tmp_path)  # a subprocess: the real entrypoint
    command, out = probe(tmp_path)
    pr = project.pulls[2]
    result = runner.run_target(pr, inputs={"coverage-file": "", "coverage-command": command})
    assert holders(json.loads(out.read_text()), fake.token) == []
    assert result.outputs["verdict"] != "pass_clean"
    assert fake.check_runs()[-1].conclusion != "success"
