"""The package's shape is a rule: each room imports only what the flow lets it.

The flow is event -> config -> git -> change set -> oracle -> observers -> verdict -> render ->
publish. ``gate/judge`` is the pure core (values in, a verdict out), ``gate/maps`` reads and builds
parent maps, ``gate/action`` is the GitHub Action, and the top-level modules are the shared edges
(git, the read side, rendering, files, errors) and the command line. These tests read every module's
imports with ``ast`` (lazy imports inside functions included), so a forbidden import fails here
before anyone notices it at run time.
"""

from __future__ import annotations

import ast
import re
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
    "oracle_gate.judge": ("oracle_gate.errors", "oracle_gate.exit_status", "oracle_gate.judge"),
    # The ``map`` command (gate/maps/*.py): it runs the tests, reads and writes maps.
    "oracle_gate.maps": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.judge",
        "oracle_gate.maps",
        "oracle_gate.oracle_files",
    ),
    # What runs in the measured test process (gate/maps/inside/): itself and the freeze's parser, a
    # pure module imported only when a freeze is given. Its other imports: INSIDE_MAY_IMPORT.
    "oracle_gate.maps.inside": ("oracle_gate.maps.inside", "oracle_gate.judge.freeze"),
    # How check and the other readers read a map (gate/maps/reader/): never the map command's modules.
    "oracle_gate.maps.reader": (
        "oracle_gate.errors",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.judge",
        "oracle_gate.maps.reader",
    ),
    # Renderings of a verdict (issue 27): text in, text out; GitHub's limits and API are not its business.
    "oracle_gate.render": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.escape",
        "oracle_gate.guidance",
        "oracle_gate.judge",
        "oracle_gate.render",
    ),
    # What to do next after a verdict (issue 18): values from the verdict, for the templates.
    "oracle_gate.guidance": ("oracle_gate.judge",),
    # The freeze surface report (issue 18): the read side around oracle_gate.judge.surface, and its CLI.
    "oracle_gate.surface": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.oracle_files",
        "oracle_gate.judge",
        "oracle_gate.maps.reader",  # v3.4: and the manifest's unstable observations, as check reads them
        "oracle_gate.render",
    ),
    "oracle_gate.check": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.git",
        "oracle_gate.judge",
        "oracle_gate.maps.reader",
        "oracle_gate.oracle_files",
    ),
    # The parent's oracle files read with git (read_oracle): what map needs without the whole judge.
    "oracle_gate.oracle_files": ("oracle_gate.errors", "oracle_gate.git", "oracle_gate.judge"),
    "oracle_gate.git": ("oracle_gate.errors", "oracle_gate.judge.changes"),
    "oracle_gate.files": ("oracle_gate.errors",),
    # One escaping function per sink (TRUST.md invariant 7): pure string functions.
    "oracle_gate.escape": (),
    # Colour for a terminal: pure string functions and an isatty() question.
    "oracle_gate.colour": (),
    "oracle_gate.errors": (),
    "oracle_gate.exit_status": (),
    "oracle_gate.demo": (
        "oracle_gate",
        "oracle_gate.check",
        "oracle_gate.commands.output",
        "oracle_gate.judge",
        "oracle_gate.render",
    ),
    # The release workflow's file rewrites (python -m oracle_gate.release): text in, text out.
    "oracle_gate.release": ("oracle_gate.errors",),
    # init and doctor: they render and compare files, and read GitHub's API with requests.
    "oracle_gate.adopt": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.files",
        "oracle_gate.judge.policy",
        "oracle_gate.judge.freeze",
        "oracle_gate.judge.problems",
        "oracle_gate.github.defaults",
        "oracle_gate.adopt",
    ),
    # v3.5: check --approvals FILE, read and checked before the check runs.
    "oracle_gate.approvals_file": ("oracle_gate.errors", "oracle_gate.files", "oracle_gate.judge"),
    # The command line (issue 27): one module per command, each declared the same way; the table
    # imports a command's module only when it runs. The commands are the one room that may import
    # every other (the front doors included); only their declarations, options and output are shared.
    "oracle_gate.commands": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.exit_status",
        "oracle_gate.escape",
        "oracle_gate.colour",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.judge",
        "oracle_gate.maps",
        "oracle_gate.render",
        "oracle_gate.surface",
        "oracle_gate.approvals_file",
        "oracle_gate.demo",
        "oracle_gate.adopt",
        "oracle_gate.score",
        "oracle_gate.github",
        "oracle_gate.action",  # publish: stage 2 of the fork-safe workflow
        "oracle_gate.bot",  # serve, app-manifest
        "oracle_gate.commands",
    ),
    # v3.7: oracle-gate freeze add/remove/list (issue 18), a command with file logic of its own.
    "oracle_gate.commands.freeze": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.exit_status",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.judge",
        "oracle_gate.maps",
        "oracle_gate.commands.declare",
        "oracle_gate.commands.options",
        "oracle_gate.commands.output",
    ),
    # What both front doors say to GitHub: client, pulls/checks/comments, rendering, shared values. It knows
    # neither front door.
    "oracle_gate.github": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.escape",
        "oracle_gate.judge",
        "oracle_gate.render",
        "oracle_gate.github",
    ),
    # The judgement of a pull request behind both front doors (rules and settings they share).
    "oracle_gate.review": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.escape",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.oracle_files",
        "oracle_gate.judge",
        "oracle_gate.maps.reader",
        "oracle_gate.render",
        "oracle_gate.github",
        "oracle_gate.review",
    ),
    # The one judgement behind both doors (TRUST.md 11): the sequence over ports, and the only room
    # the doors reach the read side (oracle_gate.check) through.
    "oracle_gate.judgement": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.judge",
        "oracle_gate.github",
        "oracle_gate.review",
        "oracle_gate.judgement",
    ),
    # The Action and the bot are two front doors over the same rooms; neither imports the other.
    "oracle_gate.action": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.escape",
        "oracle_gate.exit_status",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.judge",
        "oracle_gate.maps",
        "oracle_gate.render",
        "oracle_gate.github",
        "oracle_gate.review",
        "oracle_gate.judgement",
        "oracle_gate.action",
    ),
    # The scoring run (SCORING.md): the read side, the core, the map's run facts; its decision
    # (oracle_gate.score.decide, oracle_gate.score.verify) is pure (tests/unit/test_score_decide.py).
    "oracle_gate.score": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.escape",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.check",
        "oracle_gate.judge",
        "oracle_gate.maps",
        "oracle_gate.oracle_files",
        "oracle_gate.render",
        "oracle_gate.score",
        "oracle_gate.review.settings",  # the sandbox's limits take their defaults from the one table
    ),
    "oracle_gate.bot": (
        "oracle_gate",
        "oracle_gate.errors",
        "oracle_gate.escape",
        "oracle_gate.files",
        "oracle_gate.git",
        "oracle_gate.judge",
        "oracle_gate.maps.reader",
        "oracle_gate.render",
        "oracle_gate.github",
        "oracle_gate.review",
        "oracle_gate.judgement",
        # the status page's freeze surface share (oracle_gate.bot.jobs.surface_share), issue 18
        "oracle_gate.surface",
        "oracle_gate.score",  # the sandboxed scoring run, checked as trusted (oracle_gate.bot.jobs.scoring)
        "oracle_gate.bot",
    ),
}

# The console entry point (oracle_gate.cli:main): it dispatches to oracle_gate.commands.
COMMAND_LINE = "oracle_gate.cli"

# Front doors that may not import each other (issue 17: the bot once imported 13 Action modules).
FRONT_DOORS = ("oracle_gate.action", "oracle_gate.bot")

ACTION = GATE / "action"
GITHUB = GATE / "github"
# Modules that must stay pure (payload or environment in, values out), with the I/O modules each
# may name anyway: the config holds paths (pathlib.Path values) it never opens.
PURE = {
    "action/events": frozenset(),
    "action/config": frozenset({"pathlib"}),
    "github/defaults": frozenset(),
    "github/limits": frozenset(),
    "review/commands": frozenset(),
    "review/events": frozenset(),
    "review/payload_reader": frozenset(),
    "review/bases": frozenset(),
    "review/freshness": frozenset(),
    "review/settings": frozenset(),
}
RENDER = ("oracle_gate.render",)
# The modules of the front doors and oracle_gate.github that may call oracle_gate.render: the
# module that renders for GitHub, and the reading of a stored verdict.json.
RENDER_USERS = frozenset({"oracle_gate.github.content", "oracle_gate.action.publish_stored"})


def module_name(path: Path) -> str:
    """The import name of a file under gate/ (the package is ``oracle_gate``; its folder is gate/)."""
    parts = ["oracle_gate", *path.relative_to(GATE).with_suffix("").parts]
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
            if node.module in ("oracle_gate", None):  # ``from oracle_gate import escape`` names a module
                yield from (f"{base.strip('.')}.{alias.name}" for alias in node.names)


def gate_modules() -> list[Path]:
    return sorted(GATE.rglob("*.py"))


def room_of(module: str) -> str | None:
    for room in sorted(ALLOWED, key=len, reverse=True):
        if module == room or module.startswith(room + "."):
            return room
    return None


def inside(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or (p != "oracle_gate" and module.startswith(p + ".")) for p in prefixes)


def is_package_module(name: str) -> bool:
    """True for a module or package of ``oracle_gate`` (not for a name imported from one)."""
    top, _, rest = name.partition(".")
    where = GATE.joinpath(*rest.split(".")) if rest else GATE
    return top == "oracle_gate" and (where.is_dir() or where.with_suffix(".py").is_file())


@pytest.mark.parametrize("path", gate_modules(), ids=module_name)
def test_each_module_imports_only_what_its_room_allows(path: Path) -> None:
    module = module_name(path)
    room = room_of(module)
    if room is None:
        assert module in ("oracle_gate", "oracle_gate.__main__", COMMAND_LINE), (
            f"{module} belongs to no room of the import rules"
        )
        return
    forbidden = [
        name
        for name in imports_of(path)
        if name.split(".")[0] == "oracle_gate" and is_package_module(name) and not inside(name, ALLOWED[room])
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
            if name == COMMAND_LINE and module != "oracle_gate.__main__":
                offenders.append(f"{module} -> {name}")
            if inside(name, ("oracle_gate.action",)) and not inside(
                module, ("oracle_gate.action", "oracle_gate.commands")
            ):
                offenders.append(f"{module} -> {name}")
    assert not offenders


def test_nothing_but_the_command_line_imports_the_bot() -> None:
    offenders = [
        f"{module_name(path)} -> {name}"
        for path in gate_modules()
        for name in imports_of(path)
        if inside(name, ("oracle_gate.bot",))
        and not inside(module_name(path), ("oracle_gate.bot", "oracle_gate.commands"))
    ]
    assert not offenders


@pytest.mark.parametrize("door", FRONT_DOORS)
def test_neither_front_door_imports_the_other(door: str) -> None:
    """The Action and the bot share oracle_gate.github and the rooms below it, never each other's modules."""
    other = next(d for d in FRONT_DOORS if d != door)
    offenders = [
        f"{module_name(path)} -> {name}"
        for path in gate_modules()
        if inside(module_name(path), (door,))
        for name in imports_of(path)
        if inside(name, (other,))
    ]
    assert not offenders


@pytest.mark.parametrize("door", FRONT_DOORS)
def test_no_front_door_reads_the_repository_for_a_verdict_itself(door: str) -> None:
    """Issue 27 (TRUST.md 11): the sequence pull request -> test merge -> approvals -> map -> judge
    exists once, in oracle_gate.judgement; a door that imported oracle_gate.check could walk its own.
    The bot's child process runs oracle_gate.judgement.core.judge_facts, its scoring job the same."""
    offenders = [
        f"{module_name(path)} -> {name}"
        for path in gate_modules()
        if inside(module_name(path), (door,))
        for name in imports_of(path)
        if inside(name, ("oracle_gate.check",))
    ]
    assert not offenders
    assert not inside("oracle_gate.check", ALLOWED[door])
    assert inside("oracle_gate.check", ALLOWED["oracle_gate.judgement"])


def test_the_front_door_rule_can_fail() -> None:
    """The rule sees a bot module importing the Action (and the reverse) and lets oracle_gate.github pass."""
    assert not inside("oracle_gate.action.run", ALLOWED["oracle_gate.bot"])
    assert not inside("oracle_gate.action.content", ALLOWED["oracle_gate.bot"])
    assert not inside("oracle_gate.bot.jobs.judging", ALLOWED["oracle_gate.action"])
    assert inside("oracle_gate.github.checks", ALLOWED["oracle_gate.bot"])
    assert inside("oracle_gate.github.comments", ALLOWED["oracle_gate.action"])
    assert not inside("oracle_gate.action.run", ALLOWED["oracle_gate.github"])
    assert not inside("oracle_gate.bot.jobs.judging", ALLOWED["oracle_gate.github"])
    assert not inside("oracle_gate.action.run", ALLOWED["oracle_gate.review"])
    assert not inside("oracle_gate.bot.jobs.judging", ALLOWED["oracle_gate.review"])


def test_importing_the_verdict_loads_no_io_module() -> None:
    probe = (
        "import sys, oracle_gate.judge.verdict; "
        "print(sorted(m for m in ('subprocess', 'sqlite3', 'coverage', 'jinja2', 'github', 'socket') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_rules_see_a_forbidden_import(tmp_path: Path) -> None:
    """The checker itself can fail: a judge module importing git and subprocess is caught."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from oracle_gate.git import Git\nfrom . import policy\n\ndef f():\n    import subprocess\n"
    )
    names = set(imports_of(probe, "oracle_gate.judge.probe"))
    assert {"oracle_gate.git", "oracle_gate.judge.policy", "subprocess"} <= names
    assert not inside("oracle_gate.git", ALLOWED["oracle_gate.judge"])
    assert inside("oracle_gate.judge.policy", ALLOWED["oracle_gate.judge"])


@pytest.mark.parametrize("name", sorted(PURE))
def test_the_event_config_and_defaults_modules_import_no_io(name: str) -> None:
    path = GATE / f"{name}.py"
    io_modules = IO_MODULES - PURE[name]
    used = sorted({n for n in imports_of(path) if n.split(".")[0] in io_modules})
    assert not used, f"gate/{name}.py imports {used}: it turns values into values, it does no I/O"


@pytest.mark.parametrize("name", ["pulls", "checks", "comments", "writes", "values", "repository", "client"])
def test_the_posting_modules_and_the_client_render_nothing(name: str) -> None:
    """They post what they are given: no oracle_gate.render, no templates, not the rendering module."""
    names = set(imports_of(GITHUB / f"{name}.py"))
    assert not names & {"jinja2", "oracle_gate.github.content"}, sorted(names)
    assert not any(inside(n, RENDER) for n in names), sorted(names)


#: The bot's own HTML page (issue 18): autoescaped templates/status*.html.j2, never posted to GitHub.
HTML_PAGES = frozenset({"oracle_gate.bot.web.status"})


def renders(name: str) -> bool:
    """True for an import of the rendering room or of jinja2."""
    return name == "jinja2" or inside(name, RENDER)


def test_only_the_content_module_renders_for_github() -> None:
    doors = [*ACTION.glob("*.py"), *GITHUB.glob("*.py"), *(GATE / "bot").rglob("*.py")]
    doors = [path for path in doors if module_name(path) not in HTML_PAGES]
    users = {module_name(path) for path in doors if any(renders(n) for n in imports_of(path))}
    assert users <= RENDER_USERS, sorted(users - RENDER_USERS)
    assert "oracle_gate.github.content" in users
    assert not any("jinja2" in imports_of(path) for path in doors)


def test_the_status_page_renders_html_only_and_nothing_for_github() -> None:
    names = set(imports_of(GATE / "bot" / "web" / "status.py"))
    assert "jinja2" in names
    assert not names & {
        "oracle_gate.github.content",
        "oracle_gate.github.checks",
        "oracle_gate.github.comments",
    }, sorted(names)
    assert not any(inside(n, RENDER) for n in names), sorted(names)


def test_the_command_line_starts_without_the_github_client_or_templates() -> None:
    """``oracle-gate check`` reads the Action's shared values but loads neither PyGithub nor jinja2."""
    probe = (
        "import sys, oracle_gate.cli; "
        "print(sorted(m for m in ('github', 'jinja2', 'requests', 'oracle_gate.render', "
        "'oracle_gate.github.checks', 'oracle_gate.github.comments') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_escaping_module_is_pure() -> None:
    """oracle_gate.escape is string functions only: every sink's rendering may call it."""
    assert set(imports_of(GATE / "escape.py")) <= {"__future__", "re"}


def test_building_a_map_loads_coverage_py_only_to_merge() -> None:
    """``oracle-gate map`` with the collector adopts one data file read with sqlite3: importing
    coverage.py costs about 0.1 s of every map, so the map modules import it only where they merge."""
    probe = (
        "import sys, oracle_gate.cli, oracle_gate.maps.build, oracle_gate.maps.combine, "
        "oracle_gate.maps.command, oracle_gate.maps.mapfile; "
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
    assert readers == ["oracle_gate.action.run"]
    assert (ACTION / "run.py").read_text().count("read_event(") == 1


# -- the bot: no cycle among its modules, no reaching into another module's private names --------

BOT = GATE / "bot"


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in gate_modules()}


def imported_modules(path: Path, module: str, known: set[str]) -> set[str]:
    """The package modules ``path`` imports, lazy and ``TYPE_CHECKING`` imports included:
    ``from oracle_gate.bot.jobs import scoring`` counts as ``oracle_gate.bot.jobs.scoring``. A
    package importing its own submodules, or a module its own package, is no cycle of design."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {
        name
        for name in found
        if name in known and not name.startswith(module + ".") and not module.startswith(name + ".")
    }


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: list[str] = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def bot_import_graph() -> dict[str, set[str]]:
    modules = package_modules()
    bot = {name: path for name, path in modules.items() if inside(name, ("oracle_gate.bot",))}
    return {name: imported_modules(path, name, set(bot)) for name, path in bot.items()}


def test_no_import_cycle_among_the_bots_modules() -> None:
    """Issue 27: config -> scoring -> judging -> config was one. A job's shared values
    (:mod:`oracle_gate.bot.jobs.context`) sit below every job, so no job imports another's module
    back, lazily or for typing only."""
    assert import_cycles(bot_import_graph()) == []


def private_names_used(path: Path, module: str, known: set[str]) -> list[str]:
    """``from <other module> import _name`` and ``<other module>._name``: another package module's
    private name, used by ``path`` (dunder names such as ``__version__`` are public)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def private(name: str) -> bool:
        return name.startswith("_") and not name.endswith("__")

    used: list[str] = []
    bound: dict[str, str] = {}  # local name -> the package module it names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known and alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                elif base in known and base != module and private(alias.name):
                    used.append(f"{base}.{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = bound.get(node.value.id)
            if target is not None and target != module and private(node.attr):
                used.append(f"{target}.{node.attr}")
    return sorted(set(used))


@pytest.mark.parametrize("path", sorted(BOT.rglob("*.py")), ids=module_name)
def test_no_bot_module_uses_another_modules_private_names(path: Path) -> None:
    """A name used across modules is public (no leading underscore): the score job once reached into
    the judge job's ``_publisher`` and ``_check_name``."""
    used = private_names_used(path, module_name(path), set(package_modules()))
    assert not used, f"{module_name(path)} uses {used}: make them public where they belong"


def test_the_bot_rules_see_a_cycle_and_a_private_name(tmp_path: Path) -> None:
    """Both checkers can fail: a lazy import closing a loop, ``module._private``, ``from m import _p``."""
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from oracle_gate.bot.jobs import judging\n"
        "from oracle_gate.bot.queue.store import _row\n\n"
        "def f():\n    from oracle_gate.bot.jobs import scoring as s\n"
        "    return judging._publisher, s._moved\n"
    )
    known = {"oracle_gate.bot.jobs.judging", "oracle_gate.bot.jobs.scoring", "oracle_gate.bot.queue.store"}
    assert private_names_used(probe, "oracle_gate.bot.jobs.probe", known) == [
        "oracle_gate.bot.jobs.judging._publisher",
        "oracle_gate.bot.jobs.scoring._moved",
        "oracle_gate.bot.queue.store._row",
    ]
    lazy = imported_modules(probe, "oracle_gate.bot.jobs.probe", known)
    assert lazy == known


# -- the bot's one clock ----------------------------------------------------------------------------

#: Reading the time or waiting for it: only the bot's clock module does (oracle_gate.bot.app.clock).
TIME_CALLS = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.perf_counter",
        "time.sleep",
        "datetime.now",
        "datetime.utcnow",
        "datetime.today",
        "date.today",
    }
)
CLOCK_MODULE = "oracle_gate.bot.app.clock"
#: Modules still reading the time themselves, and why; each must still do so (else drop it here).
CLOCK_PENDING: dict[str, str] = {}  # none left: the judgement times itself on the door's clock


def time_calls(path: Path) -> list[str]:
    """Where ``path`` reads the time: ``time.time()``, ``dt.datetime.now()``, ``from time import
    sleep; sleep(1)``, ``clock=time.time``… (the name's last two parts, after import aliases)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({(a.asname or a.name): a.name for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module in ("time", "datetime"):
            aliases.update({(a.asname or a.name): f"{node.module}.{a.name}" for a in node.names})

    def dotted(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = dotted(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    found = []
    for node in ast.walk(tree):  # a call, or the function passed on (``clock=time.time``)
        if isinstance(node, ast.Name | ast.Attribute) and (name := dotted(node)) is not None:
            tail = ".".join(name.split(".")[-2:])
            if tail in TIME_CALLS:
                found.append(f"{tail} line {node.lineno}")
    return found


@pytest.mark.parametrize("path", sorted(BOT.rglob("*.py")), ids=module_name)
def test_no_bot_module_reads_the_time_but_the_clock(path: Path) -> None:
    """One clock, made in ``serve`` and passed down, so a test's own clock is the only time there is."""
    module = module_name(path)
    used = time_calls(path)
    if module == CLOCK_MODULE:
        assert used, "the clock module reads the machine's clocks"
        return
    if module in CLOCK_PENDING:
        assert used, f"{module} no longer reads the time: drop it from CLOCK_PENDING"
        assert all(u.startswith(CLOCK_PENDING[module]) for u in used), (module, used)
        return
    assert not used, f"{module} reads the time itself: {used}; take the server's clock ({CLOCK_MODULE})"


def test_the_clock_rule_sees_every_way_of_reading_the_time(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import time\nimport datetime as dt\nfrom time import monotonic as mono\n"
        "from datetime import datetime\n\n"
        "def f(event):\n    event.wait(1)\n    time.strftime('%Y')\n"
        "    return time.time(), dt.datetime.now(dt.UTC), mono(), datetime.utcnow(), dt.date.today()\n"
        "def g(clock=time.monotonic):\n    return clock\n"
    )
    assert sorted(u.split(" ")[0] for u in time_calls(probe)) == [
        "date.today",
        "datetime.now",
        "datetime.utcnow",
        "time.monotonic",
        "time.monotonic",
        "time.time",
    ]


# -- the bot's SQL: in its store only ---------------------------------------------------------------

#: The modules that hold the bot's SQL: the jobs' database (its store, its schema's migrations) and
#: the front's own database of received deliveries.
SQL_MODULES = frozenset(
    {"oracle_gate.bot.queue.store", "oracle_gate.bot.queue.schema", "oracle_gate.bot.web.received"}
)
SQL_TEXT = re.compile(
    r"\s*(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|INDEX)\s"
    r"|ALTER\s+TABLE\s|DROP\s+(TABLE|INDEX)\s|PRAGMA\s|BEGIN\b|COMMIT\b|ROLLBACK\b)"
)


def sql_uses(path: Path) -> list[str]:
    """Where ``path`` speaks SQL: imports ``sqlite3``, calls ``.execute``/``.executemany``/
    ``.executescript``, or writes a string (an f-string's start included) that is an SQL statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if "sqlite3" in _imported_names(node):
            found.append(f"import sqlite3 line {line}")
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Attribute) and called.attr in ("execute", "executemany", "executescript"):
            found.append(f".{called.attr}() line {line}")
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value)
        if text is not None and SQL_TEXT.match(text):
            found.append(f"SQL {text.strip()[:30]!r} line {line}")
    return found


def _imported_names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name.split(".")[0] for a in node.names}
    if isinstance(node, ast.ImportFrom) and not node.level:
        return {(node.module or "").split(".")[0]}
    return set()


@pytest.mark.parametrize("path", sorted(BOT.rglob("*.py")), ids=module_name)
def test_the_bots_sql_is_in_its_store_only(path: Path) -> None:
    """One place knows the tables (issue 27): the status page, /metrics, retention, scoring and the
    hand-over ask the store by name; they never write a query of their own."""
    module = module_name(path)
    used = sql_uses(path)
    if module in SQL_MODULES:
        assert used, f"{module} is listed as holding SQL and holds none"
        return
    assert not used, f"{module} speaks SQL itself: {used}; ask oracle_gate.bot.queue.store"


def test_the_sql_rule_sees_a_query_a_call_and_the_module(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sqlite3\n\nREQUIRED = 'COALESCE(required, 1) = 1'\n\n"
        "def f(store, db, n):\n"
        "    store.read('SELECT 1 FROM jobs')\n"
        "    store.read(f'DELETE FROM jobs WHERE id = {n}')\n"
        "    db.executemany('x', [])\n"
        "    return 'Select a repository', 'Updated the check'\n"
    )
    assert {u.split(" line")[0] for u in sql_uses(probe)} == {
        "import sqlite3",
        "SQL 'SELECT 1 FROM jobs'",
        "SQL 'DELETE FROM jobs WHERE id ='",
        ".executemany()",
    }


# -- gate/maps/: three parts (issue 27) --------------------------------------------------------------

MAPS_INSIDE = GATE / "maps" / "inside"
MAPS_READER = GATE / "maps" / "reader"
#: Besides its own room (ALLOWED), what a module running in the measured test process may import: the
#: standard library, pytest (``pytest``, ``_pytest``, ``pluggy``) and coverage.py. Nothing else, lazy
#: imports included: a third-party import there runs in the parent's tests and can change what they do.
INSIDE_MAY_IMPORT = frozenset(
    {*sys.stdlib_module_names, "__future__", "pytest", "_pytest", "pluggy", "coverage"}
)


def inside_offences(path: Path, module: str) -> list[str]:
    """What a module of :mod:`oracle_gate.maps.inside` imports that it may not: a non-standard module
    other than pytest's and coverage.py's, a module of the gate outside the room, or a string naming
    one (``importlib.import_module``, ``-p``)."""
    offences = []
    for name in imports_of(path, module):
        top = name.split(".")[0]
        if top == "oracle_gate":
            if not inside(name, ALLOWED["oracle_gate.maps.inside"]):
                offences.append(name)
        elif top not in INSIDE_MAY_IMPORT:
            offences.append(name)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            named = text.startswith("oracle_gate.") and is_package_module(text)
            if named and not inside(text, ALLOWED["oracle_gate.maps.inside"]):
                offences.append(f"{text!r}")
    return offences


@pytest.mark.parametrize("path", sorted(MAPS_INSIDE.glob("*.py")), ids=module_name)
def test_the_measured_process_imports_almost_nothing(path: Path) -> None:
    """gate/maps/inside/ runs in the parent's test process (the pytest11 entry point, ``-p``)."""
    offences = inside_offences(path, module_name(path))
    assert not offences, (
        f"{module_name(path)} imports {offences}: code in the measured test process imports only the"
        " standard library, pytest, coverage.py, oracle_gate.maps.inside and oracle_gate.judge.freeze"
    )


@pytest.mark.parametrize("path", sorted(MAPS_READER.glob("*.py")), ids=module_name)
def test_the_reader_does_not_import_the_map_command(path: Path) -> None:
    """check, freeze, surface, the Action and the bot read maps without the ``map`` command's
    modules (running tests, writing maps) or the measured process's."""
    used = [
        name
        for name in imports_of(path)
        if inside(name, ("oracle_gate.maps",)) and not inside(name, ("oracle_gate.maps.reader",))
    ]
    assert not used, f"{module_name(path)} imports {used}: the reader imports only oracle_gate.maps.reader"


def test_the_maps_rules_see_a_forbidden_import(tmp_path: Path) -> None:
    """Both rules can fail: a lazy third-party import, a command module, a module named in a string."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import json\nimport pytest\nfrom oracle_gate.maps.inside import shards\n"
        "def f():\n    import requests\n    from oracle_gate.maps.build import build_map\n"
        "    from oracle_gate import git\n"
        "    return __import__('importlib').import_module('oracle_gate.maps.runner')\n"
    )
    assert inside_offences(probe, "oracle_gate.maps.inside.probe") == [
        "requests",
        "oracle_gate.maps.build",
        "oracle_gate",
        "oracle_gate.git",
        "'oracle_gate.maps.runner'",
    ]
    assert not inside("oracle_gate.maps.build", ALLOWED["oracle_gate.maps.reader"])
    assert not inside("oracle_gate.maps.inside.shards", ALLOWED["oracle_gate.maps.reader"])
    assert room_of("oracle_gate.maps.inside.collector") == "oracle_gate.maps.inside"
    assert room_of("oracle_gate.maps.reader.data") == "oracle_gate.maps.reader"
    assert room_of("oracle_gate.maps.build") == "oracle_gate.maps"


def test_the_plugins_started_in_test_processes_are_inside() -> None:
    """The module names pytest loads in a child process (the ``pytest11`` entry point, autoloaded in
    the map's run; ``-p`` in freeze's collection) are modules of oracle_gate.maps.inside."""
    import tomllib

    from oracle_gate.maps import node_ids

    pyproject = tomllib.loads((GATE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    loaded = [*pyproject["project"]["entry-points"]["pytest11"].values(), node_ids.PLUGIN_MODULE]
    assert loaded == ["oracle_gate.maps.inside.pytest_plugin", "oracle_gate.maps.inside.collected_ids"]
    assert all(is_package_module(name) for name in loaded)


def cycle_path(graph: dict[str, set[str]], component: list[str]) -> str:
    """One closed path through a strongly connected ``component``, for the message: a -> b -> a."""
    members, start = set(component), component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:  # breadth first, back to the start
        following: list[str] = []
        for node in frontier:
            for other in sorted(graph.get(node, set()) & members):
                if other == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return " -> ".join([*reversed(path), start])
                if other not in came_from and other != start:
                    came_from[other] = node
                    following.append(other)
        frontier = following
    return " -> ".join(component)  # pragma: no cover - a component always closes


def cycles_through(graph: dict[str, set[str]], room: str) -> list[str]:
    return [
        cycle_path(graph, component)
        for component in import_cycles(graph)
        if any(inside(module, (room,)) for module in component)
    ]


def test_no_import_cycle_through_gate_maps() -> None:
    """Issue 27: ``maps.build <-> maps.command`` and ``maps.collector <-> maps.trace_collector`` were
    two; a lazy import hid both. Every import counts (module level, lazy, ``TYPE_CHECKING``)."""
    modules = package_modules()
    graph = {name: imported_modules(path, name, set(modules)) for name, path in modules.items()}
    cycles = cycles_through(graph, "oracle_gate.maps")
    print("\n".join(cycles) or "no import cycle through oracle_gate.maps")
    assert not cycles, "import cycles through gate/maps/:\n" + "\n".join(cycles)


def test_the_cycle_rule_prints_the_cycle() -> None:
    graph = {
        "oracle_gate.maps.build": {"oracle_gate.maps.command", "oracle_gate.git"},
        "oracle_gate.maps.command": {"oracle_gate.maps.build"},
        "oracle_gate.maps.inside.a": {"oracle_gate.maps.inside.b"},
        "oracle_gate.maps.inside.b": {"oracle_gate.maps.inside.c"},
        "oracle_gate.maps.inside.c": {"oracle_gate.maps.inside.a"},
        "oracle_gate.bot.x": {"oracle_gate.bot.y"},
        "oracle_gate.bot.y": {"oracle_gate.bot.x"},
        "oracle_gate.git": set(),
    }
    assert cycles_through(graph, "oracle_gate.maps") == [
        "oracle_gate.maps.build -> oracle_gate.maps.command -> oracle_gate.maps.build",
        "oracle_gate.maps.inside.a -> oracle_gate.maps.inside.b -> oracle_gate.maps.inside.c"
        " -> oracle_gate.maps.inside.a",
    ]


def test_rendering_knows_nothing_of_github() -> None:
    """Issue 27: oracle_gate.render produces whole texts; GitHub's sizes and API (and the fitting of
    texts to them, oracle_gate.github.limits) belong to oracle_gate.github, which may import render."""
    offenders = [
        f"{module_name(path)} -> {name}"
        for path in sorted((GATE / "render").glob("*.py"))
        for name in imports_of(path)
        if inside(name, ("oracle_gate.github",)) or name.split(".")[0] in {"github", "requests"}
    ]
    assert not offenders
    assert not inside("oracle_gate.github.limits", ALLOWED["oracle_gate.render"])
    assert inside("oracle_gate.render.markdown", ALLOWED["oracle_gate.github"])
    assert not (GATE / "report.py").exists(), "gate/report.py came back: renderings live in gate/render/"


#: The one validator of a stored verdict.json (issue 27: it was checked twice, by report.from_json for
#: types and by action/stored_shapes.py for shapes).
STORED_VERDICT_VALIDATOR = "oracle_gate.render.verdict_json"


def stored_verdict_raises(path: Path) -> tuple[int, int]:
    """How many ``raise StoredVerdictError`` a module has (inside ``except`` handlers, elsewhere)."""
    tree = ast.parse(path.read_text(), str(path))
    in_handlers = {
        id(node)
        for handler in ast.walk(tree)
        if isinstance(handler, ast.ExceptHandler)
        for node in ast.walk(handler)
    }
    raises = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise)
        and node.exc is not None
        and "StoredVerdictError" in ast.unparse(node.exc)
    ]
    handled = sum(1 for node in raises if id(node) in in_handlers)
    return handled, len(raises) - handled


def test_a_stored_verdict_is_validated_by_one_module() -> None:
    """Only render.verdict_json judges a stored verdict's content; ``oracle-gate publish`` raises
    StoredVerdictError itself only where it could not read or decode the file (in ``except``)."""
    raisers = {module_name(path): stored_verdict_raises(path) for path in gate_modules()}
    raisers = {module: counts for module, counts in raisers.items() if any(counts)}
    assert set(raisers) == {STORED_VERDICT_VALIDATOR, "oracle_gate.action.publish_stored"}, sorted(raisers)
    assert raisers["oracle_gate.action.publish_stored"][1] == 0, "publish_stored judges a verdict's content"
    assert raisers[STORED_VERDICT_VALIDATOR][1] > 0
    assert STORED_VERDICT_VALIDATOR in imports_of(ACTION / "publish_stored.py")


def test_no_import_cycle_anywhere_in_the_package() -> None:
    """Issue 27: besides the bot's and the maps' cycles, ``score.run <-> score.mutation.run`` was one
    (a ``TYPE_CHECKING`` import). The whole package's graph, every kind of import, has none."""
    modules = package_modules()
    graph = {name: imported_modules(path, name, set(modules)) for name, path in modules.items()}
    assert import_cycles(graph) == []
