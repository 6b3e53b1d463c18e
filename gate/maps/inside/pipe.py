"""A pipe from the tests' process to the gate's (SCORING.md v2, 2.3 and 2.5).

What the tests' process writes to it is in the gate's process as soon as it is written: code of the
tests that runs later (an ``atexit`` handler, a finalizer, a thread) can add lines, which the reader
then sees, but cannot take a line back. :class:`PipeReader` drains it in a thread, so the writer never
blocks on a full pipe, and keeps at most :data:`MAX_PIPE_BYTES`.
"""

from __future__ import annotations

import os
import threading

MAX_PIPE_BYTES = 256 * 1024 * 1024  # more than this: something else writes to the pipe


class PipeReader:
    """Reads a pipe's read end to its end (every process holding the write end has closed it)."""

    def __init__(self, fd: int, name: str) -> None:
        self.fd = fd
        self.chunks: list[bytes] = []
        self.size = 0
        self.overflow = False
        self.thread = threading.Thread(target=self._drain, name=name, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        try:
            while chunk := os.read(self.fd, 65536):
                self.size += len(chunk)
                if self.size > MAX_PIPE_BYTES:
                    self.overflow = True
                    continue  # keep draining, so the writer never blocks; keep nothing more
                self.chunks.append(chunk)
        finally:
            os.close(self.fd)

    def data(self, timeout: float = 10.0) -> bytes | None:
        """Everything written, once the pipe is closed; None when it is not closed by ``timeout``
        (a process the tests started still holds the write end) or more than the cap was written."""
        self.thread.join(timeout)
        if self.thread.is_alive() or self.overflow:
            return None
        return b"".join(self.chunks)


def write_line(fd: int, data: bytes) -> bool:
    """Write all of ``data`` to ``fd``; False when the descriptor is gone."""
    try:
        while data:
            data = data[os.write(fd, data) :]
    except OSError:
        return False
    return True


def json_lines(data: bytes) -> tuple[list[object], int]:
    """Each line of ``data`` parsed as JSON, and how many lines were not JSON (a pipe a test process
    writes to: read defensively, counted, never raised)."""
    import json

    parsed: list[object] = []
    bad = 0
    for raw in data.splitlines():
        try:
            parsed.append(json.loads(raw))
        except (ValueError, RecursionError):
            bad += 1
    return parsed, bad
