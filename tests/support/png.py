"""Just enough of PNG to look at a browser's screenshot: 8-bit RGB or RGBA, not interlaced
(what Chromium writes). Standard library only (zlib)."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]

    def colours(self) -> dict[tuple[int, int, int], int]:
        """How many pixels have each RGB colour."""
        counts: dict[tuple[int, int, int], int] = {}
        c = self.channels
        for row in self.rows:
            for i in range(0, len(row), c):
                rgb = (row[i], row[i + 1], row[i + 2])
                counts[rgb] = counts.get(rgb, 0) + 1
        return counts


def read_png(path: Path) -> Image:
    data = path.read_bytes()
    assert data.startswith(SIGNATURE), f"{path} is not a PNG"
    pos, idat, header = len(SIGNATURE), b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    assert header is not None, f"{path} has no IHDR"
    width, height, depth, colour_type, _, _, interlace = header
    supported = depth == 8 and colour_type in (2, 6) and interlace == 0
    assert supported, f"unsupported PNG {header}"
    channels = 3 if colour_type == 2 else 4
    return Image(
        width, height, channels, _unfilter(zlib.decompress(idat), width * channels, height, channels)
    )


def _unfilter(raw: bytes, stride: int, height: int, bpp: int) -> list[bytes]:
    rows: list[bytes] = []
    prior = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prior, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prior[i], prior[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prior = line
    return rows
