"""The jobs that hold the App's key install the gate the way they say, and it runs (issue 31).

Each key-holding job that needs the ``oracle-gate`` command checks the gate out at the pinned
commit (``oracle-gate-src``) and installs it with pip checking every file against the gate's own
hash-pinned locks (TRUST.md invariant 14). Here that step runs in bash, as written in the workflow
(the template ``init`` renders, and each example that has one), in a fresh venv, against a copy
of this tree standing in for the checkout; then the command it installed must run.

Seen on main: the score judge installed ``"oracle-gate @ git+..."``, a distribution that does not
exist (it is ``pr-oracle-gate``): pip refused it and ``/score`` never completed, and no test ran
the line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.adopt.detect import Detected
from oracle_gate.adopt.init import plan
from tests.support.workflow_steps import Job, base_env, copy_of_this_tree, run_step

ROOT = Path(__file__).resolve().parents[2]
STEP = "Install oracle-gate from its hash-pinned locks only"
DETECTED = Detected("main", "3.12", "requirements-test.txt", ("tests",), False, ())


def install_steps() -> list[tuple[str, dict[str, Any]]]:
    texts = [(f"examples/{p.name}", p.read_text()) for p in sorted((ROOT / "examples").glob("*.yml"))]
    texts += [
        (f"init: {p.path}", p.text)
        for p in plan(DETECTED, "fork-safe", None, "1" * 40)
        if "/workflows/" in p.path
    ]
    found = []
    for label, text in texts:
        for name, job in yaml.safe_load(text)["jobs"].items():
            for step in job.get("steps", []):
                if step.get("name") == STEP:
                    found.append((f"{label} job {name}", step))
    return found


STEPS = install_steps()


def test_the_key_holding_jobs_that_need_the_command_install_it_this_way() -> None:
    """One text for all of them, so the one run below covers each."""
    labels = [label for label, _ in STEPS]
    assert any("oracle-gate-score-publish.yml" in x for x in labels)
    assert any(x.startswith("init: ") and "fork-safe-publish" in x for x in labels)
    assert len({step["run"] for _, step in STEPS}) == 1


@pytest.fixture(scope="module")
def gate_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_of_this_tree(tmp_path_factory.mktemp("workspace") / "oracle-gate-src")


def test_the_hash_pinned_install_step_installs_a_gate_that_runs(gate_source: Path, tmp_path: Path) -> None:
    label, step = STEPS[-1]  # init's (the examples' is the same text: the test above)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = base_env(tmp_path)
    env["PATH"] = f"{venv / 'bin'}:{env['PATH']}"
    job = Job(label, gate_source.parent, {}, env)
    run_step(job, step)
    version = subprocess.run(
        [str(venv / "bin" / "oracle-gate"), "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout.startswith("oracle-gate ")
