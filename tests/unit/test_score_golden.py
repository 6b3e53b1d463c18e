"""The score's renderings (``oracle-gate score --format text|markdown|json``), byte for byte against
tests/golden/score/. Test ids are the change's data: one holds a ``|``, a mention and a newline,
which must stay that test id's text. Refresh as tests/golden/README.md says."""

from __future__ import annotations

import pytest

from oracle_gate.score.decide import HeadRun, ParentRun, ScoreResult, decide
from oracle_gate.score.mutation.outcome import MutantResult, MutationSummary, with_mutation
from oracle_gate.score.report import format_score
from tests.support.golden import assert_matches_golden
from tests.support.verdicts import HEAD, PARENT, passing

PLUGINS = {"pytest-cov": "7.1.0", "oracle-gate": "0.0.0+golden"}
ODD = "tests/test_x.py::test_odd[a|b @team\nnext]"
PARENT_RUN = ParentRun(
    outcomes={"tests/test_x.py::test_a": "passed", "tests/test_x.py::test_b": "passed", ODD: "passed"},
    plugins=PLUGINS,
)


def result(kind: str) -> ScoreResult:
    outcomes = dict(PARENT_RUN.outcomes)
    plugins = dict(PLUGINS)
    if kind == "fail":
        outcomes |= {"tests/test_x.py::test_a": "skipped", ODD: "failed"}
        del outcomes["tests/test_x.py::test_b"]
        plugins["sneaky-dep"] = "1.0"
    runs = tuple(
        HeadRun(label, outcomes=outcomes, reasons={"tests/test_x.py::test_a": "not today"}, plugins=plugins)
        for label in ("first", "second")
    )
    score = decide(PARENT_RUN, frozenset(PARENT_RUN.outcomes), runs)
    seconds = {"diff": 0.5, "first": 2.0, "second": 2.0, "total": 4.5}
    mutation = MUTATION if kind == "mutation" else None
    score = with_mutation(score, mutation)
    return ScoreResult(score, passing(), PARENT, HEAD, "d" * 64, PARENT_RUN, runs, seconds, mutation)


# Diff mutation's section ("lines no live test checks"): a survivor run by two tests (one the odd
# id), a line no live test executed, a killed mutant (not listed), one left past a cap.
MUTATION = MutationSummary(
    "report",
    (
        MutantResult("src/calc.py", 8, "a - b → a + b", "survived", ("tests/test_x.py::test_a", ODD), ""),
        MutantResult("src/a|b.py", 3, "'two' → ''", "survived", (), "no live test executed its file"),
        MutantResult("src/calc.py", 12, "a < b → a <= b", "killed", ("tests/test_x.py::test_b",), "failed"),
        MutantResult("src/calc.py", 20, "x → pass", "not_run", ("tests/test_b",), "past max_mutants (3)"),
    ),
    arid=2,
    unmutable=1,
    seconds=3.25,
)


@pytest.mark.parametrize("kind", ["pass_clean", "fail", "mutation"])
@pytest.mark.parametrize(("fmt", "suffix"), [("text", "txt"), ("markdown", "md"), ("json", "json")])
def test_score_renderings(kind: str, fmt: str, suffix: str) -> None:
    assert_matches_golden(f"score/{kind}.{suffix}", format_score(result(kind), fmt))
