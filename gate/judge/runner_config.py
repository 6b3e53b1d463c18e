"""Test-runner hooks and configuration: what changes how the oracle runs.

Hook files (names compared case-insensitively at any depth, compiled code,
``.github/actions/**``) count on any added, deleted, renamed or edited file (not
a mode-only change). Inside ``pyproject.toml`` and ``setup.cfg`` only the
pytest and coverage tables and the ``pytest11`` plugin entry points count,
compared as parsed values so comments, formatting and order do not; a side
that cannot be parsed (including TOML nested too deep for the parser) counts
as changed whenever its bytes differ. An added line of any ``.py`` file that
contains ``pytest_plugins`` counts too: a plugin list loads code into the run.

v3.3 adds test dependency declarations (:mod:`oracle_gate.judge.test_dependencies`: requirements files
for tests, pyproject's test groups, ``Pipfile``'s ``[dev-packages]``, compared as parsed values)
and code that reaches the measurement machinery (:mod:`oracle_gate.judge.measurement`).

v3.8 narrows and widens: a ``setup.py`` whose edit only bumps its version strings is not counted
(:mod:`oracle_gate.judge.version_bump`), while the test tools of *any* requirements file and the
test extras of ``setup.cfg``'s ``[options.extras_require]`` are.
"""

from __future__ import annotations

import configparser
import posixpath
import tomllib
from collections.abc import Collection
from typing import Any

from oracle_gate.judge.changes import FileChange
from oracle_gate.judge.globs import glob_matches
from oracle_gate.judge.measurement import GATE_IMPORT_PACKAGE
from oracle_gate.judge.python_facts import python_facts
from oracle_gate.judge.test_dependencies import (
    PIPFILE,
    is_declaration_file,
    is_requirements_file,
    pipfile_declarations,
    pyproject_declarations,
    requirement_lines,
    setup_cfg_test_extras,
    test_tool_lines,
)
from oracle_gate.judge.version_bump import only_version_bump

HOOK_FILES = frozenset(
    {
        "conftest.py",
        "pytest.ini",
        ".pytest.ini",
        "pytest.toml",
        ".pytest.toml",
        "tox.ini",
        "noxfile.py",
        "setup.py",
        ".coveragerc",
        "sitecustomize.py",
        "usercustomize.py",
        ".gitattributes",
    }
)
COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd", ".pth")  # .pth: not compiled, but a hook by suffix
TABLE_FILES = frozenset({"pyproject.toml", "setup.cfg", PIPFILE})  # v3.3: Pipfile
ACTIONS_GLOB = ".github/actions/**"
SETUP_PY = "setup.py"
PLUGIN_LIST = "pytest_plugins"


def is_hook_file(path: str) -> bool:
    """A runner file by name (any depth, any case), compiled code, or a repository action."""
    lowered = path.lower()
    name = posixpath.basename(lowered)
    return (
        name in HOOK_FILES
        or name.endswith(COMPILED_SUFFIXES)
        or "__pycache__" in lowered.split("/")
        or glob_matches(ACTIONS_GLOB, path)
    )


def is_table_file(path: str) -> bool:
    return posixpath.basename(path).lower() in TABLE_FILES


def runner_config_changes(change: FileChange, parent_has: Collection[str] = ()) -> list[tuple[str, str]]:
    """(path, what changed) for each way this file change alters the runner's set-up.

    ``parent_has``: the measuring packages the parent tree defines as its own top-level modules
    (v3.3: importing the gate's package is then the project's own code, not the collector)."""
    found: list[tuple[str, str]] = []
    for path in change.paths:
        before = change.old_blob if path == change.old_path else None
        after = change.new_blob if path == change.new_path else None
        before_exists = path == change.old_path
        after_exists = path == change.new_path
        if is_hook_file(path):
            if before_exists != after_exists:
                found.append((path, "removed" if before_exists else "added"))
            elif change.content_changed and not _version_bump(path, change):
                found.append((path, "edited"))
        elif (is_table_file(path) or is_requirements_file(path)) and change.oversized:  # not read (v2)
            found.append((path, "changes (a side larger than the blob cap, not parsed)"))
        elif is_declaration_file(path):  # v3.3
            if changed_requirements(before, after):
                found.append((path, "changes test dependency declarations"))
        elif is_requirements_file(path):  # v3.8
            if changed_test_tools(before, after):
                found.append((path, "changes test tools (pytest, coverage or a pytest-* plugin)"))
        elif is_table_file(path):
            tables = changed_tables(path, before, after)
            if tables:
                found.append((path, "changes " + ", ".join(tables)))
    return found + added_plugin_lists(change) + added_measurement(change, parent_has)


def changed_requirements(before: bytes | None, after: bytes | None) -> bool:
    """v3.3: whether two versions of a requirements file declare different requirements."""
    if before == after:
        return False
    old, new = requirement_lines(before), requirement_lines(after)
    return old is None or new is None or old != new


def changed_test_tools(before: bytes | None, after: bytes | None) -> bool:
    """v3.8: whether two versions of any requirements file declare different test tools."""
    if before == after:
        return False
    old, new = test_tool_lines(before), test_tool_lines(after)
    return old is None or new is None or old != new


def _version_bump(path: str, change: FileChange) -> bool:
    """v3.8: a ``setup.py`` edited in place whose two sides differ only in version strings."""
    if posixpath.basename(path).lower() != SETUP_PY or change.old_path != change.new_path:
        return False
    return not change.oversized and only_version_bump(change.old_blob, change.new_blob)


def added_measurement(change: FileChange, parent_has: Collection[str] = ()) -> list[tuple[str, str]]:
    """v3.3: added lines of a ``.py`` file that reach tracers, coverage.py or the gate's collector."""
    path = change.new_path
    if path is None or not path.lower().endswith(".py") or not change.added:
        return []
    facts = python_facts(change.new_blob, frozenset(a.number for a in change.added))
    if facts is None:
        return []
    found = facts.measurement if GATE_IMPORT_PACKAGE not in parent_has else facts.measurement_without_gate
    return [(path, f"line {line} reaches the measurement machinery ({what})") for line, what in found]


def added_plugin_lists(change: FileChange) -> list[tuple[str, str]]:
    """v2: an added line of a ``.py`` file that mentions ``pytest_plugins``."""
    if change.new_path is None or not change.new_path.lower().endswith(".py"):
        return []
    return [
        (change.new_path, f"line {line.number} adds {PLUGIN_LIST}")
        for line in change.added
        if PLUGIN_LIST in line.text
    ]


def changed_tables(path: str, before: bytes | None, after: bytes | None) -> list[str]:
    """Names of the runner tables that differ between two versions of ``path``."""
    if before == after:
        return []
    old, new = runner_tables(path, before), runner_tables(path, after)
    if old is None or new is None:
        return ["(unparseable file)"]
    return sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))


def runner_tables(path: str, data: bytes | None) -> dict[str, Any] | None:
    """The runner tables of one file version; None when it cannot be parsed."""
    if data is None:
        return {}
    try:
        text = data.decode("utf-8")
        name = posixpath.basename(path).lower()
        if name == "pyproject.toml":
            return _pyproject_tables(tomllib.loads(text))
        if name == PIPFILE:
            return pipfile_declarations(tomllib.loads(text))
        return _setup_cfg_tables(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error, RecursionError):
        return None


def _pyproject_tables(doc: dict[str, Any]) -> dict[str, Any]:
    tables = {**_entry_point_tables(doc), **pyproject_declarations(doc)}
    tool = doc.get("tool")
    if not isinstance(tool, dict):
        return tables if tool is None else {**tables, "[tool]": tool}
    tables.update({f"[tool.{name}]": tool[name] for name in ("pytest", "coverage") if name in tool})
    return tables


def _entry_point_tables(doc: dict[str, Any]) -> dict[str, Any]:
    """v2: the ``pytest11`` plugin entry points (PEP 621 and Poetry), as parsed values."""
    found: dict[str, Any] = {}
    for name, keys in (
        ("[project.entry-points.pytest11]", ("project", "entry-points", "pytest11")),
        ("[tool.poetry.plugins.pytest11]", ("tool", "poetry", "plugins", "pytest11")),
    ):
        value: Any = doc
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            found[name] = value
    return found


def _setup_cfg_tables(text: str) -> dict[str, Any]:
    parser = configparser.ConfigParser(interpolation=None, default_section="\0no default\0")
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    tables: dict[str, Any] = {
        f"[{name}]": dict(parser.items(name, raw=True))
        for name in parser.sections()
        if name == "tool:pytest" or name.startswith("coverage:")
    }
    if parser.has_section("options.extras_require"):  # v3.8: the test extras
        project = parser.get("metadata", "name", raw=True, fallback=None)
        extras = dict(parser.items("options.extras_require", raw=True))
        tables.update(setup_cfg_test_extras(extras, project))
    if parser.has_option("options.entry_points", "pytest11"):
        raw = parser.get("options.entry_points", "pytest11", raw=True)
        tables["[options.entry_points] pytest11"] = entry_point_lines(raw)
    return tables


def entry_point_lines(raw: str) -> list[tuple[str, str]]:
    """``name = module:attr`` lines of a setup.cfg entry-point value, whitespace and order ignored."""
    pairs = set()
    for line in raw.splitlines():
        name, eq, target = line.partition("=")
        if line.strip() and not line.strip().startswith(("#", ";")):
            pairs.add(("".join(name.split()), "".join(target.split())) if eq else ("".join(line.split()), ""))
    return sorted(pairs)
