"""``oracle-gate map``: measure the per-test coverage map of a commit (:mod:`oracle_gate.maps.build`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.options import REPO
from oracle_gate.commands.output import say
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sha", help="the commit to measure (any revision; the manifest records the full SHA)")
    p.add_argument(
        "--out",
        type=Path,
        help="the coverage data file to write, manifest beside it (default: outside the checkout, "
        "$ORACLE_GATE_MAPS/SHA.coverage or ~/.cache/oracle-gate/maps/SHA.coverage)",
    )
    p.add_argument("--shard", metavar="I/N", help="measure only shard I of N (tests split by file hash)")
    p.add_argument(
        "--combine",
        type=Path,
        metavar="OUT",
        help="merge the given shard maps into OUT (one SHA, one --repeat; their unstable observations kept)",
    )
    p.add_argument(
        "--repeat",
        metavar="N",
        help="run the tests N times (default 1); the manifest records what differed between runs as "
        "'unstable', which check does not count for live tests (contract v3.4); costs N test runs; "
        "every shard of one map needs the same N (--combine refuses a mix)",
    )
    p.add_argument(
        "--copy-ignored",
        action="append",
        metavar="PATH",
        help="copy this git-ignored file the build writes (e.g. src/pkg/_version.py) from the checkout "
        "into the map's worktree (repeatable)",
    )
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress: tests done of collected and the time elapsed (default auto: a live line on a "
        "terminal, else a line every 30 s; never: none)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="show the test command's own output")
    p.add_argument(
        "--previous",
        type=Path,
        metavar="MANIFEST",
        help="the manifest of the last map of the default branch: report frozen tests whose observed "
        "lines shrank by more than half while their files did not change, and live tests that "
        "disappeared",
    )
    p.add_argument(
        "--fail-on-drift",
        action="store_true",
        help="with --previous: drift (or drift that cannot be computed) makes the exit status 1; the map "
        "is still written and not flagged (it is a true map of the commit, and check uses it)",
    )
    p.add_argument(
        "args",
        nargs="*",
        metavar="COMMAND | SHARD",
        help="after --: the test command (default: python -m pytest -q -p no:cacheprovider -p no:randomly, "
        "measured by oracle-gate's collector: sys.monitoring on Python 3.12+, coverage.py's C tracer on "
        "3.11; when the coverage configuration needs coverage.py (plugins, patch, concurrency = "
        "multiprocessing, greenlets on 3.11): python -m pytest -q -p no:cacheprovider -p no:randomly --cov "
        "--cov-context=test --cov-report=); with --combine: the shard maps",
    )


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.maps.command import run_map_cli

    return ExitStatus(run_map_cli(args, say))


COMMAND = Subcommand(
    "map",
    help="measure the per-test coverage map of a commit, bound to its SHA",
    description="Check REV out into a temporary git worktree (never the working tree), run the "
    "test command there with one coverage context per test, and write FILE plus "
    "FILE.manifest.json binding it to the full SHA. With --combine, merge shard maps "
    "measured at one SHA instead. Exit 0 map written, 1 map written but the parent's "
    "tests failed (flagged: check uses it only with --allow-failing-parent) or, with "
    "--fail-on-drift, drift found (the map is written, not flagged), 3 no map.",
    usage="%(prog)s --repo DIR --sha REV [--out FILE] [--shard I/N] [--repeat N]\n"
    "       [--copy-ignored PATH] [--previous MANIFEST [--fail-on-drift]] [-- COMMAND ...]\n"
    "       %(prog)s --combine OUT SHARD [SHARD ...]",
    options=(REPO,),
    add_arguments=add_arguments,
    run=run,
)
