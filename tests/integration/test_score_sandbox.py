"""The scoring sandbox (oracle_gate.score.sandbox) for real under bubblewrap: each test tries one thing
head's code must not be able to do (read the token, the key, the state directory; open a socket)
or one limit it must not pass (CPU, memory, disk, wall clock), and one scores a change end to end.

Without ``bwrap`` these are skipped with one line (``.ci/run`` installs it); with ``CI=true`` they
fail instead, so CI cannot pass them by not having the tool.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import time
from pathlib import Path

import pytest

from oracle_gate.score.sandbox import (
    Limits,
    SandboxUnavailable,
    run_sandboxed,
    sandbox_argv,
    score_in_sandbox,
)
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

if shutil.which("bwrap") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("bwrap (bubblewrap) is required in CI for the sandbox tests")
    pytest.skip("bwrap (bubblewrap) is not installed: apt-get install bubblewrap", allow_module_level=True)

pytestmark = pytest.mark.process  # the scoring sandbox: bwrap and a process per run
LIMITS = Limits(cpu_seconds=20, memory_bytes=1024**3, disk_bytes=64 * 1024**2, wall_seconds=60)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_child_cannot_read_a_token_from_its_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secret")
    monkeypatch.setenv("ORACLE_GATE_WEBHOOK_SECRET", "hook-secret")
    code = (
        "import os, pathlib\nprint(sorted(os.environ))\n"
        "print(pathlib.Path(f'/proc/{os.getppid()}/environ').read_bytes())\n"
    )
    done = run_sandboxed(python(code), LIMITS)
    assert done.exit_status == 0, done.stderr
    assert b"secret" not in done.stdout
    assert b"GITHUB_TOKEN" not in done.stdout


def test_the_child_cannot_read_the_key_file_or_the_state_directory(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "repos").mkdir(parents=True)
    (state / "verdicts.json").write_text("stored verdicts")
    key = tmp_path / "app.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----")
    code = (
        f"import os\nprint(os.listdir({str(state)!r}))\ntry:\n    print(repr(open({str(key)!r}).read()))\n"
        "except OSError as exc:\n    print('unreadable', type(exc).__name__)\n"
    )
    done = run_sandboxed(python(code), LIMITS, hidden=[state, key])
    assert done.exit_status == 0, done.stderr
    listing, key_text = done.stdout.decode().split("\n")[:2]
    assert listing == "[]"
    assert "PRIVATE" not in key_text


def test_the_child_cannot_open_a_socket_to_the_host() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
            "    print('connected')\nexcept OSError as exc:\n    print('refused', exc)\n"
        )
        done = run_sandboxed(python(code), LIMITS)
    assert done.stdout.startswith(b"refused"), done.stdout


def test_the_child_is_stopped_at_the_cpu_limit() -> None:
    done = run_sandboxed(python("while True: pass"), Limits(cpu_seconds=1, wall_seconds=60))
    assert done.limit == "cpu"


def test_the_child_is_stopped_at_the_memory_limit() -> None:
    done = run_sandboxed(
        python("x = bytearray(2 * 1024**3)"), Limits(memory_bytes=512 * 1024**2, wall_seconds=60)
    )
    assert done.limit == "memory"
    assert done.exit_status != 0


def test_the_child_is_stopped_at_the_disk_limit() -> None:
    code = "open('big', 'wb').write(b'x' * 64 * 1024**2)"
    done = run_sandboxed(python(code), Limits(disk_bytes=8 * 1024**2, wall_seconds=60))
    assert done.limit == "disk"


def test_the_child_is_killed_at_the_wall_clock_limit() -> None:
    started = time.monotonic()
    done = run_sandboxed(python("import time; time.sleep(120)"), Limits(wall_seconds=2))
    assert (done.limit, done.exit_status) == ("wall", None)
    assert time.monotonic() - started < 30


def test_without_bwrap_it_fails_closed_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        run_sandboxed(["true"], LIMITS)


def test_hidden_paths_are_mounted_before_the_exposed_ones(tmp_path: Path) -> None:
    """A repository inside the hidden state directory is bound back on top of the tmpfs."""
    state, repo = tmp_path / "state", tmp_path / "state" / "repo"
    repo.mkdir(parents=True)
    argv = sandbox_argv(["true"], hidden=[state], exposed=[repo], disk_bytes=1)
    assert argv.index("--tmpfs", argv.index(str(state)) - 1) < argv.index(str(repo))
    assert "--unshare-net" in argv
    assert "--clearenv" in argv


def test_a_change_is_scored_in_the_sandbox_with_the_state_directory_hidden(tmp_path: Path) -> None:
    state = tmp_path / "state"
    repo = Repo(state / "repo")  # the bot keeps its repositories in its state directory
    (state / "secret.txt").write_text("stored")
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n")
    repo.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    parent = repo.commit("parent")
    coverage = state / "maps" / "parent.coverage"
    made = run_cli("map", "--repo", str(repo.root), "--sha", parent, "--out", str(coverage), env=clean_env())
    assert made.returncode == 0, made.stderr
    repo.write("src/calc.py", "def add(a, b):\n    return b + a\n")
    # A test of head's that passes only where the state directory cannot be seen.
    secret = str(state / "secret.txt")
    repo.write(
        "tests/test_state.py",
        f"import os\n\n\ndef test_state_is_invisible():\n    assert not os.path.exists({secret!r})\n",
    )
    head = repo.commit("head")
    doc = score_in_sandbox(
        repo.root, parent, head, coverage, state_dir=state, limits=Limits(wall_seconds=600)
    )
    assert doc["score"] == "pass_clean", json.dumps(doc["reasons"])
    assert [run["label"] for run in doc["runs"]] == ["first", "second"]
