"""The parent's pytest ``addopts``, parsed from the configuration files' bytes (pure).

The read side (:func:`oracle_gate.check.read_addopts`) reads the files from the parent with git; this
module only parses. Every file pytest could take its configuration from is read and their
``addopts`` are joined: which one pytest picks depends on how it is started, and a mark named in any
of them may be deselected, so taking all of them is the stricter reading.
"""

from __future__ import annotations

import configparser
import tomllib
from typing import Any

#: file -> where its addopts live: ("toml", table path) or ("ini", section).
CONFIG_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "pytest.toml": ("toml", ("pytest",)),
    ".pytest.toml": ("toml", ("pytest",)),
    "pytest.ini": ("ini", ("pytest",)),
    ".pytest.ini": ("ini", ("pytest",)),
    "pyproject.toml": ("toml", ("tool", "pytest")),
    "tox.ini": ("ini", ("pytest",)),
    "setup.cfg": ("ini", ("tool:pytest",)),
}


def addopts_of(name: str, data: bytes) -> str:
    """The ``addopts`` text of one configuration file ('' when none or unparseable)."""
    kind, where = CONFIG_FILES[name]
    try:
        text = data.decode("utf-8")
        if kind == "toml":
            return _toml_addopts(tomllib.loads(text), where)
        return _ini_addopts(text, where[0])
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error, RecursionError):
        return ""


def _toml_addopts(doc: dict[str, Any], where: tuple[str, ...]) -> str:
    table: Any = doc
    for key in where:
        table = table.get(key) if isinstance(table, dict) else None
    if not isinstance(table, dict):
        return ""
    values = [table.get("addopts")]
    ini = table.get("ini_options")
    if isinstance(ini, dict):
        values.append(ini.get("addopts"))
    return " ".join(_flatten(v) for v in values if v is not None)


def _flatten(value: object) -> str:
    if isinstance(value, list):
        return " ".join(_flatten(v) for v in value)
    return value if isinstance(value, str) else ""


def _ini_addopts(text: str, section: str) -> str:
    parser = configparser.ConfigParser(interpolation=None, default_section="\0no default\0")
    parser.read_string(text)
    if parser.has_option(section, "addopts"):
        return parser.get(section, "addopts", raw=True)
    return ""


def joined_addopts(files: dict[str, bytes | None]) -> str:
    """The addopts of every present configuration file, joined by spaces."""
    return " ".join(a for name, data in files.items() if data is not None and (a := addopts_of(name, data)))
