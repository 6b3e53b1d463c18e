"""Issue 27: a setting carries its kind and bounds and parses itself, so the Action, the bot and the
scoring sandbox each loop over the one table (``gate/review/settings.py``) and no bound is written
twice."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from oracle_gate.errors import UsageError
from oracle_gate.review.settings import SETTINGS, Setting

GATE = Path(__file__).resolve().parents[2] / "gate"
#: The modules that read the settings of the table: none may parse a whole number by hand.
DOORS = (
    "action/config.py",
    "bot/app/config.py",
    "bot/app/score_settings.py",
    "bot/web/access.py",
    "score/sandbox.py",
)
NUMBERS = [s for s in SETTINGS.values() if s.default.isdigit()]


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
