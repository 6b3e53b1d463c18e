"""A coverage-command that looks for the token everywhere a child of the action can: its own
environment and ``/proc/<pid>/environ`` of every ancestor up to pid 1 (the action itself, in the
container), written raw into a JSON file for the test to search."""

from __future__ import annotations

from pathlib import Path

PROBE = """
import json, os, sys
blocks, pid = {}, os.getpid()
while pid >= 1:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            blocks[str(pid)] = handle.read().decode("utf-8", "replace")
        if pid == 1:
            break
        with open(f"/proc/{pid}/stat") as handle:
            pid = int(handle.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        break
blocks["os.environ"] = "\\0".join(f"{k}={v}" for k, v in os.environ.items())
with open(sys.argv[1], "w") as out:
    json.dump(blocks, out)
"""


def write_probe(directory: Path) -> Path:
    script = directory / "token_probe.py"
    script.write_text(PROBE)
    return script
