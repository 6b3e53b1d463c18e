"""``oracle-gate map``: the parent's per-test coverage map, bound to its commit.

:func:`build_map` checks the commit out into a temporary ``git worktree`` (the
user's working tree, index and HEAD are never touched), runs the test command
there with coverage.py writing one context per test phase, and writes the data
file plus its manifest (:class:`oracle_gate.maps.reader.manifest.Manifest`): the full SHA,
the sha256 of the data file, the coverage.py version, the command, whether the
parent's tests passed. :func:`oracle_gate.maps.combine.combine_maps` merges shard maps measured at the
same commit. Both write through a temporary file and a rename, so a good map
is never replaced by a half-written or failed one.

The map stores repo-relative paths: every measured file under the worktree is rewritten relative to its root,
so a map made on one runner reads the same on another. The plugin's own collector measures: ``sys.monitoring``
on CPython 3.12+ (:mod:`oracle_gate.maps.inside.collector`), coverage.py's C tracer before
(:mod:`oracle_gate.maps.inside.trace_collector`; which one, and the fallbacks to pytest-cov:
:mod:`oracle_gate.maps.choice`).
When coverage.py measures, the test command runs with ``COVERAGE_CORE=ctrace``: on Python 3.14+
coverage.py would otherwise pick ``sysmon``, which cannot switch contexts per
test and silently records incomplete per-test data. The package's pytest
plugin (:mod:`oracle_gate.maps.inside.pytest_plugin`) is told through ``ORACLE_GATE_*``
variables that it runs for a map: frozen tests are *run* (the map must record
what they observe), the shard filter applies, and it reports progress and the
final counts; without it (a non-pytest command, plugin autoload off) the map is
still made, counted from its contexts.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from oracle_gate import __version__
from oracle_gate.git import Git
from oracle_gate.judge.freeze import Freeze
from oracle_gate.maps.choice import chosen_collector, collector_fields, coverage_py_reason, map_command
from oracle_gate.maps.combine import combine_maps
from oracle_gate.maps.hints import EXIT_NO_TESTS, EXIT_TESTS_FAILED, no_map_cause
from oracle_gate.maps.ignored_files import copy_ignored, ignored_module_cause
from oracle_gate.maps.inside.outcomes import run_facts
from oracle_gate.maps.inside.shards import COVERAGE_COLLECTOR, ENV_FREEZE, GATE_COLLECTORS
from oracle_gate.maps.layout import interpreter_first_on_path, src_layout_env
from oracle_gate.maps.mapfile import (
    MAX_LISTED,
    MapError,
    MapResult,
    map_test_ids,
    merge_parts,
    now,
    publish_map,
)
from oracle_gate.maps.pytest_options import randomly_note
from oracle_gate.maps.reader.manifest import Manifest, manifest_beside
from oracle_gate.maps.reader.provenance import Producer
from oracle_gate.maps.reader.sqlite_map import SqliteCoverageMap
from oracle_gate.maps.relocate import relocated_copy
from oracle_gate.maps.repeat import repeat_runs, unstable_observations
from oracle_gate.maps.runner import (
    DATA_DIR,
    RAW_NAME,
    REPORT_FILE,
    Progress,
    Run,
    Runner,
    child_env,
    default_command,
    measurer_env,
)
from oracle_gate.maps.testpaths import DefaultPaths, default_test_paths
from oracle_gate.oracle_files import read_oracle

# Importers (the Action, the CLI) name these through this module.
__all__ = ["MapError", "MapResult", "build_map", "combine_maps", "default_command"]


def note_on_stderr(line: str) -> None:
    """The default for ``build_map``'s ``note``: one line on stderr (the Action's log, a terminal)."""
    print(f"oracle-gate map: {line}", file=sys.stderr, flush=True)


def build_map(
    git: Git,
    rev: str,
    out: Path,
    command: Sequence[str] | None = None,
    *,
    shard: tuple[int, int] | None = None,
    progress: Progress | None = None,
    show_output: bool = False,
    poll_seconds: float = 0.2,
    producer: Producer | None = None,
    note: Callable[[str], None] = note_on_stderr,
    copy_ignored_paths: Sequence[str] = (),
    repeat: int = 1,
) -> MapResult:
    """Measure the per-test coverage of ``rev`` and write ``out`` plus ``out.manifest.json``.

    Raises :class:`MapError` (or another :class:`GateError`) when no map can be
    made; a parent whose tests fail still gets a map, with ``tests_passed``
    false, which ``check`` refuses unless told ``--allow-failing-parent``.
    This is the function the Action calls for its ``coverage-command`` input. ``producer`` is the GitHub
    Actions run building the map (``oracle-gate map`` passes ``Producer.from_environ``), which readers of the
    map check before trusting it (:mod:`oracle_gate.maps.reader.provenance`). ``copy_ignored_paths``:
    git-ignored files of the checkout the build writes (``_version.py``), copied into the worktree
    (:mod:`oracle_gate.maps.ignored_files`). ``note`` prints one line (why coverage.py measures). ``repeat``:
    run the tests that many times, the map the union, what differed recorded (:mod:`oracle_gate.maps.repeat`).
    """
    git.check_repository()
    sha = git.commit(rev)
    collector = chosen_collector(command)
    why = coverage_py_reason(command)
    if why is not None:
        note(f"measuring with coverage.py: {why}")
    oracle = read_oracle(git, sha, check_bound=False)  # which tests are frozen; check judges bindings
    default_paths = DefaultPaths() if command else default_test_paths(git, sha, oracle.policy.harness)
    if default_paths.note is not None:
        note(default_paths.note)
    if not command and (switched_off := randomly_note()) is not None:
        note(switched_off)
    argv = [*map_command(command, collector), *default_paths.paths]
    freeze, freeze_path = oracle.freeze, oracle.policy.freeze
    started = time.monotonic()
    unstable: dict[str, dict[str, list[int]]] | None = None
    with tempfile.TemporaryDirectory(prefix="oracle-gate-map-") as tmp:
        scratch = Path(tmp)
        built = scratch / "map.coverage"
        with git.worktree(sha, scratch) as tree:
            copy_ignored(git, sha, tree, copy_ignored_paths)
            env = interpreter_first_on_path(
                child_env(scratch / DATA_DIR / RAW_NAME, scratch / REPORT_FILE, shard)
            )
            if not command:
                env = src_layout_env(env, tree)
            if freeze.entries and (tree / freeze_path).is_file():
                env[ENV_FREEZE] = str(tree / freeze_path)
            env = measurer_env(env, scratch, collector)
            runner = Runner(argv, tree, env, scratch, show_output, progress, poll_seconds)
            run = runner.run()
            if collector != COVERAGE_COLLECTOR and run.report.refused is not None:
                note(f"measuring with coverage.py: the collector cannot follow {run.report.refused}")
                collector = COVERAGE_COLLECTOR
                argv = [*map_command(command, COVERAGE_COLLECTOR), *default_paths.paths]
                (scratch / REPORT_FILE).unlink()
                env = measurer_env(env, scratch, collector)
                run = replace(runner, argv=argv, env=env).run()
            _refuse_tampered(run, sha)
            outside = _collect(
                run,
                scratch / DATA_DIR,
                built,
                tree,
                sha=sha,
                shard=shard,
                argv=argv,
                collector=collector,
                git=git,
            )
            if repeat > 1:

                def collect_one(again: Run, data_dir: Path, target: Path) -> object:
                    return _collect(
                        again, data_dir, target, tree, sha=sha, shard=shard, argv=argv, collector=collector
                    )

                repeats = repeat_runs(replace(runner, argv=argv, env=env), repeat, collect_one, sha)
                unstable = unstable_observations([built, *repeats])
                _union(built, repeats, tree)
        outcome = _judge(run, built, sha, shard, freeze, argv=argv, collector=collector, git=git)
        seconds = time.monotonic() - started
        manifest = Manifest(
            path=manifest_beside(out),
            data=out,
            sha=sha,
            data_sha256="",
            coverage_version=_coverage_version(run.finish),
            command=tuple(argv),
            tests_passed=outcome.passed,
            tests=outcome.tests,
            exit_status=run.exit_status,
            shard=shard,
            tests_ran=tests_ran(run.finish),
            producer=producer,
            extra={
                **frozen_seen(run.finish),
                "created": now(),
                "gate_version": __version__,
                "seconds": round(seconds, 3),
                "frozen_run": outcome.frozen_run,
                "failed": list(outcome.failed[:MAX_LISTED]),
                "frozen_failed": list(outcome.frozen_failed[:MAX_LISTED]),
                "coverage_core": run.finish.get("coverage_core"),
                "outside_worktree": outside[:MAX_LISTED],
                **collector_fields(run.finish, collector),
                **run_facts(run.finish),
                **repeat_fields(repeat, unstable),
            },
        )
        publish_map(built, manifest)
    return MapResult(
        data=out,
        manifest=manifest.path,
        sha=sha,
        tests=outcome.tests,
        tests_passed=outcome.passed,
        exit_status=run.exit_status,
        failed=outcome.failed,
        frozen_failed=outcome.frozen_failed,
        frozen_run=outcome.frozen_run,
        shard=shard,
        seconds=seconds,
        warnings=_outside_warning(outside),
        output_tail="" if outcome.passed else run.tail,
    )


def repeat_fields(repeat: int, unstable: dict[str, dict[str, list[int]]] | None) -> dict[str, Any]:
    """v3.4: the manifest's repeat count, and (from two runs on) what differed between runs."""
    return {"repeat": repeat} if unstable is None else {"repeat": repeat, "unstable": unstable}


def _union(built: Path, repeats: Sequence[Path], tree: Path) -> None:
    """``built`` becomes the union of itself and the repeats' maps (all repo-relative already)."""
    union = built.with_name("union.coverage")
    _merge([built, *repeats], union, tree)
    os.replace(union, built)


def _refuse_tampered(run: Run, sha: str) -> None:
    """A test switched the measurement off (:mod:`oracle_gate.maps.inside.guard`): whatever was written, no
    map."""
    if run.report.tampered is not None:
        raise MapError(
            f"{sha[:12]}: no map: the measurement was switched off by the code under test: "
            f"{run.report.tampered}; a map measured after that cannot say what the tests observe",
            run.tail,
        )


def tests_ran(finish: dict[str, Any]) -> tuple[str, ...] | None:
    """v2: every test id the run executed (also those that measured no line), from the plugin's
    report; None when the report did not say (a run that never finished)."""
    ran = finish.get("ran")
    return tuple(sorted(str(t) for t in ran)) if isinstance(ran, list) else None


def frozen_seen(finish: dict[str, Any]) -> dict[str, Any]:
    """v2: which frozen tests ran for the map and which were deselected (by ``-k``, ``-m``, ...)."""
    ran, deselected = finish.get("frozen", []), finish.get("frozen_deselected", [])
    return {"frozen": {"ran": sorted(map(str, ran)), "deselected": sorted(map(str, deselected))}}


@dataclass(frozen=True)
class _Outcome:
    tests: int
    passed: bool
    failed: tuple[str, ...]
    frozen_failed: tuple[str, ...]
    frozen_run: int


def _empty_shard(run: Run, shard: tuple[int, int] | None) -> bool:
    """A shard the file hash left without tests: a legitimate, empty part of the map."""
    return shard is not None and run.report.selected == 0 and run.exit_status in (0, EXIT_NO_TESTS)


def _collect(
    run: Run,
    raw_dir: Path,
    built: Path,
    tree: Path,
    *,
    sha: str,
    shard: tuple[int, int] | None,
    argv: Sequence[str],
    collector: str = COVERAGE_COLLECTOR,
    git: Git | None = None,
) -> list[str]:
    """Merge what the run wrote into ``built``; the measured paths outside the tree are returned."""
    errors = run.report.policy_errors
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise MapError(f"{sha[:12]}: freeze policy error: {errors[0]}{more}", run.tail)
    raw_files = sorted(p for p in raw_dir.iterdir() if p.name.startswith(RAW_NAME))
    if not raw_files and not _empty_shard(run, shard):
        _raise_cause(run, sha, argv, collector, git)
        raise MapError(
            f"{sha[:12]}: the test command wrote no coverage data (exit status {run.exit_status}); "
            "it must run pytest with --cov --cov-context=test (or coverage run -m pytest --oracle-contexts)",
            run.tail,
        )
    if run.finish.get("collector") in GATE_COLLECTORS:
        _refuse_unsealed(run, raw_files, sha)
        if len(raw_files) == 1:
            return _adopt(raw_files[0], built)
    return _merge(raw_files, built, tree)


def _refuse_unsealed(run: Run, raw_files: Sequence[Path], sha: str) -> None:
    """v2 2.5: the collector's data must be exactly what it sealed (:mod:`oracle_gate.maps.inside.seal`)."""
    from oracle_gate.maps.inside.seal import seal_problem

    problem = seal_problem(raw_files, run.seals)
    if problem is not None:
        raise MapError(f"{sha[:12]}: no map: {problem}", run.tail)


def _judge(
    run: Run,
    built: Path,
    sha: str,
    shard: tuple[int, int] | None,
    freeze: Freeze,
    *,
    argv: Sequence[str],
    collector: str = COVERAGE_COLLECTOR,
    git: Git | None = None,
) -> _Outcome:
    """Is the data a usable map, and did the parent's tests pass?"""
    empty_shard = _empty_shard(run, shard)
    test_ids = map_test_ids(built)
    if not test_ids and not empty_shard:
        _raise_cause(run, sha, argv, collector, git)
        raise MapError(
            f"{sha[:12]}: the coverage data has no test contexts (exit status {run.exit_status}); "
            "measure with pytest --cov --cov-context=test, or coverage run -m pytest --oracle-contexts",
            run.tail,
        )
    if run.finish.get("coverage_core") == "SysMonitor":
        raise MapError(
            f"{sha[:12]}: coverage.py measured with sys.monitoring, which cannot record per-test "
            "contexts (something overrode COVERAGE_CORE=ctrace)",
            run.tail,
        )
    if shard is not None and run.finish.get("shard") != list(shard):
        raise MapError(
            f"{sha[:12]}: shard {shard[0]}/{shard[1]} was asked for, but the oracle-gate pytest plugin "
            "did not apply it (is oracle-gate installed where the tests run, with plugin autoload on?)",
            run.tail,
        )
    failed = tuple(str(t) for t in run.finish.get("failed", []))
    frozen_failed = tuple(t for t in failed if freeze.is_frozen(t))
    passed = run.exit_status == 0 or (empty_shard and run.exit_status == EXIT_NO_TESTS)
    if run.exit_status == EXIT_TESTS_FAILED and failed and len(frozen_failed) == len(failed):
        passed = True  # only frozen (flaky) tests failed: expected, and not what the verdict rests on
    return _Outcome(
        tests=run.report.selected if run.report.selected is not None else len(test_ids),
        passed=passed,
        failed=tuple(t for t in failed if t not in frozen_failed),
        frozen_failed=frozen_failed,
        frozen_run=len(run.finish.get("frozen", [])),
    )


def _raise_cause(run: Run, sha: str, argv: Sequence[str], collector: str, git: Git | None = None) -> None:
    """Raise a :class:`MapError` naming why the run made no map, when its output shows it. With the
    gate's collector the plugin is the measurer: that it never started is then the cause. A module
    missing because git ignores its file (a build-written ``_version.py``) is named with the way out."""
    started = run.report.started if collector in GATE_COLLECTORS else None
    cause = no_map_cause(run.exit_status, run.tail, argv, plugin_started=started)
    if cause is not None and git is not None and run.exit_status != 0:
        cause = ignored_module_cause(git, sha, run.tail) or cause
    if cause is not None:
        raise MapError(f"{sha[:12]}: no map: {cause}", run.tail)


def _adopt(raw: Path, built: Path) -> list[str]:
    """The collector's one data file *is* the map: its paths are already repo-relative (measured
    files outside the worktree, named by the project's ``source``/``include``, stay absolute and are
    returned). Copying it skips a merge that costs seconds at a million test-line pairs, and reading
    it with sqlite3 keeps coverage.py (0.1 s to import) out of this process."""
    shutil.copyfile(raw, built)
    try:
        with closing(SqliteCoverageMap(built)) as reader:
            absolute = [path for path in reader.measured_files() if os.path.isabs(path)]
            return sorted(path for path in absolute if not is_the_gates_own(path))
    except sqlite3.Error as exc:
        raise MapError(f"cannot read the coverage data the test command wrote: {exc}") from exc


def _coverage_version(finish: dict[str, Any]) -> str | None:
    """The coverage.py version the plugin reported, else the one installed here."""
    reported = finish.get("coverage_version")
    return str(reported) if reported else installed_coverage_version()


def installed_coverage_version() -> str | None:
    """coverage.py's version as installed here, without importing it (the plugin's report says
    which one measured; this is for a run that did not report). Imported here: importlib.metadata
    costs ``map`` some 30 ms of start-up, and the plugin's report names the version in every run."""
    import importlib.metadata

    try:
        return importlib.metadata.version("coverage")
    except importlib.metadata.PackageNotFoundError:
        return None


def _merge(raw_files: Sequence[Path], built: Path, tree: Path) -> list[str]:
    """Merge the run's data files into ``built`` with repo-relative paths; returns paths outside the tree.
    One file (pytest-cov combined its run already) is relocated with SQL, not merged again
    (:mod:`oracle_gate.maps.relocate`); coverage.py merges only what that cannot."""
    roots = [str(tree) + os.sep, str(tree.resolve()) + os.sep]
    if len(raw_files) == 1:
        relocated = relocated_copy(raw_files[0], built, roots, is_the_gates_own)
        if relocated is not None:
            return relocated
    outside: set[str] = set()

    def relative(path: str) -> str:
        for root in roots:
            if path.startswith(root):
                return Path(path[len(root) :]).as_posix()
        if os.path.isabs(path):
            outside.add(path)
        return path

    from coverage import CoverageData
    from coverage.exceptions import CoverageException

    merged = CoverageData(basename=str(built))
    try:
        merge_parts(merged, raw_files, relative)
        # The gate's own plugin runs inside the tests' contexts and, from an editable install, is
        # measured too: it is the measuring tool, not the parent's code, so it is left out.
        own = sorted(path for path in outside if is_the_gates_own(path))
        if own:
            merged.purge_files(own)
        merged.close()
    except (CoverageException, sqlite3.Error) as exc:
        raise MapError(f"cannot read the coverage data the test command wrote: {exc}") from exc
    return sorted(outside - set(own))


GATE_ROOT = str(Path(__file__).resolve().parents[1]) + os.sep


def is_the_gates_own(path: str) -> bool:
    """A file of the gate's own package (``gate/``, wherever it is installed: an editable install of
    the gate puts it in another checkout). The gate is the measuring tool, never the parent's code,
    so its files are no reason for the "outside the worktree" warning."""
    return os.path.realpath(path).startswith(GATE_ROOT) or path.startswith(GATE_ROOT)


def _outside_warning(outside: Sequence[str]) -> tuple[str, ...]:
    if not outside:
        return ()
    return (
        f"{len(outside)} measured file(s) lie outside the worktree (e.g. {outside[0]}): the tests imported "
        "code from another checkout or an installed copy (an editable install?), whose lines may differ "
        "from the parent's",
    )
