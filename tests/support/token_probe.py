"""A coverage-command that looks for the token everywhere a child of the action can: its own
environment and ``/proc/<pid>/environ`` of every ancestor up to pid 1 (the action itself, in the
container), written raw into a JSON file for the test to search."""

from __future__ import annotations

from pathlib import Path

PROBE = """
import json, os, sys
blocks, cmdlines, pid = {}, {}, os.getpid()
while pid >= 1:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            blocks[str(pid)] = handle.read().decode("utf-8", "replace")
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdlines[str(pid)] = handle.read().replace(b"\\0", b" ").decode("utf-8", "replace")
        if pid == 1:
            break
        with open(f"/proc/{pid}/stat") as handle:
            pid = int(handle.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        break
blocks["os.environ"] = "\\0".join(f"{k}={v}" for k, v in os.environ.items())
with open(sys.argv[1], "w") as out:
    json.dump({"environ": blocks, "cmdline": cmdlines}, out)
"""


def write_probe(directory: Path) -> Path:
    script = directory / "token_probe.py"
    script.write_text(PROBE)
    return script


def holders(found: dict[str, dict[str, str]], token: str) -> list[str]:
    """The environment blocks (pids, or ``os.environ``) that hold ``token``; asserts first that the
    probe really read its own environment and the action's (the entrypoint's process)."""
    assert "GITHUB_REPOSITORY=" in found["environ"]["os.environ"]
    action = [pid for pid, cmd in found["cmdline"].items() if "entrypoint.py" in cmd]
    assert action, f"the action's process was not reached: {found['cmdline']}"
    assert all(pid in found["environ"] for pid in action)
    return [where for where, block in found["environ"].items() if token in block]
