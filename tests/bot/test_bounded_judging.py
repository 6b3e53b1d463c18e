"""A judgement runs in a child process under a memory limit and a wall-clock limit: past either the
verdict is ``unscored`` with ``oracle_incomplete`` saying which limit, and the server's own memory
does not grow with the change."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from oracle_gate.bot.jobs import bounded
from oracle_gate.check import run_check
from oracle_gate.git import Git
from oracle_gate.judge.verdict import Outcome, ReasonCode
from oracle_gate.judgement.core import request_of
from oracle_gate.judgement.ports import Facts, ParentMap
from tests.support.repo import Repo

LINE = "x = 1  # " + "a" * 60 + "\n"


def change(tmp_path: Path, files: int, mib: int) -> Facts:
    repo = Repo(tmp_path / "repo")
    repo.write("oracle-gate.toml", "")
    repo.write("src/app.py", "def f():\n    return 1\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "base")
    base = repo.git("rev-parse", "HEAD")
    for i in range(files):
        repo.write(f"src/big{i}.py", LINE * (mib * 1024 * 1024 // len(LINE)))
    repo.write("src/app.py", "def f():\n    return 2\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "change")
    return Facts(repo=repo.root, parent=base, merge=repo.git("rev-parse", "HEAD"), parent_map=ParentMap())


def test_a_change_within_the_limit_gets_the_same_verdict_as_in_process(tmp_path: Path) -> None:
    facts = change(tmp_path, files=0, mib=0)
    assert bounded.judge(facts, bounded.DEFAULT_LIMIT_MIB * bounded.MIB) == run_check(
        request_of(facts), Git(facts.repo)
    )


def test_past_the_memory_limit_the_verdict_is_unscored_and_the_server_does_not_grow(tmp_path: Path) -> None:
    facts = change(tmp_path, files=4, mib=8)  # about 290 MiB to judge in-process
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    verdict = bounded.judge(facts, 192 * bounded.MIB)
    assert verdict.verdict == Outcome.UNSCORED
    ((code, detail),) = [(r.code, r.detail) for r in verdict.reasons]
    assert code == ReasonCode.ORACLE_INCOMPLETE
    assert "192 MiB" in detail
    assert "ORACLE_GATE_JOB_MEMORY_MB" in detail
    assert (verdict.parent, verdict.head) == (facts.parent, facts.merge)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 64 * 1024  # the copies were made in the child, not here


def test_past_the_wall_clock_the_child_is_killed_and_the_verdict_is_unscored(tmp_path: Path) -> None:
    """A judgement that outlives ``ORACLE_GATE_JOB_SECONDS`` holds no worker (TRUST.md 8): no child
    answers within a millisecond, so this one is stopped, and the next judgement still runs."""
    facts = change(tmp_path, files=1, mib=1)
    verdict = bounded.judge(facts, 0, 0.001)
    assert verdict.verdict == Outcome.UNSCORED
    ((code, detail),) = [(r.code, r.detail) for r in verdict.reasons]
    assert code == ReasonCode.ORACLE_INCOMPLETE
    assert (
        detail
        == "judging ran past the job's 0.001 s of wall clock (ORACLE_GATE_JOB_SECONDS): nothing was judged"
    )
    assert (verdict.parent, verdict.head) == (facts.parent, facts.merge)
    assert bounded.judge(facts, 0, 120) == run_check(request_of(facts), Git(facts.repo))


WATCHER = """
import sys, time
from oracle_gate.bot.jobs.bounded import die_with
die_with(int(sys.argv[1]))
print("watching", flush=True)
time.sleep(60)
"""


@pytest.mark.process
def test_a_judging_child_exits_when_its_jobs_process_dies() -> None:
    """Forked by the fork server, it waited for work from a killed server's job for ever (and kept the
    fork server alive with it)."""
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    watcher = [sys.executable, "-c", WATCHER, str(owner.pid)]
    with owner, subprocess.Popen(watcher, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "watching"
        owner.kill()
        owner.wait(10)
        assert child.wait(timeout=5) == 1
