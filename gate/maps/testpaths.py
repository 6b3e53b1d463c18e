"""Which tests the default ``map`` command runs when the project's pytest configuration names no
``testpaths`` (issue 28).

Without ``testpaths`` (and without paths on its command line) pytest collects every ``test_*.py``
under its rootdir, outside ``norecursedirs``: benchmarks that need a plugin the project's CI installs
in another job, examples, scripts, vendored code. Most such projects' CI runs ``pytest tests`` (tox,
nox, a workflow), and collecting the rest makes a map that fails to collect or records tests nobody
runs. So, for the default command only:

* the configuration file pytest would read at the top of the repository (pytest's own order:
  ``pytest.toml``, ``.pytest.toml``, ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml`` with a
  ``[tool.pytest]`` or ``[tool.pytest.ini_options]`` table, ``tox.ini`` with ``[pytest]``,
  ``setup.cfg`` with ``[tool:pytest]``) sets ``testpaths``: pytest's choice, nothing added;
* it does not, and the top of the repository has the conventional test directories (``tests``,
  ``test``, ``testing``): those are passed to pytest, as ``pytest tests`` would be run, with the
  oracle's harness (the top-level directory of the policy's ``harness`` globs, ``harness/``: the
  scoring run runs it first, so the map must measure it), and ``map`` says so in one line (set
  ``testpaths``, or give the command after ``--``, to choose otherwise);
* its ``addopts`` ask for doctests of modules (``--doctest-modules``): the modules are tests too,
  so pytest's own collection from the rootdir stands.

The user's own command is never changed. ``norecursedirs`` and the rest of the configuration apply
as pytest applies them, under the directories passed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_gate.git import Git

CONVENTIONAL_DIRS = ("tests", "test", "testing")
# pytest's order of precedence at one directory (pytest 9): the first that holds pytest's table wins.
CONFIG_ORDER = (
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
)
DOCTEST_MODULES = "--doctest-modules"
TREE_MODE = "040000"


@dataclass(frozen=True)
class DefaultPaths:
    """What the default command adds (``paths``), and the note that says why (None: nothing added)."""

    paths: tuple[str, ...] = ()
    note: str | None = None


def default_test_paths(git: Git, sha: str, harness: Sequence[str] = ()) -> DefaultPaths:
    """The default command's test paths for ``sha`` (read with git: no worktree needed). ``harness``:
    the policy's harness globs, whose top-level directory (``harness/``) is run too."""
    top = git.list_directory(sha, "")
    dirs = [d for d in CONVENTIONAL_DIRS if top.get(d, ("",))[0] == TREE_MODE]
    dirs += [d for d in harness_roots(harness) if d in top and d not in dirs]
    return choose_paths(git.read_blobs(sha, list(CONFIG_ORDER)), dirs)


def default_test_paths_in(tree: Path, harness: Sequence[str] = ()) -> DefaultPaths:
    """:func:`default_test_paths` for a working tree as it is on disk (``freeze add`` collects there)."""
    blobs = {name: _read(tree / name) for name in CONFIG_ORDER}
    dirs = [d for d in CONVENTIONAL_DIRS if (tree / d).is_dir()]
    dirs += [d for d in harness_roots(harness) if (tree / d).exists() and d not in dirs]
    return choose_paths(blobs, dirs)


def harness_roots(globs: Sequence[str]) -> list[str]:
    """The top-level names the harness globs start with (``harness/**`` -> ``harness``), wildcards not."""
    roots = [glob.split("/", 1)[0] for glob in globs]
    return [r for r in dict.fromkeys(roots) if r and not any(c in r for c in "*?[") and r not in ("..", ".")]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def choose_paths(blobs: Mapping[str, bytes | None], dirs: Sequence[str]) -> DefaultPaths:
    """The configuration files' bytes and the test directories present -> the choice (none without a
    conventional test directory: the harness alone is no reason to leave pytest's choice)."""
    config = pytest_table(blobs)
    if config is not None and (config[1].get("testpaths") or _doctest_modules(config[1])):
        return DefaultPaths()
    if not any(d in CONVENTIONAL_DIRS for d in dirs):
        return DefaultPaths()
    where = config[0] if config is not None else "the project's pytest configuration (there is none)"
    shown = " ".join(f"{d}/" for d in dirs)
    return DefaultPaths(
        tuple(dirs),
        f"no testpaths in {where}: the map runs pytest on {shown} (the conventional test directories and "
        "the oracle's harness, as `pytest tests` runs); set testpaths, or give the test command after --, "
        "to choose",
    )


def pytest_table(blobs: Mapping[str, bytes | None]) -> tuple[str, dict[str, Any]] | None:
    """The configuration file pytest reads at the top of the repository and its pytest settings."""
    for name in CONFIG_ORDER:
        data = blobs.get(name)
        if data is None:
            continue
        table = _settings(name, data)
        if table is not None:
            return name, table
    return None


# Files that name neither setting are not parsed (``map`` does not import tomllib for them: some 6 ms
# of its start-up, tests/integration/test_map_startup.py): only whether they hold pytest's table.
_MENTIONS = (b"testpaths", DOCTEST_MODULES.encode())
_TABLE = {
    "pyproject.toml": re.compile(rb"(?m)^\s*\[\s*tool\s*\.\s*pytest\s*[\].]"),
    "tox.ini": re.compile(rb"(?m)^\s*\[pytest\]"),
    "setup.cfg": re.compile(rb"(?m)^\s*\[tool:pytest\]"),
}


def _settings(name: str, data: bytes) -> dict[str, Any] | None:
    """The pytest settings of one file, or None when it holds none (pytest looks further then)."""
    if not any(word in data for word in _MENTIONS):
        table = _TABLE.get(name)
        return {} if table is None or table.search(data) else None
    import configparser
    import tomllib

    try:
        text = data.decode("utf-8")
        if name.endswith(".toml"):
            return _toml_settings(name, tomllib.loads(text))
        parser = configparser.ConfigParser(interpolation=None, default_section="\0no default\0")
        parser.read_string(text)
    except (UnicodeDecodeError, ValueError, configparser.Error, RecursionError):  # TOMLDecodeError too
        return {} if name in ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml") else None
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    if parser.has_section(section):
        return dict(parser.items(section))
    return {} if name in ("pytest.ini", ".pytest.ini") else None  # these count even when empty


def _toml_settings(name: str, doc: dict[str, Any]) -> dict[str, Any] | None:
    if name != "pyproject.toml":
        table = doc.get("pytest")
        return table if isinstance(table, dict) else {}  # pytest.toml counts even when empty
    tool = doc.get("tool")
    pytest_table = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(pytest_table, dict):
        return None
    ini = pytest_table.get("ini_options")
    native = {k: v for k, v in pytest_table.items() if k != "ini_options"}
    if isinstance(ini, dict):
        return {**native, **ini}
    return native if native else None


def _doctest_modules(settings: Mapping[str, Any]) -> bool:
    addopts = settings.get("addopts")
    words = " ".join(addopts) if isinstance(addopts, list) else str(addopts or "")
    return DOCTEST_MODULES in words.split()
