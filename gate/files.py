"""Writing files so that a failure never leaves a half-written one where a good one was."""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from oracle_gate.errors import Refused

# Caps on the files the gate reads (../shared/spec/TRUST.md invariant 8: bounded work). A pull request
# can point each of these at /dev/zero, a FIFO or a sparse terabyte; past a cap the read is refused
# with a one-line OSError, which every reader already turns into its input error (a verdict).
MAX_EVENT_BYTES = 32 * 1024 * 1024  # GitHub caps webhook payloads at 25 MB
MAX_STORED_VERDICT_BYTES = 32 * 1024 * 1024
# A map's manifest lists every test id that ran (contract v2): 50,000 tests take about 2 MB.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
MAX_MAP_BYTES = 512 * 1024 * 1024


class FileRefused(Refused, OSError):
    """A file the gate will not read: not a regular file, or larger than its cap."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(errno.EINVAL, why, str(path))


@contextmanager
def temporary_beside(path: Path) -> Iterator[Path]:
    """An empty temporary file in ``path``'s directory (so a rename onto ``path`` is atomic),
    removed on exit unless it was renamed away."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        share_with_directory_owner(fd, path.parent)
    finally:
        os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)


def share_with_directory_owner(fd: int, directory: Path) -> None:
    """Make the open file ``fd`` readable by everyone (0644: mkstemp makes 0600) and, when root
    writes into another user's directory, that user's.

    The Docker action runs as root in a workspace owned by the runner's user, whose later steps
    must read verdict.json (the fork-safe pattern copies it) and may replace or delete it
    (../shared/spec/TRUST.md invariant 10: files stay usable).
    """
    os.fchmod(fd, 0o644)
    if os.geteuid() == 0:
        owner = os.stat(directory)
        if owner.st_uid != 0:
            os.fchown(fd, owner.st_uid, owner.st_gid)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    Only regular files are replaced: a device or pipe (``/dev/null``,
    ``/dev/stdout``, a FIFO) is written to in place, never renamed over.
    """
    if path.exists() and not path.is_file():
        with path.open("w", encoding="utf-8") as handle:
            handle.write(text)
        return
    with temporary_beside(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)


def open_regular(path: Path, cap: int) -> io.BufferedReader:
    """``path`` opened for reading if it is a regular file of at most ``cap`` bytes.

    Opened with ``O_NONBLOCK`` so that a FIFO cannot block the open, then checked with ``fstat`` on
    the descriptor (a symlink to ``/dev/zero`` is judged by what it points at, with no race between
    the check and the read). Raises :class:`FileRefused` (an ``OSError``) otherwise.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(path, "not a regular file (a device, FIFO or socket is never read)")
        if info.st_size > cap:
            raise FileRefused(path, f"{info.st_size} bytes, more than the {cap}-byte limit")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: Path, cap: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them (read ``cap + 1`` so that a
    file growing after the check is refused too); :class:`FileRefused` otherwise."""
    with open_regular(path, cap) as handle:
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise FileRefused(path, f"more than the {cap}-byte limit")
    return data
