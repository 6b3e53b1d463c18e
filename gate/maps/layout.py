"""What makes a real project's tests run for a map as they run for its developers.

* **The interpreter.** A command's bare ``python``/``python3`` is the interpreter oracle-gate runs
  under, and that interpreter's directory comes first on the child's ``PATH`` (as activating its
  venv would): outside an activated venv, ``python`` on ``PATH`` is some other Python without
  pytest-cov or the gate's plugin. A path (``./venv/bin/python``, ``/usr/bin/python3``) or another
  name (``tox``, ``python3.12``) is the user saying otherwise, and is kept as given.
* **src layout.** For the default command, a ``src/`` directory at the top of the checkout is put
  first on ``PYTHONPATH``: a src-layout project whose package is not installed (or is installed from
  another checkout) then imports the worktree's code, which is what the map must measure. A project
  that sets pytest's ``pythonpath = ["src"]`` gets the same path twice, harmlessly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

BARE_PYTHONS = ("python", "python3")
SRC_DIR = "src"


def with_interpreter(argv: Sequence[str], python: str = sys.executable) -> list[str]:
    """``argv`` with a bare ``python``/``python3`` as its program replaced by ``python``."""
    if argv and argv[0] in BARE_PYTHONS:
        return [python, *argv[1:]]
    return list(argv)


def interpreter_first_on_path(env: Mapping[str, str], python: str = sys.executable) -> dict[str, str]:
    """``env`` with ``python``'s directory first on ``PATH`` (so ``pytest``, ``coverage`` are its own)."""
    bin_dir = os.path.dirname(python)
    rest = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p and p != bin_dir]
    return {**env, "PATH": os.pathsep.join([bin_dir, *rest]) if bin_dir else os.pathsep.join(rest)}


def src_layout_env(env: Mapping[str, str], tree: Path) -> dict[str, str]:
    """``env`` with ``tree/src`` first on ``PYTHONPATH`` when the checkout has a ``src/`` directory.

    Absolute: pytest runs with the checkout as its working directory, where a relative ``tree``
    (``--repo repo``) would name ``repo/repo/src``."""
    src = (tree / SRC_DIR).absolute()
    if not src.is_dir():
        return dict(env)
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**env, "PYTHONPATH": os.pathsep.join([str(src), *rest])}


def default_out(sha: str, env: Mapping[str, str] = os.environ) -> Path:
    """Where a map goes when ``--out`` is not given: a cache directory outside every checkout.

    ``$ORACLE_GATE_MAPS`` if set, else ``$XDG_CACHE_HOME/oracle-gate/maps`` (``~/.cache`` without
    it); the file is named by the full SHA, so maps of different commits never collide.
    """
    if env.get("ORACLE_GATE_MAPS"):
        directory = Path(env["ORACLE_GATE_MAPS"])
    else:
        cache = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        directory = Path(cache) / "oracle-gate" / "maps"
    return directory / f"{sha}.coverage"
