"""The sandbox's proposed bot settings: limits read as whole numbers, anything else refused with
one line naming the variable (a non-ASCII digit such as '²' included)."""

from __future__ import annotations

import pytest

from oracle_gate.errors import UsageError
from oracle_gate.score.sandbox import Limits, inner_wall_seconds, limits_from_environment


def test_defaults_and_values() -> None:
    assert limits_from_environment({}) == Limits()
    env = {"ORACLE_GATE_SCORE_CPU_SECONDS": "60", "ORACLE_GATE_SCORE_MEMORY_MB": "512"}
    env |= {"ORACLE_GATE_SCORE_DISK_MB": "100", "ORACLE_GATE_SCORE_WALL_SECONDS": "120"}
    assert limits_from_environment(env) == Limits(60, 512 * 1024**2, 100 * 1024**2, 120)


@pytest.mark.parametrize("raw", ["0", "-5", "1.5", "²", "ten", "99999999"])
def test_a_bad_limit_is_refused_naming_the_variable(raw: str) -> None:
    with pytest.raises(UsageError, match="ORACLE_GATE_SCORE_CPU_SECONDS"):
        limits_from_environment({"ORACLE_GATE_SCORE_CPU_SECONDS": raw})


def test_a_short_wall_clock_keeps_half_of_it_for_the_sandbox_to_report() -> None:
    """The least wall clock (10 s, so a test of the limit does not wait a minute) still leaves the
    score command its own, earlier limit: it reports before the sandbox kills it."""
    assert limits_from_environment({"ORACLE_GATE_SCORE_WALL_SECONDS": "10"}).wall_seconds == 10
    with pytest.raises(UsageError, match="ORACLE_GATE_SCORE_WALL_SECONDS takes a whole number from 10"):
        limits_from_environment({"ORACLE_GATE_SCORE_WALL_SECONDS": "9"})
    assert [inner_wall_seconds(s) for s in (10, 60, 3600, 1.5)] == [5, 30, 3570, 1]
