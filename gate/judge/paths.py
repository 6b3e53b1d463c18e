"""Normal repo-relative POSIX paths (contract v2), for freeze nodeids and lock paths.

A normal path has no leading ``/`` or ``./``, no empty, ``.`` or ``..``
segment and no backslash. What is not normal is a problem of the file that
holds it (``oracle_incomplete``); a lock path still protects its normalized
form, so ``./a//b`` protects ``a/b``.
"""

from __future__ import annotations

import posixpath


def path_problem(path: str) -> str | None:
    """Why ``path`` is not a normal repo-relative POSIX path (None when it is)."""
    segments = path.split("/")
    checks = (
        (not path, "is empty"),
        ("\\" in path, "contains a backslash"),
        (path.startswith("/"), "starts with '/'"),
        (path.startswith("./"), "starts with './'"),
        ("" in segments, "has an empty segment"),
        ("." in segments, "has a '.' segment"),
        (".." in segments, "has a '..' segment"),
    )
    return next((problem for failed, problem in checks if failed), None)


def normalize_path(path: str) -> str | None:
    """The normal form a runner would read ``path`` as; None when it leaves the repository.

    Backslashes count as separators (a Windows runner reads them so), empty and ``.``
    segments drop out and ``..`` goes up one segment.
    """
    norm = posixpath.normpath("/" + path.replace("\\", "/")).lstrip("/")
    if not norm or norm == ".":
        return None
    if posixpath.normpath(path.replace("\\", "/")).startswith("../") or path.replace("\\", "/") == "..":
        return None
    return norm
