"""Every file the gate reads goes through a bounded reader (../shared/spec/TRUST.md invariant 8): a
device, a FIFO or a file past its cap is refused at once with a one-line OSError, never read."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from oracle_gate import files
from oracle_gate.action import publish_stored, workflow_io
from oracle_gate.errors import InputError, StoredVerdictError
from oracle_gate.maps.reader import data, manifest
from oracle_gate.review.events import EventError


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def sparse(tmp_path: Path) -> Path:
    """A 1 GB file that takes no disk space (a hole)."""
    path = tmp_path / "sparse.coverage"
    with path.open("wb") as handle:
        handle.truncate(1024**3)
    return path


def refused_quickly(call: object) -> BaseException:
    """Run ``call`` in a thread and require it to raise within 5 s (a FIFO read would hang)."""
    outcome: list[BaseException] = []

    def target() -> None:
        try:
            call()  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "the read hung"
    assert time.monotonic() - started < 5
    assert outcome, "the read was not refused"
    assert "\n" not in str(outcome[0])
    return outcome[0]


def symlink_to(tmp_path: Path, target: str) -> Path:
    link = tmp_path / "link"
    link.symlink_to(target)
    return link


def test_dev_zero_is_refused(tmp_path: Path) -> None:
    refused = refused_quickly(lambda: files.read_bounded(symlink_to(tmp_path, "/dev/zero"), 1024))
    assert "not a regular file" in str(refused)


def test_a_fifo_is_refused_without_blocking(fifo: Path) -> None:
    assert "not a regular file" in str(refused_quickly(lambda: files.read_bounded(fifo, 1024)))


def test_a_sparse_gigabyte_is_refused_by_size(sparse: Path) -> None:
    assert "limit" in str(refused_quickly(lambda: files.read_bounded(sparse, files.MAX_MAP_BYTES)))


def test_a_file_within_its_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "ok"
    path.write_bytes(b"x" * 10)
    assert files.read_bounded(path, 10) == b"x" * 10
    with pytest.raises(files.FileRefused):
        files.read_bounded(path, 9)


@pytest.mark.parametrize("kind", ["dev_zero", "fifo", "sparse"])
def test_every_reader_refuses_unbounded_input(kind: str, tmp_path: Path, fifo: Path, sparse: Path) -> None:
    """The coverage map, its manifest, a stored verdict and the event payload, each pointed at it."""
    path = {"dev_zero": symlink_to(tmp_path, "/dev/zero"), "fifo": fifo, "sparse": sparse}[kind]
    readers = {
        "map": (lambda: data.open_map(path), InputError),
        "manifest": (lambda: manifest.read_manifest(path), InputError),
        "stored verdict": (lambda: publish_stored.read_stored_verdict(path), StoredVerdictError),
        "event": (lambda: workflow_io.read_event(path), EventError),
    }
    for name, (call, error) in readers.items():
        refused = refused_quickly(call)
        assert isinstance(refused, error), (name, refused)
        assert str(path) in str(refused), (name, refused)
