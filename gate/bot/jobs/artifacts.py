"""An artifact's zip, fetched and unpacked as untrusted input: bounded, flat, regular files only.

``download`` follows the API's 302 to the pre-signed blob URL without the installation token (GitHub's
blob store wants none, and a token must never leave for another host) and reads at most
:data:`MAX_ZIP_BYTES`. ``extract`` writes the members into a folder only when they are exactly two
plain, safely named regular files (no directories, no ``..``, no links, no name twice), each and all
within the bounds; the sizes a zip declares are not trusted: reading stops at the bound.
"""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path
from typing import Any

import requests

from oracle_gate import errors
from oracle_gate.github.client import GitHubUnavailable

MAX_ZIP_BYTES = 256 * 1024 * 1024
MAX_FILE_BYTES = 1024 * 1024 * 1024  # a coverage.py file of a large suite; the zip compresses it
DOWNLOAD_TIMEOUT = 60.0
SAFE_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class Refused(errors.Refused):
    """The map (or its run, or its artifact) is not one to trust; the message says why."""


def download(api_url: str, repo: str, artifact: dict[str, Any], token: str) -> bytes:
    """The artifact's zip: the API answers 302 to a pre-signed URL, fetched without the token (GitHub's
    blob store wants none, and a token must never leave for another host). At most MAX_ZIP_BYTES."""
    url = f"{api_url}/repos/{repo}/actions/artifacts/{artifact['id']}/zip"
    what = f"download the artifact {artifact.get('name')!r}"
    try:
        first = requests.get(
            url,
            headers={"Authorization": f"token {token}", "Accept": "application/vnd.github+json"},
            allow_redirects=False,
            timeout=DOWNLOAD_TIMEOUT,
        )
        if first.status_code == 410:
            raise Refused(f"the artifact {artifact.get('name')!r} has expired")
        if first.status_code in (502, 503, 504) or first.status_code == 429:
            raise GitHubUnavailable(what, f"GitHub answered {first.status_code}")
        location = first.headers.get("Location", "")
        if first.status_code != 302 or not location.startswith(("https://", "http://")):
            raise Refused(f"{what}: GitHub answered {first.status_code} without a redirect")
        with requests.get(location, stream=True, timeout=DOWNLOAD_TIMEOUT) as blob:
            if blob.status_code != 200:
                raise GitHubUnavailable(what, f"the blob store answered {blob.status_code}")
            return _read_capped(blob, MAX_ZIP_BYTES)
    except requests.RequestException as exc:
        raise GitHubUnavailable(what, f"no answer ({type(exc).__name__})") from exc


def _read_capped(response: requests.Response, limit: int) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_content(chunk_size=1024 * 1024):
        size += len(chunk)
        if size > limit:
            raise Refused(f"the artifact is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def extract(data: bytes, into: Path) -> list[Path]:
    """The zip's members written into ``into``: plain regular files with safe names only, each and all
    bounded (the sizes a zip declares are not trusted: reading stops at the bound)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise Refused(f"the artifact is not a zip ({exc})") from exc
    written: list[Path] = []
    total = 0
    with archive:
        members = archive.infolist()
        if len(members) != 2:
            raise Refused(f"the artifact holds {len(members)} file(s); a map is its data and its manifest")
        if len({info.filename for info in members}) != len(members):
            raise Refused("the artifact holds the same file name twice")
        for info in members:
            _check_member(info)
            target = into / info.filename
            try:
                with archive.open(info) as source, target.open("xb") as sink:
                    total += _copy_capped(source, sink, MAX_FILE_BYTES, info.filename)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as exc:
                # a bad CRC, an unknown compression, an encrypted member, a truncated stream
                raise Refused(f"the artifact's {info.filename!r} cannot be unpacked ({exc})") from exc
            if total > MAX_ZIP_BYTES * 8:
                raise Refused("the artifact unpacks to more than the bound allows")
            written.append(target)
    return written


def _check_member(info: zipfile.ZipInfo) -> None:
    name = info.filename
    mode = info.external_attr >> 16
    if not name or not set(name) <= SAFE_NAME or name.startswith(".") or info.is_dir():
        raise Refused(f"the artifact holds {name!r}: only plain file names (no directories) are allowed")
    if mode and not stat.S_ISREG(mode):
        raise Refused(f"the artifact's {name!r} is not a regular file (a link?)")
    if info.file_size > MAX_FILE_BYTES:
        raise Refused(f"the artifact's {name!r} is larger than {MAX_FILE_BYTES} bytes")


def _copy_capped(source: Any, sink: Any, limit: int, name: str) -> int:
    size = 0
    while chunk := source.read(1024 * 1024):
        size += len(chunk)
        if size > limit:
            raise Refused(f"the artifact's {name!r} unpacks to more than {limit} bytes")
        sink.write(chunk)
    return size
