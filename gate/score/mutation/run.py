"""Diff mutation inside ``oracle-gate score`` (:func:`oracle_gate.score.run.run_score`): the plan before
the runs, the stage after a ``pass_clean`` comparison."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from oracle_gate.git import Git
from oracle_gate.judge.policy import Policy
from oracle_gate.judge.verdict import Verdict
from oracle_gate.score.decide import HeadRun
from oracle_gate.score.mutation.outcome import MutationSummary
from oracle_gate.score.mutation.settings import ENV_LINES
from oracle_gate.score.mutation.stage import (
    MutantRunSetup,
    MutationPlan,
    live_for_mutation,
    mutation_plan,
    recorded,
    run_mutants,
)


class RunPlaces(Protocol):
    """What the stage needs of the score's run setup (``oracle_gate.score.run.RunSetup``), named
    here so this module does not import the run that calls it."""

    @property
    def tree(self) -> Path: ...
    @property
    def scratch(self) -> Path: ...
    @property
    def python(self) -> str: ...
    @property
    def deadline(self) -> float: ...


SCORE_SETTINGS_PREFIX = "ORACLE_GATE_SCORE_"


def plan_for(git: Git, verdict: Verdict, policy: Policy, live: frozenset[str]) -> MutationPlan | None:
    return mutation_plan(git, verdict.parent, verdict.head, policy, live, edited=verdict.edited_tests)


def mutation_stage(
    plan: MutationPlan, setup: RunPlaces, first_env: Mapping[str, str], first: HeadRun, live: frozenset[str]
) -> MutationSummary:
    """Run the plan's mutants with the first run's environment (the score plugin's settings and the
    recorder's left out) against the live tests the first run's recorder names."""
    env = {k: v for k, v in first_env.items() if not k.startswith(SCORE_SETTINGS_PREFIX) and k != ENV_LINES}
    mutant_setup = MutantRunSetup(setup.tree, setup.scratch, setup.python, env, setup.deadline)
    judges = live_for_mutation(live, plan, first.harness)
    return run_mutants(plan, mutant_setup, recorded(setup.scratch), judges)
