"""The I/O edge of ``oracle-gate score``: judge the diff, read the parent's facts, run head's tests
twice in a checkout of head, and hand everything to the pure decision (:mod:`oracle_gate.score.decide`).

Each run is one ``python -m pytest -p oracle_gate.score.pytest_score`` process in the head checkout, with
``PYTHONHASHSEED`` pinned (another seed for the second run), ``TZ=UTC`` and ``LC_ALL=C.UTF-8``; no
``ORACLE_GATE_*`` variable of the caller's reaches it (the map plugin stays inert). A run that is
killed at the wall-clock limit or reports nothing makes the score ``unscored``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from oracle_gate.check import CheckRequest, run_check
from oracle_gate.errors import UsageError
from oracle_gate.git import Git
from oracle_gate.judge.verdict import Outcome, Verdict
from oracle_gate.maps.inside.outcomes import OUTCOMES_KEY, SKIP_REASONS_KEY, plugin_set
from oracle_gate.maps.inside.pipe import PipeReader
from oracle_gate.maps.layout import src_layout_env
from oracle_gate.maps.pytest_options import NEUTRAL
from oracle_gate.maps.runner import RunReport
from oracle_gate.maps.testpaths import default_test_paths
from oracle_gate.score import settings as plug
from oracle_gate.score.decide import (
    HeadRun,
    ScoreResult,
    decide,
    from_diff_verdict,
    incomplete,
    rechecked_score,
)
from oracle_gate.score.mutation.outcome import with_mutation
from oracle_gate.score.mutation.run import mutation_stage, plan_for
from oracle_gate.score.mutation.settings import ENV_LINES
from oracle_gate.score.mutation.stage import recorder_spec
from oracle_gate.score.parent import ParentProblem, parent_side
from oracle_gate.score.rebound import rebound_entries, rebound_targets
from oracle_gate.score.tampering import Witnessed
from oracle_gate.score.witness import ENV_WITNESS, witnessed_outcomes

HASH_SEEDS = (1729, 4104)  # first run, second run
DEFAULT_WALL_SECONDS = 3600.0
Progress = Callable[[str, int, int | None], None]  # (phase, tests done, tests collected)


@dataclass(frozen=True)
class ScoreRequest:
    repo: Path
    base: str
    head: str
    coverage: Path
    tree: Path | None = None  # an existing checkout of head (the sandbox's); else a temporary worktree
    wall_seconds: float = DEFAULT_WALL_SECONDS
    python: str = sys.executable
    copy_ignored: tuple[str, ...] = ()  # git-ignored files the build writes, copied into head's worktree


def run_score(
    request: ScoreRequest, progress: Progress | None = None, *, judged: Verdict | None = None
) -> ScoreResult:
    """SCORING.md's Procedure: the diff verdict first; nothing runs unless it is ``pass_clean``.

    ``judged``: the diff verdict as the caller computed it itself (the bot, outside the sandbox;
    tests that exercise the runtime rules on a change a later contract's diff rules may already
    fail); it must be about the same (parent, head), else the gate cannot run.
    """
    started = time.monotonic()
    say = progress or (lambda phase, done, total: None)
    say("diff verdict", 0, None)
    verdict = judged or run_check(
        CheckRequest(repo=request.repo, base=request.base, head=request.head, coverage=request.coverage)
    )
    if judged is not None:
        _same_pair(Git(request.repo), request, judged)
    if verdict.verdict != Outcome.PASS_CLEAN:
        score = from_diff_verdict(verdict.verdict, [(r.code.value, r.detail) for r in verdict.reasons])
        return ScoreResult(score, verdict, verdict.parent, verdict.head)
    git = Git(request.repo)
    side = parent_side(git, verdict.parent, verdict.head, request.coverage)
    if isinstance(side, ParentProblem):
        return ScoreResult(incomplete(side.problem), verdict, verdict.parent, verdict.head, side.digest)
    parent_run, digest, live, oracle = side.run, side.digest, side.live, side.oracle
    freeze_bytes = git.read_blob(verdict.parent, oracle.policy.freeze)
    plan = plan_for(git, verdict, oracle.policy, live)
    runs: list[HeadRun] = []
    seconds: dict[str, float] = {"diff": round(time.monotonic() - started, 3)}
    with tempfile.TemporaryDirectory(prefix="oracle-gate-score-") as tmp, ExitStack() as stack:
        scratch = Path(tmp)
        tree = request.tree or stack.enter_context(git.worktree(verdict.head, scratch))
        if request.copy_ignored:
            from oracle_gate.maps.ignored_files import copy_ignored

            copy_ignored(git, verdict.head, tree, request.copy_ignored)
        setup = RunSetup(
            tree=tree,
            scratch=scratch,
            python=request.python,
            harness=list(oracle.policy.harness),
            freeze=_write(scratch / "freeze.json", freeze_bytes) if freeze_bytes is not None else None,
            parent_ids=_write(scratch / "parent_ids.json", json.dumps(sorted(parent_run.outcomes)).encode()),
            deadline=started + request.wall_seconds,
            paths=default_test_paths(git, verdict.parent, oracle.policy.harness).paths,
            tests=tuple(oracle.policy.tests),
        )
        if plan is not None:
            setup = replace(setup, lines_spec=recorder_spec(plan, tree, scratch))
        for index, label in enumerate(("first", "second")):
            say(f"{label} run", 0, None)
            run_started = time.monotonic()
            run = run_once(setup, index, label, _phase_progress(say, f"{label} run"))
            seconds[label] = round(time.monotonic() - run_started, 3)
            runs.append(run)
            if not run.collected:
                _refuse_missing_ignored(git, verdict.head, setup.scratch / f"run{index + 1}.log")
            if run.problem or run.leaked or run.harness_stopped:
                break  # a run that stops the score: a second one would not change it
        say("compare", 0, None)
        score = decide(parent_run, live, tuple(runs))
        targets = rebound_targets(entry for run in runs for entry in run.rebound)
        if targets:  # v2 2.2: the diff verdict again, with the rebound definitions touched
            again = CheckRequest(
                repo=request.repo,
                base=verdict.parent,
                head=verdict.head,
                coverage=request.coverage,
                rebound=targets,
            )
            score = rechecked_score(score, run_check(again))
        mutation = None
        if plan is not None and score.score == Outcome.PASS_CLEAN:
            say("mutation", 0, len(plan.mutants))
            mutation = mutation_stage(plan, setup, run_env(setup, 0, scratch / "unused.jsonl"), runs[0], live)
            seconds["mutation"] = round(mutation.seconds, 3)
            score = with_mutation(score, mutation)
    seconds["total"] = round(time.monotonic() - started, 3)
    return ScoreResult(
        score, verdict, verdict.parent, verdict.head, digest, parent_run, tuple(runs), seconds, mutation
    )


def _refuse_missing_ignored(git: Git, head: str, log: Path) -> None:
    """Head's run collected nothing because a module git ignores is missing from the worktree (a
    build-written ``_version.py``): that is the checkout's, not the change's, so the score is not
    ``fail`` but a one-line refusal naming the file and ``--copy-ignored`` (issue 28)."""
    from oracle_gate.maps.ignored_files import ignored_module_cause

    try:
        tail = log.read_text(encoding="utf-8", errors="replace")[-20_000:]
    except OSError:
        return
    cause = ignored_module_cause(git, head, tail)
    if cause is not None:
        raise UsageError(f"head's tests could not be collected: {cause}")


def _same_pair(git: Git, request: ScoreRequest, verdict: Verdict) -> None:
    if (git.commit(request.base), git.commit(request.head)) != (verdict.parent, verdict.head):
        raise UsageError("the given diff verdict is about another (parent, head) pair")


def _phase_progress(say: Progress, phase: str) -> Callable[[int, int | None], None]:
    return lambda done, total: say(phase, done, total)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@dataclass(frozen=True)
class RunSetup:
    tree: Path
    scratch: Path
    python: str
    harness: list[str]
    freeze: Path | None
    parent_ids: Path
    deadline: float
    # The test paths the map's default command runs where the parent's configuration names no
    # testpaths (oracle_gate.maps.testpaths): head's runs collect what the parent's map ran.
    paths: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()  # the policy's tests globs: modules 2.2 does not watch
    lines_spec: Path | None = None  # 2.4: the first run records which tests execute these lines


def run_env(
    setup: RunSetup, index: int, report: Path, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The run's environment: the caller's without ``ORACLE_GATE_*``, coverage and pytest settings
    and without anything named like a secret (TRUST.md 9: head's tests never get a token), plus the
    pinned determinism and the score plugin's settings."""
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if not k.startswith(("ORACLE_GATE_", "COVERAGE_", "PYTEST_ADDOPTS", "PYTEST_PLUGINS"))
        and not looks_secret(k)
    }
    env.update(
        {
            "PYTHONHASHSEED": str(HASH_SEEDS[index]),
            "TZ": "UTC",
            "LC_ALL": "C.UTF-8",
            plug.ENV_REPORT: str(report),
            plug.ENV_HARNESS: json.dumps(setup.harness),
            plug.ENV_PARENT_IDS: str(setup.parent_ids),
            plug.ENV_REVERSE: "1" if index == 1 else "0",
            plug.ENV_WATCH_EXCLUDE: json.dumps([*setup.tests, *setup.harness]),
        }
    )
    if setup.freeze is not None:
        env[plug.ENV_FREEZE] = str(setup.freeze)
    if setup.lines_spec is not None and index == 0:
        env[ENV_LINES] = str(setup.lines_spec)
    # as ``map`` measured the parent: a src layout's package first on the path, not an installed copy
    return src_layout_env(env, setup.tree)


SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PRIVATE", "CREDENTIAL", "API_KEY")


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS) or upper.endswith("_KEY")


def run_once(setup: RunSetup, index: int, label: str, progress: Callable[[int, int | None], None]) -> HeadRun:
    """One pytest process over head's tests; its report read back as a :class:`HeadRun`."""
    report_path, log_path = setup.scratch / f"run{index + 1}.jsonl", setup.scratch / f"run{index + 1}.log"
    # -P: the checkout is not put first on sys.path, so a head module named like the standard
    # library, pytest or an installed package (a root ``pytest.py``) cannot replace it; the plugin
    # appends the checkout (and its src/) at the end instead, where its own modules still import.
    argv = [setup.python, "-P", "-m", "pytest", "-q", *NEUTRAL, "-p", plug.PLUGIN_MODULE]
    argv += setup.paths
    report = RunReport()
    read_end, write_end = os.pipe()  # v2 2.3: the second witness's pipe (its write end: the child's only)
    env = {**run_env(setup, index, report_path), ENV_WITNESS: str(write_end)}
    with log_path.open("wb") as log:
        try:
            proc = subprocess.Popen(
                argv,
                cwd=setup.tree,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(write_end,),
            )
        except OSError as exc:
            os.close(read_end)
            return HeadRun(label, problem=f"cannot run pytest ({exc.strerror or exc})")
        finally:
            os.close(write_end)
        witness = PipeReader(read_end, "oracle-gate-witness")
        while True:
            try:
                proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                report.poll(report_path)
                progress(report.done, report.selected)
                if time.monotonic() > setup.deadline:
                    _kill(proc)
                    return HeadRun(label, problem="the wall-clock limit was reached; the run was killed")
    report.poll(report_path)
    finishes = _finish_events(report_path)
    if finishes != 1:
        return HeadRun(
            label, problem=f"the run's report holds {finishes} finish events: something else wrote to it"
        )
    run = head_run(label, report.finish, proc.returncode, _tail(log_path))
    return with_witness(run, witness.data(), proc.returncode)


def with_witness(run: HeadRun, data: bytes | None, returncode: int) -> HeadRun:
    """The run with what its second witness and the operating system saw (v2 2.3)."""
    if run.problem is not None:
        return run
    if data is None:
        why = (
            "the second witness's pipe stayed open after pytest exited (a process the tests started holds it)"
        )
        return replace(run, problem=why)
    outcomes, exit_status, unreadable = witnessed_outcomes(data)
    return replace(run, witnessed=Witnessed(outcomes, exit_status, returncode, unreadable))


def _finish_events(path: Path) -> int:
    """How many ``finish`` events the report holds (the plugin writes exactly one; head's code,
    which runs in the same process, could append a forged one)."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return 0
    count = 0
    for line in lines:
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        count += isinstance(event, dict) and event.get("event") == "finish"
    return count


def _kill(proc: subprocess.Popen[bytes]) -> None:
    import signal

    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def head_run(label: str, finish: Mapping[str, Any] | None, exit_status: int, tail: str = "") -> HeadRun:
    """A run's ``finish`` event as a :class:`HeadRun` (a missing or malformed one is a problem)."""
    if not finish:
        return HeadRun(
            label, problem=f"pytest exited {exit_status} without the score plugin's report ({tail[-300:]})"
        )
    outcomes = finish.get(OUTCOMES_KEY)
    if not isinstance(outcomes, dict):
        return HeadRun(label, problem="the score plugin's report has no outcomes")
    return HeadRun(
        label=label,
        outcomes={str(k): str(v) for k, v in outcomes.items()},
        reasons={str(k): str(v) for k, v in (finish.get(SKIP_REASONS_KEY) or {}).items()},
        plugins=plugin_set(finish.get("plugins") or []),
        collected=tuple(str(t) for t in finish.get("collected") or ()),
        harness=frozenset(str(t) for t in finish.get("harness") or ()),
        harness_stopped=bool(finish.get("harness_stopped")),
        leaked=tuple(str(t) for t in finish.get("leaked") or ()),
        exit_status=_int_or_none(finish.get("exit_status")),
        rebound=rebound_entries(finish.get("rebound")),
    )


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
