"""``oracle-gate map --repeat N``: run the parent's tests N times, and record what differed (contract v3.4).

A test that observes a line in one run and not in another (a retry loop, a timing-dependent branch,
a cache warmed by whichever test ran first) would make that line live on the strength of an accident.
``map --repeat N`` runs the test command N times in the same worktree, each run writing its own data
and report; the map is the union of the runs (every observation a frozen test made counts), and the
manifest records the repeat count and, per test, the lines some runs observed and others did not:
``"unstable": {test id: {path: [lines]}}``, which ``check`` does not count for live tests (v3.4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from oracle_gate.maps.inside.shards import COVERAGE_COLLECTOR, ENV_COLLECTOR, ENV_REPORT
from oracle_gate.maps.mapfile import MapError
from oracle_gate.maps.reader.sqlite_map import SqliteCoverageMap
from oracle_gate.maps.runner import DATA_DIR, REPORT_FILE, Run, Runner, measurer_env

MAX_REPEAT = 20
Observations = dict[str, dict[str, set[int]]]  # test id -> repo-relative path -> lines
Unstable = dict[str, dict[str, list[int]]]


def parse_repeat(text: str) -> int:
    """``--repeat N``: 1 to 20, in ASCII digits."""
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_REPEAT:
        raise ValueError(f"--repeat {text!r}: give a whole number of runs from 1 to {MAX_REPEAT}")
    return int(text)


def repeat_runs(
    runner: Runner, times: int, collect: Callable[[Run, Path, Path], object], sha: str
) -> list[Path]:
    """Runs 2..``times`` of ``runner``'s command, each in its own scratch directory; ``collect(run,
    data_dir, built)`` makes each run's map. Returns those maps. A run that wrote no usable map stops
    ``map``: its observations cannot be compared."""
    built: list[Path] = []
    for index in range(2, times + 1):
        scratch = runner.scratch / f"repeat-{index}"
        scratch.mkdir()
        env = measurer_env(runner.env, scratch, runner.env.get(ENV_COLLECTOR, COVERAGE_COLLECTOR))
        env[ENV_REPORT] = str(scratch / REPORT_FILE)
        run = replace(runner, scratch=scratch, env=env).run()
        if run.report.tampered is not None:
            raise MapError(
                f"{sha[:12]}: no map: repeat {index}: the measurement was switched off: "
                f"{run.report.tampered}",
                run.tail,
            )
        out = scratch / "map.coverage"
        collect(run, scratch / DATA_DIR, out)
        built.append(out)
    return built


def observations(path: Path) -> Observations:
    """Every (test, file, line) of a map, by test id (a test's phases together)."""
    result: Observations = {}
    with closing(SqliteCoverageMap(path)) as reader:
        for measured in reader.measured_files():
            for line, tests in reader.tests_by_line(measured).items():
                for test in tests:
                    result.setdefault(test, {}).setdefault(measured, set()).add(line)
    return result


def unstable_observations(maps: Sequence[Path]) -> Unstable:
    """What some runs observed and others did not, by test id and path (sorted, for the manifest)."""
    runs = [observations(path) for path in maps]
    tests = sorted(set().union(*runs))
    unstable: Unstable = {}
    for test in tests:
        paths = sorted(set().union(*(run.get(test, {}) for run in runs)))
        for path in paths:
            seen = [run.get(test, {}).get(path, set()) for run in runs]
            differ = set().union(*seen) - seen[0].intersection(*seen[1:])
            if differ:
                unstable.setdefault(test, {})[path] = sorted(differ)
    return unstable


__all__ = ["parse_repeat", "repeat_runs", "unstable_observations"]
