"""Map artifacts as the example map workflow uploads them: a JSON map and the manifest ``oracle-gate map``
writes beside it (with the ``producer`` of the run that built it, the key #10 wires in), zipped.

Each part can be bent by a test to be what a pull request would forge."""

from __future__ import annotations

import hashlib
import io
import json
import stat
import zipfile
from pathlib import Path
from typing import Any

from oracle_gate.maps.reader.manifest import Manifest
from oracle_gate.maps.reader.provenance import Producer

WORKFLOW = ".github/workflows/oracle-gate-map.yml"
ARTIFACT = "oracle-gate-map"
DATA_NAME = "parent.coverage.json"
MANIFEST_NAME = DATA_NAME + ".manifest.json"
# A live test observing the line every test pull request changes (src/app.py line 2).
MAP = {"tests/test_app.py::test_f": {"src/app.py": [1, 2]}}


def producer(repo: str, commit: str, run: int, **override: str) -> dict[str, str]:
    fields = {
        "repository": repo,
        "workflow_ref": f"{repo}/{WORKFLOW}@refs/heads/main",
        "run_id": str(run),
        "event": "push",
        "job": "combine",
        "ref": "refs/heads/main",
        "sha": commit,
    }
    fields.update(override)
    return Producer(**fields).to_document()


def manifest_document(sha: str, data: bytes, prod: dict[str, Any] | None) -> dict[str, Any]:
    return Manifest(
        path=Path(MANIFEST_NAME),
        data=Path(DATA_NAME),
        sha=sha,
        data_sha256=hashlib.sha256(data).hexdigest(),
        tests=1,
        extra={} if prod is None else {"producer": prod},
    ).to_document()


def zipped(files: dict[str, bytes], *, links: frozenset[str] = frozenset()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            mode = (stat.S_IFLNK | 0o777) if name in links else (stat.S_IFREG | 0o644)
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return out.getvalue()


def map_artifact(
    repo: str,
    sha: str,
    run: int,
    *,
    prod: dict[str, Any] | None = None,
    data: bytes | None = None,
    no_producer: bool = False,
    manifest: dict[str, Any] | None = None,
) -> bytes:
    """The zip a trusted map run uploads (``prod``/``manifest`` bend its producer and manifest keys)."""
    data = data if data is not None else json.dumps(MAP).encode()
    chosen = None if no_producer else (prod or producer(repo, sha, run))
    document = manifest_document(sha, data, chosen)
    document.update(manifest or {})
    return zipped({DATA_NAME: data, MANIFEST_NAME: json.dumps(document).encode()})
