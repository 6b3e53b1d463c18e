"""SCORING.md v2, 2.1: every registered plugin by origin (oracle_gate.maps.inside.plugin_origins): a module of
the checkout by its path, an object by its class's module, anything else by its distribution; pytest's
own and the gate's left out."""

from __future__ import annotations

import sys
import types
from pathlib import Path

from oracle_gate.maps.inside.plugin_origins import origins, tree_path


class FakeManager:
    def __init__(self, *plugins: object) -> None:
        self.plugins = plugins

    def get_plugins(self) -> set[object]:
        return set(self.plugins)


def module(name: str, file: Path) -> types.ModuleType:
    made = types.ModuleType(name)
    made.__file__ = str(file)
    return made


def test_each_plugin_is_named_by_its_origin(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    conftest = module("conftest", root / "tests" / "conftest.py")
    hooks = module("evil_hooks", root / "tests" / "evil_hooks.py")
    helper_module = module("helper_mod", root / "src" / "helper_mod.py")
    sys.modules["helper_mod"] = helper_module
    holder = type("Holder", (), {"__module__": "helper_mod"})()
    outside = module("somedist.plugin", tmp_path / "site-packages" / "somedist" / "plugin.py")
    own = module("_pytest.terminal", tmp_path / "x.py")
    try:
        found = origins(
            FakeManager(conftest, hooks, holder, outside, own),
            root,
            lambda name: ("somedist", "1.0") if name.startswith("somedist") else (f"module:{name}", None),
        )
    finally:
        del sys.modules["helper_mod"]
    assert found == {
        "tree:tests/conftest.py": None,
        "tree:tests/evil_hooks.py": None,
        "tree:src/helper_mod.py": None,
        "somedist": "1.0",
    }


def test_an_installed_package_inside_the_checkout_is_not_the_tree(tmp_path: Path) -> None:
    inside = tmp_path / ".venv" / "lib" / "site-packages" / "p.py"
    assert tree_path(str(inside), tmp_path) is None
    assert tree_path(str(tmp_path / "conftest.py"), tmp_path) == "conftest.py"
    assert tree_path(None, tmp_path) is None


def test_a_module_of_the_checkout_cannot_hide_behind_pytests_or_the_gates_name(tmp_path: Path) -> None:
    """A tree module that renames itself, or a class that claims pytest's module, is still the tree:
    its hooks' code names the file it was compiled from."""
    root = tmp_path / "repo"
    source = root / "tests" / "evil.py"
    source.parent.mkdir(parents=True)
    code = "def pytest_runtest_makereport(item, call):\n    return None\n"
    source.write_text(code)
    renamed = types.ModuleType("_pytest.runner_extra")  # no __file__ either
    exec(compile(code, str(source), "exec"), renamed.__dict__)  # noqa: S102
    namespace: dict[str, object] = {}
    class_code = "class Hooks:\n    def pytest_runtest_makereport(self, item, call):\n        return None\n"
    exec(compile(class_code, str(source), "exec"), namespace)  # noqa: S102
    hooks_class = namespace["Hooks"]
    assert isinstance(hooks_class, type)
    hooks_class.__module__ = "oracle_gate.maps.inside.pytest_plugin"
    found = origins(FakeManager(renamed, hooks_class()), root, lambda name: (f"module:{name}", None))
    assert found == {"tree:tests/evil.py": None}
