"""TRUST.md 15 under real bubblewrap (issue 30): nothing from the host reaches the scoring sandbox.

Each test makes something on the host that head's code must not reach, then tries to reach it from
inside: a UNIX socket the test listens on under the host's ``/tmp`` and under ``/run``, a file in
the host's ``/tmp``, the host's ``/run`` and ``/var/run``, and the process that reports the
outcomes (its ``/proc/<pid>/mem``, its output descriptor, ``ptrace``). Each is refused. One test
checks that the root is not the host's ``/`` bound whole.
"""

from __future__ import annotations

import ast
import os
import shutil
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_gate.score.sandbox import Limits, run_sandboxed, sandbox_argv, the_gates_own_paths

if shutil.which("bwrap") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("bwrap (bubblewrap) is required in CI for the sandbox tests")
    pytest.skip("bwrap (bubblewrap) is not installed: apt-get install bubblewrap", allow_module_level=True)

LIMITS = Limits(cpu_seconds=20, memory_bytes=1024**3, disk_bytes=64 * 1024**2, wall_seconds=60)


def inside(code: str) -> str:
    done = run_sandboxed([sys.executable, "-c", code], LIMITS)
    assert done.exit_status == 0, done.stderr
    return done.stdout.decode()


@pytest.fixture(params=["/tmp", "/run"])
def host_socket(request: pytest.FixtureRequest) -> Iterator[str]:
    """A UNIX socket listening on the host (where docker.sock, a session bus or a database's sit)."""
    path = Path(request.param) / f"oracle-gate-test-{uuid.uuid4().hex[:12]}.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    try:
        yield str(path)
    finally:
        server.close()
        path.unlink(missing_ok=True)


def test_a_host_unix_socket_cannot_be_reached(host_socket: str) -> None:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(host_socket)  # the host can: the socket is real
    client.close()
    code = (
        "import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        f"try:\n    s.connect({host_socket!r})\n    print('connected')\n"
        "except OSError as exc:\n    print('refused', type(exc).__name__)\n"
    )
    assert inside(code).startswith("refused"), host_socket


def test_an_abstract_unix_socket_of_the_host_cannot_be_reached() -> None:
    name = f"\0oracle-gate-test-{uuid.uuid4().hex[:12]}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(name)
        server.listen(1)
        code = (
            "import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
            f"try:\n    s.connect({name!r})\n    print('connected')\n"
            "except OSError as exc:\n    print('refused', type(exc).__name__)\n"
        )
        assert inside(code).startswith("refused")


def test_the_hosts_tmp_run_and_var_run_are_not_there() -> None:
    marker = Path("/tmp") / f"oracle-gate-test-{uuid.uuid4().hex[:12]}"
    marker.write_text("host")
    try:
        code = (
            "import os\n"
            f"print(os.path.exists({str(marker)!r}))\n"
            "print(sorted(os.listdir('/tmp')))\n"
            "print([p for p in ('/run', '/var/run', '/var', '/home', '/root', '/sys', '/mnt', '/opt', '/srv')"
            " if os.path.exists(p)])\n"
        )
        exists, tmp, present = inside(code).splitlines()[:3]
    finally:
        marker.unlink()
    assert exists == "False"
    assert "oracle-gate-test" not in tmp
    # Only the directories on the way to the gate's own interpreter and package may be there.
    ways = {str(parent) for path in the_gates_own_paths() for parent in path.parents}
    assert [p for p in ast.literal_eval(present) if p not in ways] == []


def test_the_root_is_minimal_and_read_only() -> None:
    argv = sandbox_argv(["true"], disk_bytes=1)
    assert ["--ro-bind", "/", "/"] not in [argv[i : i + 3] for i in range(len(argv))]
    assert argv[argv.index("--") - 2 : argv.index("--")] == ["--remount-ro", "/"]
    assert {"--unshare-ipc", "--unshare-pid", "--unshare-net"} <= set(argv)
    code = (
        "import os\ntry:\n    open('/new-file', 'w')\n    print('wrote')\n"
        "except OSError as exc:\n    print('read-only', type(exc).__name__)\n"
        "print(sorted(os.listdir('/etc')))\n"
    )
    written, etc = inside(code).splitlines()[:2]
    assert written.startswith("read-only")
    assert "shadow" not in etc
    assert "hostname" not in etc


def test_a_new_ipc_namespace() -> None:
    host = os.readlink("/proc/self/ns/ipc")
    assert inside("import os\nprint(os.readlink('/proc/self/ns/ipc'))").strip() != host


# The reporting process makes itself non-dumpable, as `oracle-gate score` does, then starts a child
# (head's test) that tries every way to reach it: its memory, its output descriptor, ptrace.
REPORTER = """\
import subprocess, sys
from oracle_gate.score.sandbox import not_traceable
not_traceable()
print(subprocess.run([sys.executable, "-c", sys.argv[1]], capture_output=True, text=True).stdout)
"""
ATTACKER = """\
import ctypes, os
reporter = os.getppid()
for what in ("mem", "fd/1", "environ"):
    try:
        open(f"/proc/{reporter}/{what}", "rb" if what != "fd/1" else "wb").close()
        print(what, "opened")
    except OSError as exc:
        print(what, "refused", type(exc).__name__)
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH = 16
if libc.ptrace(PTRACE_ATTACH, reporter, None, None) == 0:
    print("ptrace attached")
else:
    print("ptrace refused", os.strerror(ctypes.get_errno()))
"""


def test_head_code_cannot_trace_or_read_the_reporting_process() -> None:
    lines = inside(REPORTER.replace("sys.argv[1]", repr(ATTACKER))).split("\n")
    results = [line for line in lines if line]
    assert len(results) == 4, results
    assert all("refused" in line for line in results), results
