"""Which files the collector measures: decided by coverage.py's own classes, from the project's own
coverage configuration, so that the collector's map and coverage.py's cannot disagree about a file.

coverage.py decides per file, the first time a frame of that file starts, with ``InOrOut.should_trace``
(``[run] source``, ``source_pkgs``, ``source_dirs``, ``include``, ``omit``, ``cover_pylib``, the
third-party and stdlib directories). ``source_pkgs`` matches the *module name* of the frame, not a
path: which is why the selector takes the frame. Re-implementing that matching (as an earlier
version of this module did) let the two collectors disagree: without ``source``, a project using
``source_pkgs`` had every file under the rootdir measured, its tests included.

What coverage.py does not decide per file, and the collector must still follow, is elsewhere:
pytest-cov's ``no_cover`` (the plugin pauses the collector for a test's call phase),
``concurrency``/``patch``/``plugins`` (:func:`oracle_gate.maps.inside.collector_base.refusal`: coverage.py
measures then). ``[report] exclude_lines`` is not applied to measurement by coverage.py (its data file has
every executed line, excluded or not), so the collector records those lines too.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import FrameType
from typing import Any

GATE_DIR = str(Path(__file__).resolve().parents[2])  # the gate package: the measuring tool itself


class CoverageSelection:
    """``select(filename, frame)``: the repo-relative (outside the root: absolute) path of a file
    coverage.py would measure under the project's configuration, else None."""

    def __init__(self, root: Path, config_file: str | bool = True) -> None:
        from coverage import Coverage
        from coverage.disposition import FileDisposition
        from coverage.inorout import InOrOut
        from coverage.plugin_support import Plugins

        cov = Coverage(config_file=config_file, data_file=None)
        self.root = os.path.realpath(root)
        self.warnings: list[str] = []
        config: Any = cov.config
        self.inorout = InOrOut(
            config=config,
            warn=self.warn,
            debug=None,
            include_namespace_packages=bool(config.include_namespace_packages),
        )
        # Plugins (file tracers) make the collector refuse before this is built: none here.
        self.inorout.plugins = Plugins()
        self.inorout.disp_class = FileDisposition

    def warn(self, msg: str, slug: str | None = None, once: bool = False) -> None:
        self.warnings.append(msg)

    def __call__(self, filename: str, frame: FrameType | None = None) -> str | None:
        if not filename or filename.startswith("<"):
            return None
        disposition = self.inorout.should_trace(filename, frame)
        if not disposition.trace or not disposition.source_filename:
            return None
        return self.relative(disposition.source_filename)

    def relative(self, source_filename: str) -> str | None:
        """The map's path for a file coverage.py traces: repo-relative, absolute outside the root;
        None for the gate's own files."""
        path = os.path.realpath(source_filename)
        if _under(path, GATE_DIR):
            return None
        return os.path.relpath(path, self.root) if _under(path, self.root) else path


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
