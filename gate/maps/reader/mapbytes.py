"""A map file's bytes: hashed (a SQLite data file, streamed) or read (a JSON map), and the hashing
started on a thread as the very first thing ``check`` does.

The sha256 binds the data file to its manifest and goes into the verdict's provenance, so every byte
is read; at 50,000 tests that is 13 MB and about 8 ms of CPU, the largest cost that grows with the
map. hashlib releases the GIL, so :class:`EarlyHash` runs it on the machine's other core while the
command line imports the gate (about 40 ms); this module imports nothing heavy for that reason.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.errors import InputError
from oracle_gate.files import MAX_MAP_BYTES, open_regular

SQLITE_MAGIC = b"SQLite format 3\0"
HASH_CHUNK = 4 * 1024 * 1024
MANIFEST_SUFFIX = ".manifest.json"


@dataclass(frozen=True)
class MapBytes:
    """What reading a map file's bytes found: a SQLite file (and its sha256), or a JSON map's bytes."""

    path: Path
    digest: str
    raw: bytes | None = None  # the JSON map's bytes; None for a SQLite file (read by sqlite3)
    identity: tuple[int, ...] = ()  # the file as it was read: device, inode, size, mtime

    def describes(self, path: Path) -> bool:
        """Is this still the read of ``path`` as it is now? A read made early (on a thread, before
        the imports) is reused only if the file was not replaced or rewritten since."""
        if path != self.path:
            return False
        try:
            return _identity(os.stat(path)) == self.identity
        except OSError:
            return False


def _identity(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def read_map_bytes(path: Path) -> MapBytes:
    """Hash (and for a JSON map, read) a map file; InputError when it cannot be read."""
    try:
        with open_regular(path, MAX_MAP_BYTES) as handle:
            identity = _identity(os.fstat(handle.fileno()))
            is_sqlite = handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
            handle.seek(0)
            if not is_sqlite:
                raw = handle.read()
                return MapBytes(path, hashlib.sha256(raw).hexdigest(), raw, identity)
            return MapBytes(path, _sha256_in_chunks(handle), identity=identity)
    except OSError as exc:
        raise InputError(str(path), f"cannot read the coverage map ({exc.strerror or exc})") from exc


def _sha256_in_chunks(handle: io.BufferedReader) -> str:
    """The file's sha256, streamed in chunks of ``HASH_CHUNK``.

    Large chunks matter on a thread: reading and hashing release the GIL, but taking it back after
    each chunk waits for the main thread's switch interval (5 ms) while it imports or parses, so
    ``hashlib.file_digest``'s 256 KiB chunks made a 13 MB hash take 50 ms beside the imports
    instead of 8 ms; 4 MiB chunks finish it within 16 ms, for 4 MiB of memory.
    """
    digest = hashlib.sha256()
    size = os.fstat(handle.fileno()).st_size  # at most MAX_MAP_BYTES: open_regular checked it
    buffer = bytearray(max(1, min(HASH_CHUNK, size + 1)))
    view = memoryview(buffer)
    total = 0
    while count := handle.readinto(buffer):
        total += count
        if total > size:  # a file that grows while it is read is refused, not read for ever
            raise OSError(errno.EFBIG, f"grew past its {size} bytes while it was read")
        digest.update(view[:count])
    return digest.hexdigest()


class EarlyHash:
    """:func:`read_map_bytes` of the file ``--coverage`` names, on a thread from the command's start.

    A manifest named directly is not hashed here (the data file it names is found later, by
    :class:`oracle_gate.maps.reader.data.EarlyMapRead`). A failure is not reported here: the later read
    meets it again and reports it the same way as without this thread.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read: MapBytes | None = None
        self._thread = threading.Thread(target=self._run, name="oracle-gate-map-hash", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self.path.name.endswith(MANIFEST_SUFFIX):
            return
        with contextlib.suppress(Exception):  # reported by the read that does not find this one
            self._read = read_map_bytes(self.path)

    def read_of(self, path: Path) -> MapBytes | None:
        """The bytes read of ``path`` if this thread read that file, else None."""
        self._thread.join()
        return self._read if self._read is not None and self._read.describes(path) else None
