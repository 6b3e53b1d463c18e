"""Diff mutation's I/O (SCORING.md 2.4): which lines, which tests, one process per mutant.

:func:`mutation_plan` (before the runs) reads the change: every touched head line of a ``.py``
file outside the ``tests`` and ``ignore`` globs, its mutants (:mod:`.mutants`) or why it has none.
The first run records which tests executed those lines (:mod:`.recorder`, through
:func:`recorder_spec`). :func:`run_mutants` then runs each mutant against those tests (a line no
test executed during a test, such as a module-level table entry, takes the tests that executed its
file), each in a fresh ``python -P -m pytest -x`` process loading the mutant through
:mod:`.pytest_mutant`, with the first run's environment and a time limit of ten times those tests'
own duration plus one second, counted from the end of the process's collection.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_gate.git import Git
from oracle_gate.judge.mutation_policy import MutationPolicy
from oracle_gate.judge.policy import Policy
from oracle_gate.maps.pytest_options import NEUTRAL
from oracle_gate.score.mutation.mutants import Mutant, line_mutants
from oracle_gate.score.mutation.outcome import KILLED, NOT_RUN, SURVIVED, MutantResult, MutationSummary
from oracle_gate.score.mutation.settings import ENV_MUTANT, ENV_MUTANTS, FORKS_PLUGIN, MUTANT_PLUGIN

COLLECTION_SECONDS = 120.0  # a mutant's process start and collection, before its own limit starts
EXIT_SECONDS = 30.0  # from a mutant's finish event to its process's exit
PASSING = frozenset({"passed", "skipped", "xfailed", "xpassed"})


@dataclass(frozen=True)
class MutationPlan:
    policy: MutationPolicy
    mutants: tuple[Mutant, ...]
    arid: int
    unmutable: int
    edited: frozenset[str]  # live tests the change edits (their body, or their file deleted or renamed)


def mutation_plan(
    git: Git, parent: str, head: str, policy: Policy, live: frozenset[str], *, edited: Iterable[str] = ()
) -> MutationPlan | None:
    """What to mutate (None when the policy turns diff mutation off). ``edited``: tests the diff
    verdict found edited (those whose edited helpers it saw), joined with the ``live`` tests whose
    own body or file the change edits."""
    if policy.mutation.mode == "off":
        return None
    from oracle_gate.check import read_changes
    from oracle_gate.judge.observer_rules import edited_tests, parse_parent_files

    changes = read_changes(git, parent, head)
    own = edited_tests(sorted(live), changes, parse_parent_files(changes), {}, policy.test_files())
    tests, ignored = policy.test_files(), policy.ignored()
    mutants: list[Mutant] = []
    arid = unmutable = 0
    for change in changes.files:
        path = change.new_path
        if path is None or not path.endswith(".py") or path in tests or path in ignored or not change.added:
            continue
        source = (change.new_blob or b"").decode("utf-8", "replace")
        lines = sorted({a.number for a in change.added})
        for found in line_mutants(source, path, lines, policy.mutation.mutants_per_line):
            arid += found.arid
            unmutable += not found.arid and not found.mutants
            mutants += found.mutants
    return MutationPlan(policy.mutation, tuple(mutants), arid, unmutable, frozenset(own) | frozenset(edited))


def recorder_spec(plan: MutationPlan, tree: Path, scratch: Path) -> Path:
    """The first run's line-recorder settings: the mutated lines by absolute path, where to write."""
    lines: dict[str, set[int]] = {}
    for mutant in plan.mutants:
        lines.setdefault(str(tree / mutant.path), set()).add(mutant.line)
    spec = {"lines": {p: sorted(n) for p, n in lines.items()}, "out": str(scratch / "lines.json")}
    path = scratch / "lines-spec.json"
    path.write_text(json.dumps(spec), "utf-8")
    return path


def recorded(scratch: Path) -> dict[str, Any]:
    try:
        doc = json.loads((scratch / "lines.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


@dataclass(frozen=True)
class MutantRunSetup:
    tree: Path
    scratch: Path
    python: str
    env: Mapping[str, str]  # the first run's environment, without the score plugin's settings
    deadline: float  # the score's own wall-clock deadline (monotonic)


def tests_for(mutant: Mutant, tree: Path, record: Mapping[str, Any], live: frozenset[str]) -> tuple[str, ...]:
    """The live tests that executed the mutant's line; a line no test executed (an import-time
    line) takes the live tests that executed any line of its file."""
    key = str(tree / mutant.path)
    by_line = ((record.get("lines") or {}).get(key) or {}).get(str(mutant.line)) or []
    chosen = [t for t in by_line if t in live]
    if not chosen:
        chosen = [t for t in (record.get("files") or {}).get(key) or [] if t in live]
    return tuple(sorted(set(chosen)))


def live_for_mutation(live: frozenset[str], plan: MutationPlan, harness: frozenset[str]) -> frozenset[str]:
    """Live tests that may judge a mutant: not edited by the change, not harness tests."""
    return frozenset(t for t in live if t not in plan.edited and t not in harness)


def run_mutants(
    plan: MutationPlan, setup: MutantRunSetup, record: Mapping[str, Any], live: frozenset[str]
) -> MutationSummary:
    """Every planned mutant run (or left unrun past a cap), in the plan's order."""
    started = time.monotonic()
    stop_at = min(setup.deadline, started + plan.policy.max_seconds)
    durations = record.get("durations") or {}
    chosen = [tests_for(mutant, setup.tree, record, live) for mutant in plan.mutants]
    limits = [10 * sum(float(durations.get(t, 0.0)) for t in tests) + 1.0 for tests in chosen]
    to_run = [n for n, tests in enumerate(chosen) if tests][: plan.policy.max_mutants]
    forked = run_forked([(n, plan.mutants[n], chosen[n], limits[n]) for n in to_run], setup, stop_at)
    results: list[MutantResult] = []
    for number, (mutant, tests) in enumerate(zip(plan.mutants, chosen, strict=True)):
        if not tests:
            results.append(_result(mutant, SURVIVED, "no live test executed its file", tests=tests))
        elif number not in to_run:
            results.append(
                _result(mutant, NOT_RUN, f"past max_mutants ({plan.policy.max_mutants})", tests=tests)
            )
        elif number in forked:
            results.append(_result(mutant, *forked[number], tests=tests))
        elif time.monotonic() >= stop_at:
            results.append(
                _result(mutant, NOT_RUN, f"past max_seconds ({plan.policy.max_seconds})", tests=tests)
            )
        else:
            status, detail = run_one(
                mutant, tests, setup, limit=limits[number], stop_at=stop_at, number=number
            )
            results.append(_result(mutant, status, detail, tests=tests))
    return MutationSummary(
        plan.policy.mode, tuple(results), plan.arid, plan.unmutable, time.monotonic() - started
    )


def _result(mutant: Mutant, status: str, detail: str = "", *, tests: tuple[str, ...]) -> MutantResult:
    return MutantResult(mutant.path, mutant.line, mutant.text, status, tests, detail)


def run_forked(
    jobs: list[tuple[int, Mutant, tuple[str, ...], float]], setup: MutantRunSetup, stop_at: float
) -> dict[int, tuple[str, str]]:
    """One pytest process over the union of the jobs' tests, each mutant in a fork after its
    collection (:mod:`.pytest_forks`): {mutant number: (status, why)} for those it could judge; the
    rest (a line that runs at import, a crashed fork, the process stopped) go to fresh processes."""
    if not jobs:
        return {}
    report = setup.scratch / "forks.jsonl"
    spec = {
        "report": str(report),
        "jobs": [
            {"number": n, "file": str(setup.tree / m.path), "line": m.line, "ordinal": m.ordinal}
            | {"tests": list(tests), "limit": limit}
            for n, m, tests, limit in jobs
        ],
    }
    spec_file = setup.scratch / "forks.json"
    spec_file.write_text(json.dumps(spec), "utf-8")
    union = sorted({t for _n, _m, tests, _l in jobs for t in tests})
    argv = [
        setup.python,
        "-P",
        "-m",
        "pytest",
        "-q",
        *NEUTRAL,
        "-p",
        FORKS_PLUGIN,
        "--",
        *union,
    ]
    with (setup.scratch / "forks.log").open("wb") as log:
        proc = subprocess.Popen(
            argv,
            cwd=setup.tree,
            env={**setup.env, ENV_MUTANTS: str(spec_file)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        collect_by = min(time.monotonic() + COLLECTION_SECONDS, stop_at)
        while proc.poll() is None:
            collected = bool(_events(report, "collected"))
            if time.monotonic() > (stop_at if collected else collect_by):
                _kill(proc)
                break
            time.sleep(0.05)
    out: dict[int, tuple[str, str]] = {}
    tests_of = {n: tests for n, _m, tests, _l in jobs}
    for event in _events(report, "result"):
        number, status = event.get("number"), event.get("status")
        if not isinstance(number, int) or number not in tests_of:
            continue
        if status == "timed_out":
            out[number] = (KILLED, "timed out")
        elif status == "ran":
            out[number] = judged(
                {"outcomes": event.get("outcomes"), "exit_status": 0, "loaded": True}, tests_of[number]
            )
    return out


def run_one(
    mutant: Mutant,
    tests: tuple[str, ...],
    setup: MutantRunSetup,
    *,
    limit: float,
    stop_at: float,
    number: int,
) -> tuple[str, str]:
    """One mutant in a fresh process: (status, why)."""
    report = setup.scratch / f"mutant{number}.jsonl"
    spec = {
        "file": str(setup.tree / mutant.path),
        "line": mutant.line,
        "ordinal": mutant.ordinal,
        "report": str(report),
    }
    env = {**setup.env, ENV_MUTANT: json.dumps(spec)}
    argv = [setup.python, "-P", "-m", "pytest", "-q", "-x", *NEUTRAL, "-p", MUTANT_PLUGIN]
    argv += ["--", *tests]
    with (setup.scratch / f"mutant{number}.log").open("wb") as log:
        proc = subprocess.Popen(
            argv,
            cwd=setup.tree,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        began = time.monotonic()
        deadline = min(began + COLLECTION_SECONDS, stop_at)
        collected = finished = False
        while proc.poll() is None:
            if not collected and _events(report, "collected"):
                collected = True
                deadline = min(time.monotonic() + limit, stop_at)
            if collected and not finished and _events(report, "finish"):
                finished = True  # the tests are done in time: the process may take a moment to exit
                deadline = max(deadline, time.monotonic() + EXIT_SECONDS)
            if time.monotonic() > deadline:
                _kill(proc)
                if time.monotonic() >= stop_at and not collected:
                    return NOT_RUN, f"past max_seconds ({int(stop_at - began)} s left)"
                return KILLED, f"timed out ({limit:.1f} s)"
            time.sleep(0.02)
    finish = _events(report, "finish")
    if len(finish) != 1:
        return KILLED, f"its run ended without a report (exit {proc.returncode})"
    return judged(finish[0], tests)


def judged(finish: Mapping[str, Any], tests: tuple[str, ...]) -> tuple[str, str]:
    """Killed when a test failed or errored, or pytest did not exit 0; survived when every test ran
    and passed with the mutant loaded."""
    outcomes = finish.get("outcomes") or {}
    failed = sorted(t for t, o in outcomes.items() if o not in PASSING)
    if failed:
        return KILLED, f"{failed[0]} {outcomes[failed[0]]}"
    if finish.get("exit_status") != 0:
        return KILLED, f"pytest exited {finish.get('exit_status')}"
    missing = [t for t in tests if t not in outcomes]
    if missing:
        return KILLED, f"{missing[0]} did not run"
    if not finish.get("loaded"):
        return SURVIVED, "the mutant was never loaded (its file is not imported through the import system)"
    return SURVIVED, f"{len(tests)} live test(s) passed"


def _events(path: Path, kind: str) -> list[dict[str, Any]]:
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        with suppress(ValueError, RecursionError):
            event = json.loads(line)
            if isinstance(event, dict) and event.get("event") == kind:
                out.append(event)
    return out


def _kill(proc: subprocess.Popen[bytes]) -> None:
    import signal

    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
