"""The fixture lock: byte digests of locked fixtures, checked against head blobs."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from oracle_gate.judge.paths import normalize_path, path_problem
from oracle_gate.judge.problems import Problem

DIGEST = re.compile(r"[0-9a-fA-F]{64}")


@dataclass(frozen=True)
class FixtureLock:
    paths: tuple[str, ...] = ()
    sha256: tuple[tuple[str, str], ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def named_paths(self) -> tuple[str, ...]:
        """Every path the lock names (``paths`` and the keys of ``sha256``): all protected."""
        return tuple(dict.fromkeys((*self.paths, *(path for path, _ in self.sha256))))


def parse_lock(data: bytes | None, source: str = "fixture_lock.json") -> FixtureLock:
    """The lock from the parent's bytes; None (no file) locks nothing."""
    if data is None:
        return FixtureLock()
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return FixtureLock(problems=(Problem(source, f"not valid JSON ({exc})"),))
    except RecursionError:  # v2 hostile input
        return FixtureLock(problems=(Problem(source, "nested too deeply to parse"),))
    if not isinstance(doc, dict):
        return FixtureLock(problems=(Problem(source, f"expected a JSON object, got {type(doc).__name__}"),))
    problems: list[Problem] = []
    raw_paths = doc.get("paths")
    if not isinstance(raw_paths, list):
        problems.append(Problem(source, "'paths' is required and must be a list of paths"))
        raw_paths = []
    written = tuple(p for p in raw_paths if isinstance(p, str) and p)
    if len(written) != len(raw_paths):
        problems.append(Problem(source, "'paths' holds entries that are not non-empty strings"))
    paths = _normal_paths(written, "'paths' entry", source, problems)
    raw_digests = doc.get("sha256", {})
    if not isinstance(raw_digests, dict):
        problems.append(Problem(source, "'sha256' must be an object of path -> hex digest"))
        raw_digests = {}
    digests = []
    for path, digest in sorted(raw_digests.items()):
        if not (isinstance(digest, str) and DIGEST.fullmatch(digest)):
            problems.append(Problem(source, f"sha256 of {path!r} is not a 64-digit hex digest"))
            continue
        for normal in _normal_paths((path,), "'sha256' key", source, problems):
            digests.append((normal, digest.lower()))
    return FixtureLock(paths, tuple(digests), tuple(problems))


def _normal_paths(
    written: tuple[str, ...], what: str, source: str, problems: list[Problem]
) -> tuple[str, ...]:
    """v2: each path in its normal form, with a problem for every one not written normally.

    A path that leaves the repository (``../x``) protects nothing and is only reported.
    """
    normal = []
    for path in written:
        problem = path_problem(path)
        if problem:
            problems.append(Problem(source, f"{what} {path!r} is not a normal repo-relative path: {problem}"))
        norm = normalize_path(path)
        if norm is not None:
            normal.append(norm)
    return tuple(dict.fromkeys(normal))


def lock_breaks(lock: FixtureLock, head_blobs: Mapping[str, bytes | None]) -> list[tuple[str, str]]:
    """(path, what is wrong) for every locked digest head does not honour."""
    breaks = []
    for path, digest in lock.sha256:
        blob = head_blobs.get(path)
        if blob is None:
            breaks.append((path, "is missing in head"))
        elif hashlib.sha256(blob).hexdigest() != digest:
            breaks.append(
                (
                    path,
                    f"has sha256 {hashlib.sha256(blob).hexdigest()[:12]}..., the lock says {digest[:12]}...",
                )
            )
    return breaks
