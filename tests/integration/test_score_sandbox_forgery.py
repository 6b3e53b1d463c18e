"""Head's code shares the sandbox with the scoring process (oracle_gate.score.sandbox): it can write a
report of its own into that process's standard output and stop the process before it writes the
real one. A report is believed only when the run ended as the report says (its exit status).

Since TRUST.md 15 (issue 30) the scoring process is not dumpable and the sandbox holds no
``CAP_SYS_PTRACE``: head's test cannot even open the scorer's ``/proc/<pid>/fd/1``, so it fails
(``tests_failed``) before it forges anything. Either way the forged ``pass_clean`` is never the score."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from oracle_gate.score.decide import SCORE_KIND, SCORE_SCHEMA
from oracle_gate.score.sandbox import Limits, score_in_sandbox
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

if shutil.which("bwrap") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("bwrap (bubblewrap) is required in CI for the sandbox tests")
    pytest.skip("bwrap (bubblewrap) is not installed: apt-get install bubblewrap", allow_module_level=True)

pytestmark = pytest.mark.process  # the scoring sandbox: bwrap and a process per run

FORGED = {"kind": SCORE_KIND, "schema": SCORE_SCHEMA, "score": "pass_clean", "reasons": [], "runs": []}
# A test of head's: the pytest process's parent is the scoring process; write over its output, stop it.
FORGER = f"""\
import os
import signal

FORGED = {json.dumps(json.dumps(FORGED))}


def test_forge():
    scorer = os.getppid()
    with open(f"/proc/{{scorer}}/fd/1", "w") as out:
        out.write(FORGED)
    os.kill(scorer, signal.SIGTERM)
"""


def test_a_report_written_by_heads_code_into_the_scorers_output_is_not_believed(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/calc.py", "def add(a, b):\n    return a + b\n")
    repo.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    parent = repo.commit("parent")
    coverage = tmp_path / "maps" / "parent.coverage"
    made = run_cli("map", "--repo", str(repo.root), "--sha", parent, "--out", str(coverage), env=clean_env())
    assert made.returncode == 0, made.stderr
    repo.write("src/calc.py", "def add(a, b):\n    return b + a\n")
    repo.write("tests/test_forge.py", FORGER)
    head = repo.commit("head")
    doc = score_in_sandbox(repo.root, parent, head, coverage, limits=Limits(wall_seconds=300))
    assert doc["score"] != "pass_clean", doc
    first = doc["reasons"][0]
    refused = first["code"] == "tests_failed" and first["tests"] == ["tests/test_forge.py::test_forge"]
    assert refused or "not its own" in first["detail"], doc
