"""What the scoring process and diff mutation's pytest plugins agree on (no pytest import)."""

ENV_LINES = "ORACLE_GATE_SCORE_LINES"  # the first run's line recorder: a JSON spec file
ENV_MUTANT = "ORACLE_GATE_MUTANT"  # one mutant's run: JSON {file, line, ordinal, report}
MUTANT_PLUGIN = "oracle_gate.score.mutation.pytest_mutant"
ENV_MUTANTS = "ORACLE_GATE_MUTANTS"  # the forking run: a JSON file {report, jobs}
FORKS_PLUGIN = "oracle_gate.score.mutation.pytest_forks"
