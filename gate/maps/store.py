"""The default map store: where ``oracle-gate map`` writes when ``--out`` is not given, and where
``oracle-gate check`` looks when ``--coverage`` is not given (:func:`oracle_gate.maps.layout.default_out`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from oracle_gate.errors import GateError
from oracle_gate.git import Git
from oracle_gate.maps.layout import default_out
from oracle_gate.maps.reader.mapbytes import MANIFEST_SUFFIX


def stored_map(repo: Path, base: str, env: Mapping[str, str] = os.environ) -> Path | None:
    """The manifest of the map ``map`` wrote for ``base`` (resolved to its full SHA), if there is one.

    The manifest, not the data file: it binds the data by digest to the SHA, and ``check`` verifies
    that as for any map it is given. None when the revision does not resolve (``check`` reports it)."""
    try:
        sha = Git(repo).commit(base)
    except GateError:
        return None
    data = default_out(sha, env)
    manifest = data.with_name(data.name + MANIFEST_SUFFIX)
    return manifest if manifest.is_file() else None
