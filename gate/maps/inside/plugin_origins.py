"""SCORING.md v2, 2.1: every plugin pytest's plugin manager holds, by origin.

An installed distribution's ``pytest11`` entry point is one way in; a module of the checkout is
another, and the one a change controls: ``pytest_plugins`` in any module (a literal, a computed
value, a write through ``globals()``), a ``conftest.py``, ``-p``, or a call of
``config.pluginmanager.register`` / ``import_plugin``. Whatever registered it, the plugin manager
holds it, so the set is read from there: each registered plugin is a module or an object whose
class is defined in a module, and that module is either a file of the checkout (origin
``tree:<path>``) or part of an installed distribution (its name and version, as
:func:`oracle_gate.maps.inside.outcomes.loaded_plugins` records entry points).

pytest's own plugins (``_pytest``, ``pytest``, ``pluggy``) and the gate's own modules are left out:
pytest's version is in the set already, and the gate is the same on both sides.

Standard library only (the map plugin imports this at the end of collection).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

TREE_PREFIX = "tree:"  # a plugin whose module is a file of the checkout: "tree:tests/conftest.py"
MODULE_PREFIX = "module:"  # a plugin module outside the checkout that no distribution provides
# Modules whose plugins are pytest itself (its version is in the set) or the gate, which both sides run;
# and ``__channelexec__``, the name execnet gives pytest-xdist's worker code (xdist/remote.py) in a
# worker, whose distribution is in the set through xdist's entry point. A file of the checkout is
# named by its path before any of these names is looked at (``origins``).
_OWN_TOPS = frozenset({"_pytest", "pytest", "pluggy", "oracle_gate", "py", "builtins", "__channelexec__"})


def plugin_modules(pluginmanager: Any) -> Iterator[tuple[str, list[str]]]:
    """(module name, files) of each registered plugin: the plugin itself when it is a module, else the
    module its class comes from. ``files`` also holds where each ``pytest_*`` hook's code was compiled:
    a module of the checkout can rename itself (``__name__ = "_pytest.x"``) or its class
    (``__module__ = "pytest"``), but its hooks' code still names the file it came from."""
    for plugin in pluginmanager.get_plugins():
        if isinstance(plugin, types.ModuleType):
            name, file = plugin.__name__, getattr(plugin, "__file__", None)
        else:
            name = getattr(type(plugin), "__module__", None) or ""
            module = sys.modules.get(name)
            file = getattr(module, "__file__", None) if module is not None else None
        yield str(name), [str(f) for f in (file, *_hook_files(plugin)) if f]


def _hook_files(plugin: object) -> Iterator[str]:
    """Where each ``pytest_*`` callable of ``plugin`` was compiled (an attribute that raises when read
    is passed over: its module or class still names the plugin)."""
    try:
        names = [a for a in dir(plugin) if a.startswith("pytest_")]
    except Exception:  # noqa: BLE001 - a plugin's own __dir__ may raise
        return
    for attribute in names:
        try:
            code = getattr(getattr(plugin, attribute, None), "__code__", None)
        except Exception:  # noqa: BLE001, S112 - a property of a plugin object may raise
            continue
        filename = getattr(code, "co_filename", None)
        if isinstance(filename, str):
            yield filename


def tree_path(file: str | None, root: Path) -> str | None:
    """``file`` relative to the checkout (``root``), POSIX-style; None when it is outside."""
    if not file or "site-packages" in Path(file).parts or "dist-packages" in Path(file).parts:
        return None  # an installed distribution, even in a virtualenv inside the checkout
    try:
        return Path(file).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def origins(
    pluginmanager: Any, root: Path, distribution_of: Any, counted: Collection[str] = ()
) -> dict[str, str | None]:
    """``{origin: version}`` of every registered plugin: ``tree:<path>`` (no version) for a module of
    the checkout, else ``distribution_of(module)``'s (name, version). ``counted``: top-level packages
    whose distribution the caller has already (an entry point's): not looked up again, since finding
    a module's distribution reads every installed one."""
    found: dict[str, str | None] = {}
    for name, files in plugin_modules(pluginmanager):
        paths = [p for p in (tree_path(f, root) for f in files) if p is not None]
        if paths:  # a file of the checkout, whatever name the module or its class gives itself
            found.update(dict.fromkeys((TREE_PREFIX + p for p in paths), None))
        elif name.split(".", 1)[0] in _OWN_TOPS:
            continue
        elif name and name != "__main__" and name.split(".", 1)[0] not in counted:
            dist, version = distribution_of(name)
            found.setdefault(dist, version)
    return found
