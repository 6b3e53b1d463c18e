"""The lock files are portable: they name packages, versions and PyPI's hashes, nothing of one machine.

A lock that carries ``--extra-index-url file:///...`` or ``--find-links /opt/...`` builds only
where those folders exist (and pip, asked for an index that is not there, warns and goes on with
whatever the default index offers), so neither the image nor a clean clone's CI would install what
was locked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REQUIREMENTS = Path(__file__).resolve().parents[2] / "requirements"
LOCKS = sorted(REQUIREMENTS.glob("*.txt"))
OPTIONS = re.compile(r"^\s*(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|-c|-r|-e)\b")
LOCAL = re.compile(r"file:|(^|\s)/(opt|tmp|home|root|work|usr|srv|var)/")
PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[^\s\\]+ \\$")


def test_the_locks_are_there() -> None:
    assert [p.name for p in LOCKS] == ["build.txt", "randomly.txt", "runtime.txt", "test.txt"]


@pytest.mark.parametrize("lock", LOCKS, ids=lambda p: p.name)
def test_a_lock_names_no_index_find_links_or_local_path(lock: Path) -> None:
    for number, line in enumerate(lock.read_text().splitlines(), 1):
        assert not OPTIONS.match(line), f"{lock.name}:{number}: an option of this machine: {line!r}"
        assert not LOCAL.search(line), f"{lock.name}:{number}: a local path: {line!r}"


@pytest.mark.parametrize("lock", LOCKS, ids=lambda p: p.name)
def test_every_pin_is_exact_and_hashed(lock: Path) -> None:
    entries: list[list[str]] = []
    for line in lock.read_text().splitlines():
        if line[:1].isalnum():
            entries.append([line])
        elif line.startswith(" ") and entries:
            entries[-1].append(line)
    assert entries
    for first, *rest in entries:
        assert PIN.match(first), f"{lock.name}: not an exact pin: {first!r}"
        assert any(re.search(r"--hash=sha256:[0-9a-f]{64}", line) for line in rest), f"{lock.name}: {first!r}"
