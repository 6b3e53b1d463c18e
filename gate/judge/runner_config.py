"""Test-runner hooks and configuration: what changes how the oracle runs.

Hook files count on any added, deleted, renamed or edited file (not a
mode-only change). Inside ``pyproject.toml`` and ``setup.cfg`` only the
pytest and coverage tables count, compared as parsed values so comments,
formatting and order do not; a side that cannot be parsed counts as changed
whenever its bytes differ.
"""

from __future__ import annotations

import configparser
import posixpath
import tomllib
from typing import Any

from gate.judge.changes import FileChange

HOOK_FILES = frozenset({"conftest.py", "pytest.ini", "tox.ini", "sitecustomize.py", "usercustomize.py"})
TABLE_FILES = frozenset({"pyproject.toml", "setup.cfg"})


def is_hook_file(path: str) -> bool:
    name = posixpath.basename(path)
    return name in HOOK_FILES or name.endswith(".pth")


def runner_config_changes(change: FileChange) -> list[tuple[str, str]]:
    """(path, what changed) for each way this file change alters the runner's set-up."""
    found: list[tuple[str, str]] = []
    for path in change.paths:
        before = change.old_blob if path == change.old_path else None
        after = change.new_blob if path == change.new_path else None
        before_exists = path == change.old_path
        after_exists = path == change.new_path
        if is_hook_file(path):
            if before_exists != after_exists:
                found.append((path, "removed" if before_exists else "added"))
            elif change.content_changed:
                found.append((path, "edited"))
        elif posixpath.basename(path) in TABLE_FILES:
            tables = changed_tables(path, before, after)
            if tables:
                found.append((path, "changes " + ", ".join(tables)))
    return found


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
        if posixpath.basename(path) == "pyproject.toml":
            return _pyproject_tables(tomllib.loads(text))
        return _setup_cfg_tables(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error):
        return None


def _pyproject_tables(doc: dict[str, Any]) -> dict[str, Any]:
    tool = doc.get("tool")
    if not isinstance(tool, dict):
        return {} if tool is None else {"[tool]": tool}
    return {f"[tool.{name}]": tool[name] for name in ("pytest", "coverage") if name in tool}


def _setup_cfg_tables(text: str) -> dict[str, Any]:
    parser = configparser.ConfigParser(interpolation=None, default_section="\0no default\0")
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return {
        f"[{name}]": dict(parser.items(name, raw=True))
        for name in parser.sections()
        if name == "tool:pytest" or name.startswith("coverage:")
    }
