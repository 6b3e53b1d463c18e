"""Writing files so that a failure never leaves a half-written one where a good one was."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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
