"""What ``oracle-gate score`` and its pytest plugin agree on (no pytest import: the gate's own
process never needs pytest)."""

ENV_REPORT = "ORACLE_GATE_SCORE_REPORT"  # JSON-lines report file
ENV_FREEZE = "ORACLE_GATE_SCORE_FREEZE"  # the parent's freeze manifest (absolute path), optional
ENV_PARENT_IDS = "ORACLE_GATE_SCORE_PARENT_IDS"  # a file: JSON list of the test ids the parent ran
ENV_HARNESS = "ORACLE_GATE_SCORE_HARNESS"  # JSON list of harness globs
ENV_REVERSE = "ORACLE_GATE_SCORE_REVERSE"  # "1": reverse the order within each file
PLUGIN_MODULE = "oracle_gate.score.pytest_score"
ENV_WATCH_EXCLUDE = (
    "ORACLE_GATE_SCORE_WATCH_EXCLUDE"  # JSON list: globs of files whose modules 2.2 leaves alone
)
