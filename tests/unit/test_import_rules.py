"""The package's shape is a rule: each room imports only what the flow lets it.

The flow is event -> config -> git -> change set -> oracle -> observers -> verdict -> report ->
publish. ``gate/judge`` is the pure core (values in, a verdict out), ``gate/maps`` reads and builds
parent maps, ``gate/action`` is the GitHub Action, and the top-level modules are the shared edges
(git, the read side, rendering, files, errors) and the command line. These tests read every module's
imports with ``ast`` (lazy imports inside functions included), so a forbidden import fails here
before anyone notices it at run time.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

GATE = Path(__file__).resolve().parents[2] / "gate"

# Modules of the standard library and third parties that do I/O; the judging core may use none.
IO_MODULES = frozenset(
    {
        "os",
        "io",
        "subprocess",
        "sqlite3",
        "socket",
        "shutil",
        "tempfile",
        "pathlib",
        "coverage",
        "github",
        "requests",
        "urllib3",
        "jinja2",
    }
)

# What each room may import from the package (a prefix matches the module and its submodules).
ALLOWED: dict[str, tuple[str, ...]] = {
    "gate.judge": ("gate.errors", "gate.exit_status", "gate.judge"),
    "gate.maps": ("gate", "gate.errors", "gate.files", "gate.git", "gate.check", "gate.judge", "gate.maps"),
    "gate.report": ("gate", "gate.errors", "gate.escape", "gate.guidance", "gate.judge"),
    # What to do next after a verdict (issue 18): values from the verdict, for the templates.
    "gate.guidance": ("gate.judge",),
    # The freeze surface report (issue 18): the read side around gate.judge.surface, and its CLI.
    "gate.surface": (
        "gate",
        "gate.errors",
        "gate.git",
        "gate.check",
        "gate.judge",
        "gate.maps.read",
        "gate.report",
    ),
    "gate.surface_cli": ("gate", "gate.errors", "gate.files", "gate.surface", "gate.judge"),
    "gate.check": ("gate", "gate.errors", "gate.git", "gate.judge", "gate.maps.read", "gate.maps.mapbytes"),
    "gate.git": ("gate.errors", "gate.judge.changes"),
    "gate.files": (),
    # One escaping function per sink (TRUST.md invariant 7): pure string functions.
    "gate.escape": (),
    # Colour for a terminal: pure string functions and an isatty() question.
    "gate.colour": (),
    "gate.errors": (),
    "gate.exit_status": (),
    "gate.demo": ("gate", "gate.check", "gate.colour", "gate.judge", "gate.report"),
    # The release workflow's file rewrites (python -m gate.release): text in, text out.
    "gate.release": ("gate.errors",),
    # init and doctor: they render and compare files, and read GitHub's API with requests.
    "gate.adopt": (
        "gate",
        "gate.errors",
        "gate.files",
        "gate.judge.policy",
        "gate.judge.freeze",
        "gate.judge.problems",
        "gate.adopt",
    ),
    "gate.action": (
        "gate",
        "gate.errors",
        "gate.escape",
        "gate.exit_status",
        "gate.files",
        "gate.git",
        "gate.check",
        "gate.judge",
        "gate.maps",
        "gate.report",
        "gate.action",
    ),
    # The bot reuses the read side, the core and the Action's rendering, posting and client; it does
    # not reach into the Action's run (events, config, judging, merge_commit ...).
    "gate.bot": (
        "gate",
        "gate.errors",
        "gate.escape",
        "gate.files",
        "gate.git",
        "gate.check",
        "gate.judge",
        "gate.maps.read",
        "gate.maps.provenance",
        "gate.report",
        "gate.action.content",
        "gate.action.publisher",
        "gate.action.client",
        "gate.action.defaults",
        "gate.surface",  # the status page's freeze surface share (gate.bot.surface), issue 18
        "gate.bot",
    ),
}

ACTION = GATE / "action"
# The Action's modules that must stay pure (payload or environment in, values out), with the I/O
# modules each may name anyway: the config holds paths (pathlib.Path values) it never opens.
ACTION_PURE = {"events": frozenset(), "config": frozenset({"pathlib"}), "defaults": frozenset()}
# The Action's modules that may call gate.report: the rendering module, the summary's size cut,
# and the reading of a stored verdict.json.
ACTION_REPORT_USERS = frozenset(
    {"gate.action.content", "gate.action.workflow_io", "gate.action.publish_stored"}
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(GATE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, module: str | None = None) -> Iterator[str]:
    """Every module a file imports, absolute, lazy imports included."""
    tree = ast.parse(path.read_text(), str(path))
    package = (module or module_name(path)).rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base])
            yield base.strip(".")
            if node.module in ("gate", None):  # ``from gate import report`` names a module
                yield from (f"{base.strip('.')}.{alias.name}" for alias in node.names)


def gate_modules() -> list[Path]:
    return sorted(GATE.rglob("*.py"))


def room_of(module: str) -> str | None:
    for room in sorted(ALLOWED, key=len, reverse=True):
        if module == room or module.startswith(room + "."):
            return room
    return None


def inside(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or (p != "gate" and module.startswith(p + ".")) for p in prefixes)


def is_package_module(name: str) -> bool:
    """True for a module or package of ``gate`` (not for a name imported from one)."""
    where = GATE.parent.joinpath(*name.split("."))
    return name.split(".", maxsplit=1)[0] == "gate" and (where.is_dir() or where.with_suffix(".py").is_file())


@pytest.mark.parametrize("path", gate_modules(), ids=module_name)
def test_each_module_imports_only_what_its_room_allows(path: Path) -> None:
    module = module_name(path)
    room = room_of(module)
    if room is None:
        assert module in ("gate", "gate.__main__", "gate.cli"), (
            f"{module} belongs to no room of the import rules"
        )
        return
    forbidden = [
        name
        for name in imports_of(path)
        if name.split(".")[0] == "gate" and is_package_module(name) and not inside(name, ALLOWED[room])
    ]
    assert not forbidden, f"{module} imports {forbidden}; the room {room} may import only {ALLOWED[room]}"


@pytest.mark.parametrize("path", sorted((GATE / "judge").glob("*.py")), ids=module_name)
def test_the_judging_core_imports_no_io(path: Path) -> None:
    used = sorted({name for name in imports_of(path) if name.split(".")[0] in IO_MODULES})
    assert not used, f"{module_name(path)} imports {used}: the judging core takes values, it does no I/O"


def test_nothing_but_the_entry_points_imports_the_cli_or_the_action() -> None:
    offenders = []
    for path in gate_modules():
        module = module_name(path)
        for name in imports_of(path):
            if name == "gate.cli" and module != "gate.__main__":
                offenders.append(f"{module} -> {name}")
            if (
                inside(name, ("gate.action",))
                and not inside(module, ("gate.action", "gate.bot"))
                and module != "gate.cli"
            ):
                offenders.append(f"{module} -> {name}")
    assert not offenders


def test_nothing_but_the_command_line_imports_the_bot() -> None:
    offenders = [
        f"{module_name(path)} -> {name}"
        for path in gate_modules()
        for name in imports_of(path)
        if inside(name, ("gate.bot",)) and not inside(module_name(path), ("gate.bot", "gate.cli"))
    ]
    assert not offenders


def test_the_bot_sees_no_forbidden_action_module(tmp_path: Path) -> None:
    """The bot's rule can fail: the Action's own run and events are outside what it may import."""
    assert not inside("gate.action.run", ALLOWED["gate.bot"])
    assert not inside("gate.action.events", ALLOWED["gate.bot"])
    assert inside("gate.action.publisher", ALLOWED["gate.bot"])


def test_importing_the_verdict_loads_no_io_module() -> None:
    probe = (
        "import sys, gate.judge.verdict; "
        "print(sorted(m for m in ('subprocess', 'sqlite3', 'coverage', 'jinja2', 'github', 'socket') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_rules_see_a_forbidden_import(tmp_path: Path) -> None:
    """The checker itself can fail: a judge module importing git and subprocess is caught."""
    probe = tmp_path / "probe.py"
    probe.write_text("from gate.git import Git\nfrom . import policy\n\ndef f():\n    import subprocess\n")
    names = set(imports_of(probe, "gate.judge.probe"))
    assert {"gate.git", "gate.judge.policy", "subprocess"} <= names
    assert not inside("gate.git", ALLOWED["gate.judge"])
    assert inside("gate.judge.policy", ALLOWED["gate.judge"])


@pytest.mark.parametrize("name", sorted(ACTION_PURE))
def test_the_actions_event_and_config_modules_import_no_io(name: str) -> None:
    path = ACTION / f"{name}.py"
    io_modules = IO_MODULES - ACTION_PURE[name]
    used = sorted({n for n in imports_of(path) if n.split(".")[0] in io_modules})
    assert not used, f"gate.action.{name} imports {used}: it turns values into values, it does no I/O"


@pytest.mark.parametrize("name", ["publisher", "client"])
def test_the_publisher_and_the_client_render_nothing(name: str) -> None:
    """They post what they are given: no gate.report, no templates, not the rendering module."""
    names = set(imports_of(ACTION / f"{name}.py"))
    assert not names & {"gate.report", "jinja2", "gate.action.content"}, sorted(names)


def test_only_the_content_module_renders_for_github() -> None:
    users = {
        module_name(path) for path in ACTION.glob("*.py") if {"gate.report", "jinja2"} & set(imports_of(path))
    }
    assert users <= ACTION_REPORT_USERS
    assert "gate.action.content" in users
    assert not any("jinja2" in imports_of(path) for path in ACTION.glob("*.py"))


def test_the_command_line_starts_without_the_github_client_or_templates() -> None:
    """``oracle-gate check`` reads the Action's shared values but loads neither PyGithub nor jinja2."""
    probe = (
        "import sys, gate.cli; "
        "print(sorted(m for m in ('github', 'jinja2', 'requests', 'gate.report', 'gate.action.publisher') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_escaping_module_is_pure() -> None:
    """gate.escape is string functions only: every sink's rendering may call it."""
    assert set(imports_of(GATE / "escape.py")) <= {"__future__", "re"}


def test_building_a_map_loads_coverage_py_only_to_merge() -> None:
    """``oracle-gate map`` with the collector adopts one data file read with sqlite3: importing
    coverage.py costs about 0.1 s of every map, so the map modules import it only where they merge."""
    probe = (
        "import sys, gate.cli, gate.maps.build, gate.maps.combine, gate.maps.command, gate.maps.mapfile; "
        "print('coverage' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
