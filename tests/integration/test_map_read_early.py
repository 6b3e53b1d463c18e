"""The map read early (``gate/maps/reader/mapbytes.py``): the command line hashes ``--coverage`` on a thread
before it imports the gate. A map that would make that thread hang, or that is replaced after it was
hashed, must still end in the verdict the direct read gives: unscored, naming the file, at once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import pytest

from oracle_gate.maps.reader.data import EarlyMapRead, open_map
from oracle_gate.maps.reader.mapbytes import EarlyHash
from tests.support.factories import Project
from tests.support.repo import run_cli


def hostile(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.coverage"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    else:
        with path.open("wb") as handle:
            handle.truncate(1024**3)
    return path


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "sparse_1gb"])
def test_a_coverage_path_the_early_hash_cannot_read_is_unscored_at_once(
    project: Project, tmp_path: Path, kind: str
) -> None:
    """A FIFO would block the thread's open, /dev/zero and a sparse gigabyte would keep it hashing:
    the bounded reader refuses each, and the check reports it as the direct read would."""
    coverage = hostile(tmp_path, kind)
    head = project.head(project.replace("src/pkg/mod.py", "return x * x", "return x ** 2"))
    started = time.monotonic()
    proc = run_cli(
        "check", "--repo", str(project.root), "--base", project.parent, "--head", head,
        "--coverage", str(coverage), "--coverage-sha", project.parent,
    )  # fmt: skip
    assert time.monotonic() - started < 30
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "oracle_incomplete" in proc.stdout
    assert str(coverage) in proc.stdout + proc.stderr
    assert any(why in proc.stdout for why in ("not a regular file", "-byte limit")), proc.stdout


def test_a_map_replaced_after_the_early_hash_is_hashed_again(project: Project, tmp_path: Path) -> None:
    """The early hash is taken ~50 ms before SQLite opens the file; a file replaced (or rewritten)
    in between must not be judged by the old file's digest: the digest reported is the new bytes'."""
    path = tmp_path / "parent.coverage"
    shutil.copyfile(project.coverage, path)
    early = EarlyHash(path)
    first = early.read_of(path)
    assert first is not None
    replacement = tmp_path / "other.coverage"
    shutil.copyfile(project.coverage, replacement)
    with replacement.open("ab") as handle:  # same map, other bytes: an appended page of zeros
        handle.write(b"\0" * 4096)
    os.replace(replacement, path)
    assert early.read_of(path) is None  # the early read no longer describes the file
    _, _, read = EarlyMapRead(path, early).result()
    reader, digest = open_map(path, first)  # handed the stale read, open_map reads again
    assert digest == read.digest == hashlib.sha256(path.read_bytes()).hexdigest() != first.digest
    reader.close()  # type: ignore[attr-defined]
