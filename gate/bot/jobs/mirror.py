"""Per-repository bare mirrors in the state directory: objects only, no checkout, nothing run.

A fetch takes the installation token through git's ``GIT_CONFIG_*`` environment for that one
command (:func:`oracle_gate.git.credential_environment`), never a URL, argv or config file.

One ``git fetch`` at a time per mirror, but not one pull request at a time: the refspecs jobs ask for
while a fetch runs are gathered, and the next fetch takes them all (one connection, one negotiation
and one pack for ten pull requests opened at once, instead of ten fetches in a row). A batch that
fails (one pull request's ref is gone) is retried by each of its jobs on its own, so one pull
request's missing ref never fails another's job.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from oracle_gate.git import Git, credential_environment

_locks: dict[Path, threading.Lock] = {}
_batchers: dict[Path, _Batcher] = {}
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
    """Fetch ``refspecs`` from ``url``, authenticated with ``token`` for http(s) URLs; batched with
    the other jobs' fetches of the same mirror that wait meanwhile."""
    with _locks_guard:
        batcher = _batchers.setdefault(git.repo, _Batcher())
    batcher.fetch(git, url, list(refspecs), token)


def _fetch_now(git: Git, url: str, refspecs: Sequence[str], token: str | None) -> None:
    env = None
    if token and urlsplit(url).scheme in ("http", "https"):
        base = f"{urlsplit(url).scheme}://{urlsplit(url).netloc}/"
        env = credential_environment(f"http.{base}.extraheader", token)
    git.fetch(url, list(dict.fromkeys(refspecs)), extra_env=env)


@dataclass
class _Batch:
    url: str
    token: str | None
    refspecs: list[str] = field(default_factory=list)
    done: bool = False
    error: BaseException | None = None


class _Batcher:
    """The fetches of one mirror: one runs; the requests that arrive meanwhile form the next batch."""

    def __init__(self) -> None:
        self._guard = threading.Lock()  # guards ``_pending``
        self._running = threading.Lock()  # held by the one thread running a git fetch
        self._pending: _Batch | None = None

    def fetch(self, git: Git, url: str, refspecs: list[str], token: str | None) -> None:
        batch = self._join(url, refspecs, token)
        with self._running:
            if not batch.done:
                self._run(git, batch)
        if batch.error is None:
            return
        if len(batch.refspecs) == len(refspecs):
            raise batch.error
        with self._running:  # the batch failed: this job's refs alone, so another's cannot fail it
            _fetch_now(git, url, refspecs, token)

    def _join(self, url: str, refspecs: list[str], token: str | None) -> _Batch:
        with self._guard:
            pending = self._pending
            if pending is None or (pending.url, pending.token) != (url, token):
                pending = self._pending = _Batch(url, token)
            pending.refspecs.extend(refspecs)
            return pending

    def _run(self, git: Git, batch: _Batch) -> None:
        with self._guard:  # closed: later requests start the next batch
            if self._pending is batch:
                self._pending = None
        try:
            _fetch_now(git, batch.url, batch.refspecs, batch.token)
        except Exception as exc:  # noqa: BLE001 - handed to every job of the batch
            batch.error = exc
        finally:
            batch.done = True
