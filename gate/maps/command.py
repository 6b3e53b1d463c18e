"""The ``oracle-gate map`` command line: arguments, a progress bar for a terminal, what was written."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from oracle_gate.errors import InputError, UsageError
from oracle_gate.git import Git
from oracle_gate.maps.build import build_map
from oracle_gate.maps.choice import chosen_collector, map_command
from oracle_gate.maps.combine import combine_maps
from oracle_gate.maps.inside.shards import parse_shard
from oracle_gate.maps.layout import default_out
from oracle_gate.maps.mapfile import MapError, MapResult
from oracle_gate.maps.reader.provenance import Producer
from oracle_gate.maps.repeat import parse_repeat

SPINNER = "|/-\\"


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


class PeriodicProgress:
    """Progress for a log (CI, a pipe): one plain line every ``every`` seconds, never redrawn, so a
    long map shows it is alive and how far it got without flooding the log."""

    def __init__(self, stream: TextIO, every: float = 30.0) -> None:
        self.stream = stream
        self.every = every
        self.next_at = every

    def __call__(self, done: int, total: int | None, seconds: float) -> None:
        if seconds < self.next_at:
            return
        while self.next_at <= seconds:
            self.next_at += self.every
        clock = f"{int(seconds) // 60:02d}:{int(seconds) % 60:02d}"
        of = f"/{total}" if total else ""
        self.stream.write(f"oracle-gate: map: {done}{of} tests done, {clock} elapsed\n")
        self.stream.flush()

    def clear(self) -> None:
        """Nothing to clear: every line stays in the log."""


def choose_progress(
    mode: str, verbose: bool, stream: TextIO = sys.stderr
) -> TerminalProgress | PeriodicProgress | None:
    """A live line on a terminal; a line every 30 s otherwise (CI, a pipe, --verbose); none with never."""
    if mode == "never":
        return None
    live = mode == "always" or (stream.isatty() and not verbose and not os.environ.get("CI"))
    return TerminalProgress(stream) if live else PeriodicProgress(stream)


def run_map_cli(args: Any, say: Callable[[str], None]) -> int:
    """``oracle-gate map``: exit 0 map written, 1 map written but flagged (tests failed), 3 no map."""
    rest = list(args.args)
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if args.combine is not None:
        if (
            args.sha
            or args.out
            or args.shard
            or args.previous
            or getattr(args, "copy_ignored", None)
            or getattr(args, "repeat", None)
        ):
            raise UsageError(
                "--combine OUT SHARD...: --sha, --out, --shard, --previous, --repeat and --copy-ignored "
                "do not apply"
            )
        return _combine_cli(args.combine, [Path(p) for p in rest], say)
    if not args.sha:
        raise UsageError("map needs --sha REV [--out FILE] (or --combine OUT SHARD...)")
    if args.fail_on_drift and args.previous is None:
        raise UsageError("--fail-on-drift needs --previous MANIFEST")
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        raise UsageError(f"--shard: {exc}") from exc
    try:
        repeat = parse_repeat(str(getattr(args, "repeat", None) or "1"))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    git = Git(args.repo)
    git.check_repository()
    sha = git.commit(args.sha)
    command = rest or None
    out = args.out or default_out(sha)
    shown = " ".join(map_command(command, chosen_collector(command)))
    where = f" shard {shard[0]}/{shard[1]}" if shard else ""
    say(f"mapping {sha} ({args.sha}){where} in a temporary worktree: {shown}")
    bar = choose_progress(args.progress, args.verbose)
    try:
        result = build_map(
            git,
            sha,
            out,
            command,
            shard=shard,
            progress=bar,
            show_output=args.verbose,
            producer=Producer.from_environ(os.environ),
            copy_ignored_paths=list(getattr(args, "copy_ignored", None) or []),
            repeat=repeat,
        )
    except MapError as exc:
        if exc.output_tail and not args.verbose:
            print(_indent(exc.output_tail), file=sys.stderr)
        raise
    finally:
        if bar is not None:
            bar.clear()
    status = _report_build(result, say, show_tail=not args.verbose)
    if args.previous is not None:
        status = max(status, _report_drift(git, args.previous, result, say, fail=args.fail_on_drift))
    return status


def _report_drift(
    git: Git, previous: Path, result: MapResult, say: Callable[[str], None], *, fail: bool
) -> int:
    """``--previous``: say what drifted since the last map; 1 when ``fail`` and there is drift, or
    when drift could not be computed (that is not "no drift")."""
    from oracle_gate.maps.drift import drift_since
    from oracle_gate.maps.reader.manifest import read_manifest

    try:
        drift = drift_since(previous, read_manifest(result.manifest), git)
    except InputError as exc:
        say(f"{'error' if fail else 'warning'}: cannot compare with the previous map: {exc}")
        return 1 if fail else 0
    for line in drift.lines():
        say(line)
    if not drift.found:
        say(f"no drift since the map of {drift.previous_sha[:12]}")
        return 0
    return 1 if fail else 0


def _combine_cli(out: Path, inputs: list[Path], say: Callable[[str], None]) -> int:
    result = combine_maps(inputs, out, producer=Producer.from_environ(os.environ))
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
