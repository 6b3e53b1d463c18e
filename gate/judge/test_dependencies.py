"""Contract v3.3: test dependency declarations are runner configuration.

A new pytest plugin in ``requirements-test.txt`` loads code into the run as surely as a
``conftest.py`` does. Counted, compared as parsed values (comments, formatting and order do not
count; a side that cannot be parsed counts as changed whenever its bytes differ):

- files named like ``*requirements*.txt``, ``*requirements*.in`` or ``*constraints*.txt`` whose name
  holds ``test``, ``dev`` or ``ci``, and files under a ``requirements`` directory whose name does
  (names compared case-insensitively, at any depth): their requirement lines;
- in ``pyproject.toml``: the ``test``/``tests``/``testing``/``dev``/``ci`` entries of
  ``[project.optional-dependencies]`` and ``[dependency-groups]`` (names normalized as PEP 503/685
  do), those groups of ``[tool.poetry.group.*]``, ``[tool.poetry.dev-dependencies]``,
  ``[tool.hatch.envs]`` and ``[tool.pdm.dev-dependencies]``;
- ``Pipfile``'s ``[dev-packages]``.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import Any

TEST_GROUPS = frozenset({"test", "tests", "testing", "dev", "ci"})
NAME_WORDS = ("test", "dev", "ci")
DECLARATION_PATTERNS = ("*requirements*.txt", "*requirements*.in", "*constraints*.txt")
REQUIREMENTS_DIR = "requirements"
PIPFILE = "pipfile"

_COMMENT = re.compile(r"(^|\s)#.*$")
_CONTINUATION = re.compile(r"\\\r?\n")
_SEPARATORS = re.compile(r"[-_.]+")


def is_declaration_file(path: str) -> bool:
    """A requirements or constraints file for tests, development or CI, by its name."""
    lowered = path.lower()
    directories, name = lowered.split("/")[:-1], posixpath.basename(lowered)
    if not any(word in name for word in NAME_WORDS):
        return False
    return REQUIREMENTS_DIR in directories or any(fnmatch.fnmatchcase(name, p) for p in DECLARATION_PATTERNS)


def requirement_lines(data: bytes | None) -> list[str] | None:
    """A requirements file as its sorted requirement lines, comments and whitespace removed
    (None: not UTF-8, so it cannot be compared as text)."""
    if data is None:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    found = []
    for line in _CONTINUATION.sub(" ", text).splitlines():
        compact = "".join(_COMMENT.sub("", line).split())
        if compact:
            found.append(compact)
    return sorted(found)


def group_name(name: str) -> str:
    """A group or extra name as PEP 503/685 compare them: lower case, ``-_.`` runs as ``-``."""
    return _SEPARATORS.sub("-", name).lower()


def pyproject_declarations(doc: dict[str, Any]) -> dict[str, Any]:
    """The test dependency tables of a parsed ``pyproject.toml``, by a name for the report."""
    found: dict[str, Any] = {}
    for table in ("project.optional-dependencies", "dependency-groups"):
        groups = _get(doc, table)
        if isinstance(groups, dict):
            found.update({f"[{table}] {k}": v for k, v in groups.items() if group_name(k) in TEST_GROUPS})
        elif groups is not None:
            found[f"[{table}]"] = groups
    poetry_groups = _get(doc, "tool.poetry.group")
    if isinstance(poetry_groups, dict):
        found.update(
            {f"[tool.poetry.group.{k}]": v for k, v in poetry_groups.items() if group_name(k) in TEST_GROUPS}
        )
    elif poetry_groups is not None:
        found["[tool.poetry.group]"] = poetry_groups
    for table in ("tool.poetry.dev-dependencies", "tool.hatch.envs", "tool.pdm.dev-dependencies"):
        value = _get(doc, table)
        if value is not None:
            found[f"[{table}]"] = value
    return found


def pipfile_declarations(doc: dict[str, Any]) -> dict[str, Any]:
    return {"[dev-packages]": doc["dev-packages"]} if "dev-packages" in doc else {}


def _get(doc: dict[str, Any], dotted: str) -> Any:
    value: Any = doc
    for key in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
