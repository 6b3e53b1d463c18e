"""Diff mutation's operators, arid lines and policy table (SCORING.md 2.4), on plain values."""

from __future__ import annotations

import pytest

from oracle_gate.judge.mutation_policy import MutationPolicy
from oracle_gate.judge.policy import parse_policy
from oracle_gate.score.mutation.mutants import line_mutants, mutated_code

SOURCE = '''\
"""The module's docstring."""
import os

TABLE = {
    "a": 1,
}
log = None


def f(a, b):
    """f's docstring."""
    if a < b and not a:
        return a - b
    log.info("x")
    size: int
    y = a % 3
    flag = True
    pass
    return y
'''


def first(line: int, per_line: int = 1) -> list[str]:
    (found,) = line_mutants(SOURCE, "m.py", [line], per_line)
    return [m.text for m in found.mutants]


@pytest.mark.parametrize("line", [1, 2, 3, 11, 14, 15, 18])
def test_arid_lines_are_never_mutated(line: int) -> None:
    (found,) = line_mutants(SOURCE, "m.py", [line])
    assert found.arid
    assert found.mutants == ()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            12,
            [
                "a < b → a <= b",
                "a < b and (not a) → a < b or not a",
                "not a → a",
                "if a < b and (not a): → pass",
            ],
        ),
        (13, ["a - b → a + b", "return a - b → return None", "return a - b → pass"]),  # arithmetic first
        (16, ["a % 3 → a * 3", "3 → 4", "y = a % 3 → pass"]),
        (17, ["True → False", "flag = True → pass"]),
        (5, ["'a' → ''", "1 → 2"]),  # a table entry: its constants
        (19, ["return y → return None", "return y → pass"]),
    ],
)
def test_operators_come_in_the_contracts_order(line: int, expected: list[str]) -> None:
    assert first(line, per_line=5) == expected
    assert first(line) == expected[:1]


def test_a_line_without_an_applicable_operator_has_no_mutant() -> None:
    (found,) = line_mutants(SOURCE, "m.py", [6])  # the closing brace
    assert (found.arid, found.mutants) == (False, ())


def test_the_mutants_process_rebuilds_the_same_mutant_from_the_text() -> None:
    (found,) = line_mutants(SOURCE, "m.py", [13], 2)
    namespace: dict[str, object] = {"__name__": "m"}
    exec(mutated_code(SOURCE, "m.py", 13, found.mutants[0].ordinal), namespace)  # noqa: S102 - the test's own source
    f = namespace["f"]
    assert callable(f)
    assert f(0, 2) == 2  # a - b became a + b (it was -2)


def test_a_file_that_does_not_parse_has_no_mutants() -> None:
    (found,) = line_mutants("def f(:\n", "m.py", [1])
    assert found.mutants == ()


def test_the_policy_table() -> None:
    policy = parse_policy(
        b'[mutation]\nmode = "unscored"\nmutants_per_line = 2\nmax_mutants = 5\nmax_seconds = 60\n'
    )
    assert policy.problems == ()
    assert policy.mutation == MutationPolicy("unscored", 2, 5, 60)
    assert parse_policy(None).mutation == MutationPolicy("report", 1, 200, 600)


@pytest.mark.parametrize(
    "table",
    ['mode = "loud"', "max_mutants = -1", "mutants_per_line = true", 'max_seconds = "10"', "other = 1"],
)
def test_a_malformed_table_keeps_the_defaults_and_is_a_problem(table: str) -> None:
    policy = parse_policy(f"[mutation]\n{table}\n".encode())
    assert policy.mutation == MutationPolicy()
    assert len(policy.problems) == 1
    assert "mutation" in policy.problems[0].message


FORKABLE = """\
TABLE = {"a": 1}


def f(a, b):
    return a + b


class C:
    LIMIT = 3

    def g(self, x):
        return [y * 2 for y in x]


SQUARES = [n * n for n in range(3)]
"""


@pytest.mark.parametrize(
    ("line", "swappable"),
    [
        (5, True),  # inside a function: its code swapped in the fork
        (12, True),  # a comprehension inside a method
        (1, False),  # a module-level table: runs at import, so a fresh process
        (9, False),  # a class body's line
        (4, False),  # a def line replaced by pass: the set of functions changes
        (15, False),  # a module-level comprehension runs at import
    ],
)
def test_which_mutants_a_fork_can_run(line: int, swappable: bool) -> None:
    from oracle_gate.score.mutation.pytest_forks import function_swaps

    original = compile(FORKABLE, "m.py", "exec", dont_inherit=True)
    (found,) = line_mutants(FORKABLE, "m.py", [line])
    mutant = mutated_code(FORKABLE, "m.py", line, found.mutants[0].ordinal)
    assert (function_swaps(original, mutant) is not None) is swappable
