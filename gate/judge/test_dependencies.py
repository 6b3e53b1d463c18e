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

v3.8 adds the test tools of **any** requirements file (:func:`is_requirements_file`: a plain
``requirements.txt``, ``docs/requirements.txt``, ``requirements/base.txt``, ...): the requirements
whose project name is ``pytest``, ``coverage`` or ``pytest-*`` (:func:`test_tool_lines`; a pytest
plugin added there loads code into the run whatever the file is called), and the test extras of
``setup.cfg``'s ``[options.extras_require]`` (:func:`setup_cfg_test_extras`).

A test group is compared with what it takes in (:func:`_taken_in`): a PEP 735 ``include-group`` and
the project's own extras (``test = ["my-pkg[plugins]"]``), else a plugin added to ``plugins`` would
reach the run unseen while ``test`` itself reads the same.
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

#: v3.8: a project name (PEP 503 normalized) that is a test tool.
TEST_TOOLS = frozenset({"pytest", "coverage"})
TEST_TOOL_PREFIX = "pytest-"
#: Options of a requirements line that bring in another file: what it holds is not visible here.
INCLUDE_OPTIONS = ("-r", "--requirement", "-c", "--constraint")
EDITABLE_OPTIONS = ("-e", "--editable")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_AFTER_NAME = frozenset("[=<>!~;@(,")  # what may follow a project name in a requirement
_ARCHIVE = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*?)-\d[^/]*\.(?:whl|tar\.gz|zip|tar\.bz2)$")
_EGG = re.compile(r"#egg=([A-Za-z0-9._-]+)")
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


def is_requirements_file(path: str) -> bool:
    """v3.8: any requirements or constraints file by name, or any file under a ``requirements``
    directory, whatever else its name holds (names compared case-insensitively, at any depth)."""
    lowered = path.lower()
    directories, name = lowered.split("/")[:-1], posixpath.basename(lowered)
    return REQUIREMENTS_DIR in directories or any(fnmatch.fnmatchcase(name, p) for p in DECLARATION_PATTERNS)


def test_tool_lines(data: bytes | None) -> list[str] | None:
    """v3.8: the requirement lines of a requirements file that name a test tool (or may: an include
    of another file, an editable or URL requirement whose project name cannot be read), compared as
    :func:`requirement_lines` compares them. None: not UTF-8."""
    found = requirement_lines(data)
    return None if found is None else [line for line in found if _may_be_test_tool(line)]


def is_test_tool(name: str) -> bool:
    """A project name (any spelling) that is ``pytest``, ``coverage`` or ``pytest-*`` (PEP 503)."""
    normalized = group_name(name)
    return normalized in TEST_TOOLS or normalized.startswith(TEST_TOOL_PREFIX)


def _may_be_test_tool(line: str) -> bool:
    """``line`` is compact (whitespace removed): ``pytest-cov==5.0``, ``-rtest.txt``, ``-e.#egg=x``."""
    if line.startswith(INCLUDE_OPTIONS):
        return True
    editable = next((line.removeprefix(o) for o in EDITABLE_OPTIONS if line.startswith(o)), None)
    if editable is None and line.startswith("-"):
        return False  # --index-url, --hash on its own line, ...: no project
    name = _project_name(editable if editable is not None else line)
    return name is None or is_test_tool(name)


def _project_name(spec: str) -> str | None:
    """The project a requirement names; None when it cannot be read (a path or URL with no
    ``#egg=``, whose file name is no distribution's); empty for the project itself (``-e .[docs]``,
    whose extras its own packaging declares)."""
    egg = _EGG.search(spec)
    if egg:
        return egg.group(1)
    if spec.split("[", 1)[0] in (".", "./"):
        return ""
    match = _NAME.match(spec)
    if match and (match.end() == len(spec) or spec[match.end()] in _AFTER_NAME):
        return match.group(0)
    base = posixpath.basename(spec.split("#", 1)[0].split("?", 1)[0].rstrip("/"))
    archive = _ARCHIVE.match(
        base
    )  # a wheel's or sdist's file name: the project name, then '-' and its version
    return archive.group(1) if archive else None


def setup_cfg_test_extras(extras: dict[str, str], project: str | None = None) -> dict[str, list[str]]:
    """v3.8: the test entries of ``setup.cfg``'s ``[options.extras_require]`` (named as v3.3's
    pyproject entries), and the project's own extras they take in (``[metadata] name``), each as its
    sorted requirement lines."""
    lines = {name: requirement_lines(value.encode()) or [] for name, value in extras.items()}
    wanted = [name for name in extras if group_name(name) in TEST_GROUPS]
    taken = _taken_in(dict(lines), wanted, project)
    return {f"[options.extras_require] {name}": lines[name] for name in extras if name in taken}


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
    """The test dependency tables of a parsed ``pyproject.toml``, by a name for the report: the test
    groups, and every group or extra one of them takes in (:func:`_taken_in`)."""
    found: dict[str, Any] = {}
    own = _get(doc, "project.name")
    for table in ("project.optional-dependencies", "dependency-groups"):
        groups = _get(doc, table)
        if isinstance(groups, dict):
            wanted = [k for k in groups if group_name(k) in TEST_GROUPS]
            taken = _taken_in(groups, wanted, own if isinstance(own, str) else None)
            found.update({f"[{table}] {k}": groups[k] for k in groups if k in taken})
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


def _taken_in(groups: dict[str, Any], wanted: list[str], project: str | None) -> set[str]:
    """``wanted`` and every group it takes in, transitively: a PEP 735 ``{include-group = "x"}``, and
    the project's own extras (``test = ["my-pkg[plugins]"]`` installs the ``plugins`` extra). A
    pytest plugin added to ``plugins`` reaches the test run as surely as one added to ``test``.
    Names compared as PEP 503/685 normalize them."""
    by_name = {group_name(k): k for k in groups}
    own = group_name(project) if project else None
    taken: set[str] = set()
    stack = list(wanted)
    while stack:
        key = stack.pop()
        if key in taken:
            continue
        taken.add(key)
        entries = groups.get(key)
        for entry in entries if isinstance(entries, list) else []:
            stack += [by_name[n] for n in _included(entry, own) if n in by_name]
    return taken


def _included(entry: object, project: str | None) -> list[str]:
    """The normalized names of the groups or extras one entry takes in."""
    if isinstance(entry, dict):
        name = entry.get("include-group")
        return [group_name(name)] if isinstance(name, str) else []
    if not (isinstance(entry, str) and project):
        return []
    found = _SELF_EXTRAS.match(entry)
    if found is None or group_name(found["name"]) != project:
        return []
    return [group_name(extra.strip()) for extra in found["extras"].split(",") if extra.strip()]


_SELF_EXTRAS = re.compile(r"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*\[(?P<extras>[^\]]*)\]")


def pipfile_declarations(doc: dict[str, Any]) -> dict[str, Any]:
    return {"[dev-packages]": doc["dev-packages"]} if "dev-packages" in doc else {}


def _get(doc: dict[str, Any], dotted: str) -> Any:
    value: Any = doc
    for key in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
