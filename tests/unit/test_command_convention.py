"""Every ``oracle-gate`` command is declared one way (issue 27, "The CLI"): a module of
``gate/commands/`` named in the table ends with ``COMMAND = Subcommand(...)``; only the table adds
subparsers or attaches the shared options; ``--repo``, ``--format`` and ``--output`` are defined once,
in ``gate/commands/options.py``; and only the output module writes the program's lines.

These read the source with ``ast``, so a command added the old way (a registrar in its own room, an
``add_argument("--repo", ...)`` of its own, a ``say`` of its own) fails here."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.table import TABLE, build_parser, declared

GATE = Path(__file__).resolve().parents[2] / "gate"
COMMANDS = GATE / "commands"
TABLE_MODULE = COMMANDS / "table.py"
OPTIONS_MODULE = COMMANDS / "options.py"
OUTPUT_MODULE = COMMANDS / "output.py"
SHARED_FLAGS = ("--repo", "--format", "--output")
# ``python -m oracle_gate.release``: the release workflow's own program, not a command of oracle-gate.
OTHER_PROGRAMS = frozenset({GATE / "release.py"})


def calls(path: Path) -> Iterator[ast.Call]:
    yield from (
        node for node in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(node, ast.Call)
    )


def called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def flags_added(path: Path) -> list[str]:
    """The option strings of every ``add_argument(...)`` in ``path``."""
    return [
        arg.value
        for call in calls(path)
        if called_name(call) == "add_argument"
        for arg in call.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    ]


def command_modules() -> list[Path]:
    return sorted(
        p
        for p in COMMANDS.glob("*.py")
        if p.stem not in ("__init__", "declare", "options", "output", "table")
    )


def test_every_command_module_is_in_the_table_and_declares_its_command() -> None:
    listed = {module for _, module in TABLE}
    assert {f"oracle_gate.commands.{path.stem}" for path in command_modules()} == listed
    for name, _ in TABLE:
        command = declared(name)
        assert isinstance(command, Subcommand)
        assert command.name == name


def test_only_the_table_adds_subparsers() -> None:
    offenders = sorted(
        str(path.relative_to(GATE))
        for path in GATE.rglob("*.py")
        if path != TABLE_MODULE
        and path not in OTHER_PROGRAMS
        and any(called_name(call) in ("add_subparsers", "add_parser") for call in calls(path))
    )
    assert not offenders, (
        f"{offenders} register commands of their own: declare a Subcommand in gate/commands/"
    )


@pytest.mark.parametrize("flag", SHARED_FLAGS)
def test_a_shared_option_is_defined_once_in_the_options_module(flag: str) -> None:
    offenders = sorted(
        str(path.relative_to(GATE))
        for path in GATE.rglob("*.py")
        if path not in OTHER_PROGRAMS and flag in flags_added(path)
    )
    assert not offenders, f"{offenders} define {flag}: use oracle_gate.commands.options"
    defined = [
        call
        for call in calls(OPTIONS_MODULE)
        if called_name(call) == "Option"
        and isinstance(call.args[0], ast.Tuple)
        and any(isinstance(e, ast.Constant) and e.value == flag for e in call.args[0].elts)
    ]
    assert defined, f"{flag} is not in oracle_gate.commands.options"


def test_only_the_output_module_prefixes_lines_with_the_programs_name() -> None:
    """``say`` was written three times (cli.py, maps' callers, surface_cli/score's ``_emit``)."""
    offenders = sorted(
        f"{path.relative_to(GATE)}: def {node.name}"
        for path in [*COMMANDS.glob("*.py"), GATE / "cli.py"]
        if path != OUTPUT_MODULE
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.FunctionDef) and node.name in ("say", "emit", "_emit", "_write", "error")
    )
    assert not offenders


def test_every_command_in_the_parser_runs_a_declared_function() -> None:
    """Each leaf command's ``func`` is the ``run`` its declaration names (so it returns an ExitStatus)."""
    parser = build_parser()
    leaves: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(prefix: str, p: argparse.ArgumentParser) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            leaves.append((prefix, p))
        for action in subs:
            for name, child in action.choices.items():
                walk(f"{prefix} {name}".strip(), child)

    walk("", parser)
    runs = {
        f"{c.name} {s.name}" if s is not c else c.name: s.run
        for name, _ in TABLE
        for c in [declared(name)]
        for s in (c.subcommands or (c,))
    }
    assert {prefix: p.get_default("func") for prefix, p in leaves} == runs


def test_a_declaration_runs_or_has_commands_never_both() -> None:
    def run(args: argparse.Namespace) -> object:
        raise AssertionError

    with pytest.raises(ValueError, match="either run or subcommands"):
        Subcommand("x", help="x")
    with pytest.raises(ValueError, match="either run or subcommands"):
        Subcommand("x", help="x", run=run, subcommands=(Subcommand("y", help="y", run=run),))  # type: ignore[arg-type]


def test_the_rules_see_a_command_defined_the_old_way(tmp_path: Path) -> None:
    """The checks can fail: a registrar with its own subparser and its own --repo is seen."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def add(sub):\n    p = sub.add_parser('x')\n    p.add_argument('--repo', default='.')\n"
    )
    assert "--repo" in flags_added(probe)
    assert any(called_name(call) == "add_parser" for call in calls(probe))
