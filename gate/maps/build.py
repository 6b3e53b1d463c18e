"""``oracle-gate map``: the parent's per-test coverage map, bound to its commit.

:func:`build_map` checks the commit out into a temporary ``git worktree`` (the
user's working tree, index and HEAD are never touched), runs the test command
there with coverage.py writing one context per test phase, and writes the data
file plus its manifest (:class:`gate.maps.read.Manifest`): the full SHA,
the sha256 of the data file, the coverage.py version, the command, whether the
parent's tests passed. :func:`combine_maps` merges shard maps measured at the
same commit. Both write through a temporary file and a rename, so a good map
is never replaced by a half-written or failed one.

The map stores repo-relative paths: every measured file under the worktree is
rewritten relative to its root, so a map made on one runner reads the same on
another. The test command runs with ``COVERAGE_CORE=ctrace``: on Python 3.14+
coverage.py would otherwise pick ``sysmon``, which cannot switch contexts per
test and silently records incomplete per-test data. The package's pytest
plugin (:mod:`gate.maps.pytest_plugin`) is told through ``ORACLE_GATE_*``
variables that it runs for a map: frozen tests are *run* (the map must record
what they observe), the shard filter applies, and it reports progress and the
final counts; without it (a non-pytest command, plugin autoload off) the map is
still made, counted from its contexts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import coverage
from coverage import CoverageData
from coverage.exceptions import CoverageException

from gate import __version__
from gate.check import read_oracle
from gate.errors import GateError, InputError, UsageError
from gate.files import temporary_beside
from gate.git import Git
from gate.judge.freeze import Freeze
from gate.maps.read import MANIFEST_SUFFIX, Manifest, locate, read_manifest, test_id_of_context
from gate.maps.shards import ENV_FREEZE, ENV_MAP, ENV_REPORT, ENV_SHARD, parse_shard

DEFAULT_COMMAND = ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov", "--cov-context=test")
# pytest-cov's terminal report is not needed for a map and costs a pass over every measured file.
DEFAULT_REPORT_OFF = ("--cov-report=",)
EXIT_TESTS_FAILED = 1  # pytest: some tests failed
EXIT_NO_TESTS = 5  # pytest: no tests collected
MAX_LISTED = 50
TAIL_LINES = 30
SPINNER = "|/-\\"

Progress = Callable[[int, int | None, float], None]  # (tests done, tests selected or None, seconds)


class MapError(GateError):
    """A map could not be built or combined; nothing at the output path was replaced."""

    def __init__(self, message: str, output_tail: str = "") -> None:
        super().__init__(message)
        self.output_tail = output_tail


@dataclass(frozen=True)
class MapResult:
    """What :func:`build_map` or :func:`combine_maps` wrote."""

    data: Path
    manifest: Path
    sha: str
    tests: int
    tests_passed: bool
    exit_status: int | None = None
    failed: tuple[str, ...] = ()
    frozen_failed: tuple[str, ...] = ()
    frozen_run: int = 0
    shard: tuple[int, int] | None = None
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    output_tail: str = ""


def default_command(python: str = sys.executable) -> list[str]:
    """The default test command, run by ``python`` (the interpreter the gate runs under)."""
    return [python, *DEFAULT_COMMAND[1:], *DEFAULT_REPORT_OFF]


@dataclass
class RunReport:
    """What the pytest plugin reported through its JSON-lines file."""

    selected: int | None = None
    done: int = 0
    finish: dict[str, Any] | None = None
    policy_errors: list[str] = field(default_factory=list)
    _offset: int = 0

    def poll(self, path: Path) -> None:
        try:
            with path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except FileNotFoundError:
            return
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._offset += len(complete)
        for line in complete.decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            kind = event.get("event")
            if kind == "collected":
                self.selected = int(event.get("tests", 0))
            elif kind == "test":
                self.done += 1
            elif kind == "policy_error":
                self.policy_errors += [str(e) for e in event.get("errors", [])]
            elif kind == "finish":
                self.finish = event


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
) -> MapResult:
    """Measure the per-test coverage of ``rev`` and write ``out`` plus ``out.manifest.json``.

    Raises :class:`MapError` (or another :class:`GateError`) when no map can be
    made; a parent whose tests fail still gets a map, with ``tests_passed``
    false, which ``check`` refuses unless told ``--allow-failing-parent``.
    This is the function the Action calls for its ``coverage-command`` input.
    """
    git.check_repository()
    sha = git.commit(rev)
    argv = list(command) if command else default_command()
    oracle = read_oracle(git, sha)
    freeze, freeze_path = oracle.freeze, oracle.policy.freeze
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="oracle-gate-map-") as tmp:
        scratch = Path(tmp)
        built = scratch / "map.coverage"
        with git.worktree(sha, scratch) as tree:
            env = _child_env(scratch / "data" / "raw.coverage", scratch / "report.jsonl", shard)
            if freeze.entries and (tree / freeze_path).is_file():
                env[ENV_FREEZE] = str(tree / freeze_path)
            runner = _Runner(argv, tree, env, scratch, show_output, progress, poll_seconds)
            run = runner.run()
            outside = _collect(run, scratch / "data", built, tree, sha=sha, shard=shard)
        outcome = _judge(run, built, sha, shard, freeze)
        seconds = time.monotonic() - started
        manifest = Manifest(
            path=out.with_name(out.name + MANIFEST_SUFFIX),
            data=out,
            sha=sha,
            data_sha256="",
            coverage_version=str(run.finish.get("coverage_version") or coverage.__version__),
            command=tuple(argv),
            tests_passed=outcome.passed,
            tests=outcome.tests,
            exit_status=run.exit_status,
            shard=shard,
            extra={
                "created": _now(),
                "gate_version": __version__,
                "seconds": round(seconds, 3),
                "frozen_run": outcome.frozen_run,
                "failed": list(outcome.failed[:MAX_LISTED]),
                "frozen_failed": list(outcome.frozen_failed[:MAX_LISTED]),
                "coverage_core": run.finish.get("coverage_core"),
                "outside_worktree": outside[:MAX_LISTED],
            },
        )
        _publish(built, manifest)
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


@dataclass(frozen=True)
class _Run:
    exit_status: int
    report: RunReport
    tail: str

    @property
    def finish(self) -> dict[str, Any]:
        return self.report.finish or {}


@dataclass(frozen=True)
class _Outcome:
    tests: int
    passed: bool
    failed: tuple[str, ...]
    frozen_failed: tuple[str, ...]
    frozen_run: int


@dataclass(frozen=True)
class _Runner:
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    scratch: Path
    show_output: bool
    progress: Progress | None
    poll_seconds: float

    def run(self) -> _Run:
        """Run the command in the worktree; its output goes to a log unless shown."""
        report_path, log_path = self.scratch / "report.jsonl", self.scratch / "output.log"
        (self.scratch / "data").mkdir(exist_ok=True)
        report = RunReport()
        started = time.monotonic()
        with log_path.open("wb") as log:
            try:
                proc = subprocess.Popen(
                    list(self.argv),
                    cwd=self.cwd,
                    env=dict(self.env),
                    stdin=subprocess.DEVNULL,
                    stdout=None if self.show_output else log,
                    stderr=None if self.show_output else subprocess.STDOUT,
                )
            except OSError as exc:
                raise MapError(
                    f"cannot run the test command {self.argv[0]!r}: {exc.strerror or exc}"
                ) from exc
            try:
                while not _finished(proc, self.poll_seconds):
                    if self.progress is not None:
                        report.poll(report_path)
                        self.progress(report.done, report.selected, time.monotonic() - started)
            except BaseException:
                proc.kill()
                proc.wait()
                raise
        report.poll(report_path)
        return _Run(proc.returncode, report, _tail(log_path))


def _finished(proc: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def _empty_shard(run: _Run, shard: tuple[int, int] | None) -> bool:
    """A shard the file hash left without tests: a legitimate, empty part of the map."""
    return shard is not None and run.report.selected == 0 and run.exit_status in (0, EXIT_NO_TESTS)


def _collect(
    run: _Run, raw_dir: Path, built: Path, tree: Path, *, sha: str, shard: tuple[int, int] | None
) -> list[str]:
    """Merge what the run wrote into ``built``; the measured paths outside the tree are returned."""
    errors = run.report.policy_errors
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise MapError(f"{sha[:12]}: freeze policy error: {errors[0]}{more}", run.tail)
    raw_files = sorted(p for p in raw_dir.iterdir() if p.name.startswith("raw.coverage"))
    if not raw_files and not _empty_shard(run, shard):
        raise MapError(
            f"{sha[:12]}: the test command wrote no coverage data (exit status {run.exit_status}); "
            "it must run pytest with --cov --cov-context=test (or coverage run -m pytest --oracle-contexts)",
            run.tail,
        )
    return _merge(raw_files, built, tree)


def _judge(run: _Run, built: Path, sha: str, shard: tuple[int, int] | None, freeze: Freeze) -> _Outcome:
    """Is the data a usable map, and did the parent's tests pass?"""
    empty_shard = _empty_shard(run, shard)
    test_ids = _test_ids(built)
    if not test_ids and not empty_shard:
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


def combine_maps(inputs: Sequence[Path], out: Path) -> MapResult:
    """Merge maps measured at one commit (a full set of shards, whole maps, or both) into ``out``.

    Every input needs its manifest; the data must match its digest; all must
    name the same commit and coverage.py version; shards must form complete
    sets (1..N, each once), since a missing shard would silently drop tests.
    """
    if not inputs:
        raise MapError("--combine needs at least one map to merge")
    manifests = [_shard_manifest(path) for path in inputs]
    first = manifests[0]
    for m in manifests[1:]:
        if m.sha != first.sha:
            raise MapError(
                f"{m.path}: measured at {m.sha[:12]}, but {first.path} at {first.sha[:12]}; not combined"
            )
        if m.coverage_version != first.coverage_version:
            raise MapError(
                f"{m.path}: measured with coverage.py {m.coverage_version}, but {first.path} with "
                f"{first.coverage_version}; not combined"
            )
    _check_shard_sets(manifests)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="oracle-gate-combine-") as tmp:
        built = Path(tmp) / "map.coverage"
        merged = CoverageData(basename=str(built))
        try:
            merged.add_lines({})
            for m in manifests:
                part = CoverageData(basename=str(m.data), read_only=True)
                part.read()
                merged.update(part)
            merged.close()
        except (CoverageException, sqlite3.Error) as exc:
            raise MapError(f"cannot combine the maps: {exc}") from exc
        if not _test_ids(built):
            raise MapError("the combined map has no test contexts; nothing was written")
        tests = [m.tests for m in manifests]
        commands = {m.command for m in manifests}
        manifest = Manifest(
            path=out.with_name(out.name + MANIFEST_SUFFIX),
            data=out,
            sha=first.sha,
            data_sha256="",
            coverage_version=first.coverage_version,
            command=commands.pop() if len(commands) == 1 else (),
            tests_passed=all(m.tests_passed for m in manifests),
            tests=sum(t for t in tests if t is not None) if None not in tests else None,
            exit_status=None,
            shard=None,
            extra={
                "created": _now(),
                "gate_version": __version__,
                "combined": [
                    {
                        "data": m.data.name,
                        "data_sha256": m.data_sha256,
                        "shard": {"index": m.shard[0], "total": m.shard[1]} if m.shard else None,
                        "tests": m.tests,
                        "tests_passed": m.tests_passed,
                        "exit_status": m.exit_status,
                        "command": list(m.command),
                    }
                    for m in manifests
                ],
                "failed": sorted({str(t) for m in manifests for t in m.extra.get("failed", [])})[:MAX_LISTED],
            },
        )
        _publish(built, manifest)
    return MapResult(
        data=out,
        manifest=manifest.path,
        sha=first.sha,
        tests=manifest.tests or 0,
        tests_passed=manifest.tests_passed,
        seconds=time.monotonic() - started,
    )


# -- building blocks -------------------------------------------------------------------------------------


def _child_env(data_file: Path, report: Path, shard: tuple[int, int] | None) -> dict[str, str]:
    """The caller's environment, plus what makes the run write a map and talk to the plugin."""
    env = {k: v for k, v in os.environ.items() if k not in (ENV_FREEZE, ENV_SHARD, "COVERAGE_FILE")}
    env.update(
        {"COVERAGE_FILE": str(data_file), "COVERAGE_CORE": "ctrace", ENV_MAP: "1", ENV_REPORT: str(report)}
    )
    if shard is not None:
        env[ENV_SHARD] = f"{shard[0]}/{shard[1]}"
    return env


def _merge(raw_files: Sequence[Path], built: Path, tree: Path) -> list[str]:
    """Merge the run's data files into ``built`` with repo-relative paths; returns paths outside the tree."""
    roots = [str(tree) + os.sep, str(tree.resolve()) + os.sep]
    outside: set[str] = set()

    def relative(path: str) -> str:
        for root in roots:
            if path.startswith(root):
                return Path(path[len(root) :]).as_posix()
        if os.path.isabs(path):
            outside.add(path)
        return path

    merged = CoverageData(basename=str(built))
    try:
        merged.add_lines({})
        for raw in raw_files:
            part = CoverageData(basename=str(raw), read_only=True)
            part.read()
            merged.update(part, map_path=relative)
        # The gate's own plugin runs inside the tests' contexts and, from an editable install, is
        # measured too: it is the measuring tool, not the parent's code, so it is left out.
        tool = str(Path(__file__).resolve().parent) + os.sep
        own = sorted(path for path in outside if path.startswith(tool))
        if own:
            merged.purge_files(own)
        merged.close()
    except (CoverageException, sqlite3.Error) as exc:
        raise MapError(f"cannot read the coverage data the test command wrote: {exc}") from exc
    return sorted(outside - set(own))


def _test_ids(path: Path) -> set[str]:
    data = CoverageData(basename=str(path), read_only=True)
    try:
        data.read()
        return {t for t in map(test_id_of_context, data.measured_contexts()) if t}
    except (CoverageException, sqlite3.Error) as exc:
        raise MapError(f"{path}: not a usable coverage.py data file ({exc})") from exc
    finally:
        data.close()


def _outside_warning(outside: Sequence[str]) -> tuple[str, ...]:
    if not outside:
        return ()
    return (
        f"{len(outside)} measured file(s) lie outside the worktree (e.g. {outside[0]}): the tests imported "
        "code from another checkout or an installed copy (an editable install?), whose lines may differ "
        "from the parent's",
    )


def _publish(built: Path, manifest: Manifest) -> None:
    """Copy the data to its place and write the manifest, each through a temporary file and a rename."""
    out = manifest.data
    out.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(built.read_bytes()).hexdigest()
    with temporary_beside(out) as tmp:
        shutil.copyfile(built, tmp)
        os.replace(tmp, out)
    document = replace(manifest, data_sha256=digest).to_document()
    with temporary_beside(manifest.path) as tmp:
        tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, manifest.path)


def _shard_manifest(path: Path) -> Manifest:
    try:
        data, manifest = locate(path)
        if manifest is None:
            raise MapError(
                f"{path}: no map manifest beside it ({data.name}{MANIFEST_SUFFIX}); only maps made by "
                "'oracle-gate map' can be combined (the manifest says which commit they measured)"
            )
        manifest = read_manifest(manifest.path)
        raw = manifest.data.read_bytes()
    except InputError as exc:
        raise MapError(str(exc)) from exc
    except OSError as exc:
        raise MapError(f"{path}: cannot read the map data ({exc.strerror or exc})") from exc
    if hashlib.sha256(raw).hexdigest() != manifest.data_sha256:
        raise MapError(f"{manifest.data}: its sha256 does not match its manifest {manifest.path.name}")
    return manifest


def _check_shard_sets(manifests: Sequence[Manifest]) -> None:
    shards = [(m.shard, m.path) for m in manifests if m.shard is not None]
    totals = sorted({total for (_, total), _ in shards})
    if len(totals) > 1:
        splits = ", ".join(f"N={n}" for n in totals)
        raise MapError(f"shards of different splits ({splits}); not combined")
    if not totals:
        return
    total = totals[0]
    seen: dict[int, Path] = {}
    for (index, _), path in shards:
        if index in seen:
            raise MapError(f"{path}: shard {index}/{total} given twice (also {seen[index]})")
        seen[index] = path
    missing = sorted(set(range(1, total + 1)) - set(seen))
    if missing:
        listed = ", ".join(f"{i}/{total}" for i in missing)
        raise MapError(f"shard(s) {listed} missing: a map without them would silently drop their tests")


def _tail(log_path: Path) -> str:
    try:
        lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-TAIL_LINES:])


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the command line ------------------------------------------------------------------------------------


class TerminalProgress:
    """A one-line progress indicator, redrawn in place; only for a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.spin = 0

    def __call__(self, done: int, total: int | None, seconds: float) -> None:
        clock = f"{int(seconds) // 60:02d}:{int(seconds) % 60:02d}"
        if total:
            width = 24
            filled = min(width, width * done // total)
            line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} tests  {clock}"
        else:
            self.spin += 1
            line = f"{SPINNER[self.spin % len(SPINNER)]} {done} tests  {clock}"
        self.stream.write(f"\r  {line}\033[K")
        self.stream.flush()

    def clear(self) -> None:
        self.stream.write("\r\033[K")
        self.stream.flush()


def run_map_cli(args: Any, say: Callable[[str], None]) -> int:
    """``oracle-gate map``: exit 0 map written, 1 map written but flagged (tests failed), 3 no map."""
    rest = list(args.args)
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if args.combine is not None:
        if args.sha or args.out or args.shard:
            raise UsageError("--combine OUT SHARD...: --sha, --out and --shard do not apply")
        return _combine_cli(args.combine, [Path(p) for p in rest], say)
    if not args.sha or not args.out:
        raise UsageError("map needs --sha REV and --out FILE (or --combine OUT SHARD...)")
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        raise UsageError(f"--shard: {exc}") from exc
    git = Git(args.repo)
    git.check_repository()
    sha = git.commit(args.sha)
    command = rest or None
    shown = " ".join(command or default_command())
    where = f" shard {shard[0]}/{shard[1]}" if shard else ""
    say(f"mapping {sha} ({args.sha}){where} in a temporary worktree: {shown}")
    use_bar = args.progress == "always" or (
        args.progress == "auto" and sys.stderr.isatty() and not args.verbose and not os.environ.get("CI")
    )
    bar = TerminalProgress(sys.stderr) if use_bar else None
    try:
        result = build_map(git, sha, args.out, command, shard=shard, progress=bar, show_output=args.verbose)
    except MapError as exc:
        if exc.output_tail and not args.verbose:
            print(_indent(exc.output_tail), file=sys.stderr)
        raise
    finally:
        if bar is not None:
            bar.clear()
    return _report_build(result, say, show_tail=not args.verbose)


def _combine_cli(out: Path, inputs: list[Path], say: Callable[[str], None]) -> int:
    result = combine_maps(inputs, out)
    say(
        f"combined {len(inputs)} map(s) measured at {result.sha[:12]}: {result.tests} tests; "
        f"wrote {result.data} and {result.manifest.name}"
    )
    if not result.tests_passed:
        say("warning: a combined map records failing parent tests; 'check' needs --allow-failing-parent")
    return 0 if result.tests_passed else 1


def _report_build(result: MapResult, say: Callable[[str], None], *, show_tail: bool) -> int:
    frozen = f", {result.frozen_run} frozen run for the map" if result.frozen_run else ""
    say(
        f"mapped {result.tests} tests{frozen} at {result.sha[:12]} in {result.seconds:.1f}s; "
        f"wrote {result.data} and {result.manifest.name}"
    )
    for warning in result.warnings:
        say(f"warning: {warning}")
    if result.frozen_failed:
        count = len(result.frozen_failed)
        say(f"note: {count} frozen test(s) failed (flaky, expected): {result.frozen_failed[0]}")
    if result.tests_passed:
        return 0
    if result.output_tail and show_tail:
        print(_indent(result.output_tail), file=sys.stderr)
    first = f" (first: {result.failed[0]})" if result.failed else ""
    say(
        f"warning: the parent's test run failed (exit status {result.exit_status}){first}; the map is "
        "flagged, and 'check' uses it only with --allow-failing-parent"
    )
    return 1


def _indent(text: str) -> str:
    return "\n".join(f"  | {line}" for line in text.splitlines())
