"""Per-repository bare mirrors in the state directory: objects only, no checkout, nothing run.

A fetch takes the installation token through git's ``GIT_CONFIG_*`` environment for that one
command (:func:`gate.git.credential_environment`), never a URL, argv or config file. One lock per
mirror: two jobs of one repository never fetch into it at once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from gate.git import Git, credential_environment

_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def mirror_path(root: Path, repo: str) -> Path:
    owner, name = repo.split("/", 1)
    return root / owner / f"{name}.git"


def lock_for(path: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(path, threading.Lock())


def open_mirror(root: Path, repo: str) -> Git:
    """The bare mirror of ``repo``, created empty on first use (hooks disabled by an empty hooks dir)."""
    path = mirror_path(root, repo)
    with lock_for(path):  # two first jobs of one repository must not both create it
        if not (path / "HEAD").is_file():
            path.mkdir(parents=True, exist_ok=True)
            Git(path).run(["init", "--quiet", "--bare"])
            Git(path).run(["config", "core.hooksPath", "/dev/null"])
    return Git(path)


def fetch(git: Git, url: str, refspecs: Sequence[str], token: str | None) -> None:
    """Fetch ``refspecs`` from ``url``, authenticated with ``token`` for http(s) URLs."""
    env = None
    if token and urlsplit(url).scheme in ("http", "https"):
        base = f"{urlsplit(url).scheme}://{urlsplit(url).netloc}/"
        env = credential_environment(f"http.{base}.extraheader", token)
    with lock_for(git.repo):
        git.fetch(url, refspecs, extra_env=env)
