"""Issue 27: a setting carries its kind and bounds and parses itself, so the Action, the bot and the
scoring sandbox each loop over the one table (``gate/review/settings.py``) and no bound is written
twice."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.errors import UsageError
from oracle_gate.github.defaults import CommentMode
from oracle_gate.review.settings import SETTINGS, Kind, Setting, span

GATE = Path(__file__).resolve().parents[2] / "gate"
#: The modules that read the settings of the table: none may parse a whole number by hand.
DOORS = (
    "action/config.py",
    "bot/app/config.py",
    "bot/app/score_settings.py",
    "bot/web/access.py",
    "score/sandbox.py",
)
NUMBERS = [s for s in SETTINGS.values() if s.kind is Kind.WHOLE]
ROOT = GATE.parent


#: Numbers that are not settings of the table: GitHub's run id, the App's id (its own message).
NOT_SETTINGS = frozenset({"run_id", "app_id"})


def hand_parsing(source: str) -> list[str]:
    """``x.isdigit()`` calls and "whole number" messages: a parser of numbers of its own."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute | ast.JoinedStr):
            continue
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "isdigit"
            and ast.unparse(node.value) not in NOT_SETTINGS
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}()")
        if isinstance(node, ast.JoinedStr) and "whole number" in ast.unparse(node):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("door", DOORS)
def test_no_door_parses_a_number_itself(door: str) -> None:
    assert hand_parsing((GATE / door).read_text(encoding="utf-8")) == []


def test_the_rule_sees_a_hand_parser() -> None:
    assert hand_parsing("if not raw.isdigit():\n    raise UsageError(f'{n} must be a whole number')")


@pytest.mark.parametrize("setting", NUMBERS, ids=[s.name for s in NUMBERS])
def test_every_number_parses_itself_within_its_bounds(setting: Setting) -> None:
    low, high = setting.bounds
    assert low <= int(setting.default) <= high
    assert setting.whole("", "X") == int(setting.default)
    assert (setting.whole(str(low), "X"), setting.whole(str(high), "X")) == (low, high)
    for wrong in (str(high + 1), *([str(low - 1)] if low > 0 else []), "-1", "1e3", " 1 2", "½"):
        with pytest.raises(
            UsageError, match=f"^{setting.variable} takes a whole number from {low} to {high}, got"
        ):
            setting.whole(wrong, setting.variable)


def test_a_text_setting_has_no_bounds() -> None:
    with pytest.raises(TypeError, match="'check-name' is not a whole number"):
        SETTINGS["check-name"].whole("1", "X")


def test_every_setting_with_digits_for_a_default_is_a_whole_number() -> None:
    """A number left as text would be parsed by hand again, with bounds of its own."""
    assert [s.name for s in SETTINGS.values() if s.default.isdigit() and s.kind is not Kind.WHOLE] == []


@pytest.mark.parametrize("setting", list(SETTINGS.values()), ids=list(SETTINGS))
def test_every_default_parses_by_its_own_kind(setting: Setting) -> None:
    for where in (setting.input, setting.variable):
        assert setting.parse("", where) == setting.parse(setting.default, where)


@pytest.mark.parametrize(
    ("raw", "value"), [("", False), ("true", True), ("false", False), ("TRUE", True), (" False ", False)]
)
def test_a_flag_parses_true_or_false_in_any_case(raw: str, value: bool) -> None:
    assert SETTINGS["trust-same-run-map"].flag(raw, "X") is value


@pytest.mark.parametrize("raw", ["yes", "1", "0", "truee", "on"])
def test_a_flag_takes_nothing_else(raw: str) -> None:
    setting = SETTINGS["allow-failing-parent"]
    with pytest.raises(
        UsageError, match=f"^input 'allow-failing-parent' must be true or false, got '{raw}'$"
    ):
        setting.flag(raw, setting.input)


def test_the_comment_mode_parses_its_three_values_and_nothing_else() -> None:
    setting = SETTINGS["comment"]
    assert [setting.comment(m.value, "X") for m in CommentMode] == list(CommentMode)
    assert setting.comment("", "X") is CommentMode.ON_CHANGE
    with pytest.raises(
        UsageError, match=r"^ORACLE_GATE_COMMENT must be one of always, on-change, never; got"
    ):
        setting.comment("On-Change", setting.variable)


def test_branch_names_parse_and_refuse_a_ref_or_a_glob() -> None:
    setting = SETTINGS["allowed-bases"]
    assert setting.branches("", "X") == ()
    assert setting.branches("main,\nrelease/2.x", "X") == ("main", "release/2.x")
    for bad in ("refs/heads/main", "rel*"):
        with pytest.raises(
            UsageError, match=f"^input 'allowed-bases' takes branch names .*got '{re.escape(bad)}'"
        ):
            setting.branches(bad, setting.input)


def test_a_setting_is_read_only_by_its_own_kind() -> None:
    with pytest.raises(TypeError, match="'comment' is not a true or false but a comment mode"):
        SETTINGS["comment"].flag("true", "X")
    with pytest.raises(TypeError, match="'merge-wait-ms' is not a text but a whole number"):
        SETTINGS["merge-wait-ms"].text("1", "X")
    with pytest.raises(TypeError, match="a whole number, and only one, has bounds"):
        Setting("x", "1", "x", low=0, high=2)


#: Integers in a door that equal some setting's upper bound by coincidence, each with its reason.
COINCIDENCES = {
    ("action/config.py", 100): "check-name's length, GitHub's limit on a check run's name",
    ("bot/web/access.py", 16): "MIN_TOKEN, the status token's least length",
}
UNITS = frozenset({1000})  # ms to seconds


def written_bounds(door: str, source: str, *, numbers: bool = True) -> list[str]:
    """Integers equal to a whole-number setting's upper bound (``numbers``: a door's), and "LOW to
    HIGH" bounds in text: a bound of the table written again in ``door``."""
    highs = {s.bounds[1]: s.name for s in NUMBERS if s.bounds[1] > 1}
    spans = {span(*s.bounds): s.name for s in NUMBERS}
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Constant):
            continue
        value = node.value
        if (
            numbers
            and type(value) is int
            and value in highs
            and value not in UNITS
            and (door, value) not in COINCIDENCES
        ):
            found.append(f"{door}:{node.lineno}: {value} ({highs[value]}'s bound)")
        if isinstance(value, str):
            found += [
                f"{door}:{node.lineno}: {text!r} ({name})" for text, name in spans.items() if text in value
            ]
    return found


def test_no_module_but_the_table_writes_a_bound_of_the_table() -> None:
    """The doors' numbers are read from the table, and so is every "0 to 60000" of gate/'s text."""
    found = []
    for path in sorted(GATE.rglob("*.py")):
        door = path.relative_to(GATE).as_posix()
        if door != "review/settings.py":
            found += written_bounds(door, path.read_text(encoding="utf-8"), numbers=door in DOORS)
    assert found == []


def test_the_bound_rule_sees_a_bound_written_again() -> None:
    found = written_bounds("bot/app/config.py", "count(raw, where, 0, 60_000)\nx = 'workers (1 to 64)'")
    assert sorted(found) == [
        "bot/app/config.py:1: 60000 (merge-wait-ms's bound)",
        "bot/app/config.py:2: '1 to 64' (concurrency)",
    ]


@pytest.mark.parametrize("setting", NUMBERS, ids=[s.name for s in NUMBERS])
def test_every_page_gives_a_numbers_bounds_as_the_table_does(setting: Setting) -> None:
    """docs/bot-operations.md's row, action.yml's input and docs/action.md's row name the table's
    bounds, and no other."""
    expected = span(*setting.bounds)
    assert setting.described.endswith(f"({expected})")
    rows = []
    if setting.bot:
        page = (ROOT / "docs" / "bot-operations.md").read_text(encoding="utf-8")
        rows += [line for line in page.splitlines() if line.lstrip().startswith(f"| `{setting.variable}`")]
    if setting.action:
        inputs = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
        rows.append(" ".join(inputs[setting.name]["description"].split()))
        page = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
        rows += [line for line in page.splitlines() if line.startswith(f"| `{setting.name}`")]
    assert len(rows) == setting.bot + 2 * setting.action
    for row in rows:
        assert re.findall(r"\b\d+ to \d+\b", row) == [expected], row


PARSED = [s for s in SETTINGS.values() if s.kind is not Kind.TEXT]


@pytest.mark.parametrize("setting", PARSED, ids=[s.name for s in PARSED])
def test_a_refused_value_is_named_on_one_line_that_cannot_start_a_workflow_command(setting: Setting) -> None:
    """An input may come from an expression a pull request can reach (a ref, a dispatch input): the
    value a setting refuses is quoted with its line breaks escaped, so the one-line error cannot
    carry a ``::command::`` of the runner's onto a line of its own."""
    hostile = "7\n::warning file=x::forged\r\n::add-mask::y"
    with pytest.raises(UsageError) as refused:
        setting.parse(hostile, setting.variable)
    message = str(refused.value)
    assert "\n" not in message
    assert "\r" not in message
    assert message.startswith(setting.variable)
