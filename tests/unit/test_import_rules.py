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
    "gate.files": ("gate.errors",),
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
        "gate.github.defaults",
        "gate.adopt",
    ),
    # v3.5: check --approvals FILE, read and checked before the check runs.
    "gate.approvals_file": ("gate.errors", "gate.files", "gate.judge"),
    # v3.7: oracle-gate freeze add/remove/list (issue 18), a command of its own.
    "gate.freeze_cmd": (
        "gate",
        "gate.errors",
        "gate.files",
        "gate.git",
        "gate.check",
        "gate.judge",
        "gate.maps",
    ),
    # What both front doors say to GitHub: client, publisher, rendering, shared values. It knows
    # neither front door.
    "gate.github": ("gate", "gate.errors", "gate.escape", "gate.judge", "gate.report", "gate.github"),
    # The judgement of a pull request behind both front doors (rules and settings they share).
    "gate.review": (
        "gate",
        "gate.errors",
        "gate.escape",
        "gate.git",
        "gate.check",
        "gate.judge",
        "gate.maps.read",
        "gate.maps.provenance",
        "gate.report",
        "gate.github",
        "gate.review",
    ),
    # The Action and the bot are two front doors over the same rooms; neither imports the other.
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
        "gate.github",
        "gate.review",
        "gate.action",
    ),
    # The scoring run (SCORING.md): the read side, the core, the map's run facts; its decision
    # (gate.score.decide, gate.score.verify) is pure (tests/unit/test_score_decide.py).
    "gate.score": (
        "gate",
        "gate.errors",
        "gate.escape",
        "gate.files",
        "gate.git",
        "gate.check",
        "gate.judge",
        "gate.maps",
        "gate.report",
        "gate.score",
    ),
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
        "gate.github",
        "gate.review",
        "gate.surface",  # the status page's freeze surface share (gate.bot.surface), issue 18
        "gate.bot",
    ),
}

# Front doors that may not import each other (issue 17: the bot once imported 13 Action modules).
FRONT_DOORS = ("gate.action", "gate.bot")

ACTION = GATE / "action"
GITHUB = GATE / "github"
# Modules that must stay pure (payload or environment in, values out), with the I/O modules each
# may name anyway: the config holds paths (pathlib.Path values) it never opens.
PURE = {
    "action/events": frozenset(),
    "action/config": frozenset({"pathlib"}),
    "github/defaults": frozenset(),
    "review/commands": frozenset(),
    "review/bases": frozenset(),
    "review/freshness": frozenset(),
    "review/settings": frozenset(),
}
# The modules of the front doors and gate.github that may call gate.report: the rendering module,
# the summary's size cut, and the reading of a stored verdict.json.
REPORT_USERS = frozenset({"gate.github.content", "gate.action.workflow_io", "gate.action.publish_stored"})


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
                and not inside(module, ("gate.action",))
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


@pytest.mark.parametrize("door", FRONT_DOORS)
def test_neither_front_door_imports_the_other(door: str) -> None:
    """The Action and the bot share gate.github and the rooms below it, never each other's modules."""
    other = next(d for d in FRONT_DOORS if d != door)
    offenders = [
        f"{module_name(path)} -> {name}"
        for path in gate_modules()
        if inside(module_name(path), (door,))
        for name in imports_of(path)
        if inside(name, (other,))
    ]
    assert not offenders


def test_the_front_door_rule_can_fail() -> None:
    """The rule sees a bot module importing the Action (and the reverse) and lets gate.github pass."""
    assert not inside("gate.action.run", ALLOWED["gate.bot"])
    assert not inside("gate.action.content", ALLOWED["gate.bot"])
    assert not inside("gate.bot.judging", ALLOWED["gate.action"])
    assert inside("gate.github.publisher", ALLOWED["gate.bot"])
    assert inside("gate.github.publisher", ALLOWED["gate.action"])
    assert not inside("gate.action.run", ALLOWED["gate.github"])
    assert not inside("gate.bot.judging", ALLOWED["gate.github"])
    assert not inside("gate.action.run", ALLOWED["gate.review"])
    assert not inside("gate.bot.judging", ALLOWED["gate.review"])


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


@pytest.mark.parametrize("name", sorted(PURE))
def test_the_event_config_and_defaults_modules_import_no_io(name: str) -> None:
    path = GATE / f"{name}.py"
    io_modules = IO_MODULES - PURE[name]
    used = sorted({n for n in imports_of(path) if n.split(".")[0] in io_modules})
    assert not used, f"gate/{name}.py imports {used}: it turns values into values, it does no I/O"


@pytest.mark.parametrize("name", ["publisher", "client"])
def test_the_publisher_and_the_client_render_nothing(name: str) -> None:
    """They post what they are given: no gate.report, no templates, not the rendering module."""
    names = set(imports_of(GITHUB / f"{name}.py"))
    assert not names & {"gate.report", "jinja2", "gate.github.content"}, sorted(names)


#: The bot's own HTML page (issue 18): autoescaped templates/status*.html.j2, never posted to GitHub.
HTML_PAGES = frozenset({"gate.bot.status"})


def test_only_the_content_module_renders_for_github() -> None:
    doors = [*ACTION.glob("*.py"), *GITHUB.glob("*.py"), *(GATE / "bot").glob("*.py")]
    doors = [path for path in doors if module_name(path) not in HTML_PAGES]
    users = {module_name(path) for path in doors if {"gate.report", "jinja2"} & set(imports_of(path))}
    assert users <= REPORT_USERS
    assert "gate.github.content" in users
    assert not any("jinja2" in imports_of(path) for path in doors)


def test_the_status_page_renders_html_only_and_nothing_for_github() -> None:
    names = set(imports_of(GATE / "bot" / "status.py"))
    assert "jinja2" in names
    assert not names & {"gate.report", "gate.github.content", "gate.github.publisher"}, sorted(names)


def test_the_command_line_starts_without_the_github_client_or_templates() -> None:
    """``oracle-gate check`` reads the Action's shared values but loads neither PyGithub nor jinja2."""
    probe = (
        "import sys, gate.cli; "
        "print(sorted(m for m in ('github', 'jinja2', 'requests', 'gate.report', 'gate.github.publisher') "
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


def test_the_action_reads_its_event_file_once() -> None:
    """Issue 17: the event file was parsed up to three times per run. ``run`` reads it into the
    context; every other module takes the payload from there."""
    readers = sorted(
        module_name(path)
        for path in ACTION.glob("*.py")
        if "read_event(" in path.read_text() and path.name != "workflow_io.py"
    )
    assert readers == ["gate.action.run"]
    assert (ACTION / "run.py").read_text().count("read_event(") == 1
