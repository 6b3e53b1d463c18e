"""Papercuts on the documented first-use path (issue 31), each seen on main."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.repo import clean_env


def test_demo_keep_with_a_relative_dir_keeps_the_map_there_and_gets_every_verdict_right(
    tmp_path: Path,
) -> None:
    """Seen on main: ``demo --keep DIR`` with a relative DIR wrote the map under the example
    repository (coverage is measured from inside it), got all three verdicts wrong, exit 1."""
    result = subprocess.run(
        [sys.executable, "-m", "oracle_gate", "demo", "--keep", "kept"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "kept" / "parent.coverage").is_file()
    assert (tmp_path / "kept" / "repo" / ".git").is_dir()


def test_demo_into_a_pipe_closed_early_exits_quietly(tmp_path: Path) -> None:
    """Seen on main: ``oracle-gate demo | head`` ended in "internal error: BrokenPipeError", exit 3.
    Now it stops as other commands do: nothing on standard error, the status of SIGPIPE."""
    script = (
        f'"{sys.executable}" -m oracle_gate demo | head -n 1 >/dev/null; echo "status=${{PIPESTATUS[0]}}" >&2'
    )
    env = {**clean_env(), "PYTHONUNBUFFERED": "1"}  # each line reaches the pipe as it is printed
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert result.stderr.strip().splitlines() == ["status=141"], result.stderr
    assert "internal error" not in result.stderr
    assert os.listdir(tmp_path) == []
