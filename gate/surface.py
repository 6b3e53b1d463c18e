"""``oracle-gate surface``: the freeze surface of a parent map, read and rendered.

The edge around :mod:`oracle_gate.judge.surface`: it reads the map whole (every measured file, mapped to
the paths of ``rev``'s tree as ``check`` maps touched files), the policy and the freeze manifest as
``rev`` has them (the same reading as ``check``'s oracle), and the commit date of each entry's
``bound_sha``; then renders the result as markdown (a job summary), JSON, or a shields.io endpoint
badge. Freeze entries, paths and test ids are repository data: the markdown escapes them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracle_gate.errors import UsageError
from oracle_gate.git import Git
from oracle_gate.judge.freeze import Freeze
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.observers import map_measured_paths, without_unstable
from oracle_gate.judge.surface import (
    EntrySurface,
    Surface,
    entry_fields,
    freeze_surface,
    sorted_entries,
    unique_share_text,
)
from oracle_gate.judge.verdict import line_ranges, range_text
from oracle_gate.oracle_files import read_oracle

if TYPE_CHECKING:
    from oracle_gate.maps.reader.manifest import Manifest

#: Rows a markdown table shows before it counts the rest (the JSON has every one).
MAX_ROWS = 200


@dataclass(frozen=True)
class SurfaceReport:
    """A surface and where it comes from."""

    surface: Surface
    rev: str
    map_path: str
    map_sha256: str
    problems: tuple[str, ...]


def read_surface(repo: Path, coverage: Path, rev: str | None, today: dt.date) -> SurfaceReport:
    """The surface of the map ``coverage`` against ``rev`` (default: the commit its manifest binds it
    to, else ``HEAD``). A map bound to another commit than ``rev`` is refused: its lines would be
    read against the wrong tree and the wrong freeze."""
    from oracle_gate.errors import InputError
    from oracle_gate.maps.reader.data import open_map
    from oracle_gate.maps.reader.manifest import locate

    git = Git(repo)
    git.check_repository()
    try:
        data_path, manifest = locate(coverage)
        reader, digest = open_map(data_path)
    except InputError as exc:
        raise UsageError(f"{exc.source}: {exc.problem}") from exc
    sha = git.commit(rev if rev is not None else manifest.sha if manifest is not None else "HEAD")
    if manifest is not None and manifest.sha != sha:
        raise UsageError(f"{manifest.path}: the map is bound to {manifest.sha}, not to {sha}")
    oracle = read_oracle(git, sha)
    files = _tree_files(git, sha)
    parent_files = lambda paths: git.existing_files(sha, paths)  # noqa: E731
    mapping = map_measured_paths(reader.measured_files(), files, parent_files)
    observers: dict[str, dict[int, set[str]]] = {}
    for path, measured in mapping.items():
        for raw in measured:
            for line, tests in reader.tests_by_line(raw).items():
                observers.setdefault(path, {}).setdefault(line, set()).update(tests)
    if manifest is not None:
        observers = _stable_observers(observers, manifest, oracle.freeze, parent_files)
    not_scored = GlobSet([*oracle.policy.ignore, *oracle.policy.tests])
    surface = freeze_surface(
        observers,
        oracle.freeze,
        fields=entry_fields(git.read_blob(sha, oracle.policy.freeze)),
        commit_dates=_commit_dates(git, [e.bound_sha for e in oracle.freeze.entries if e.bound_sha]),
        today=today,
        not_scored=not_scored,
    )
    problems = tuple(str(p) for p in (*oracle.policy.problems, *oracle.freeze.problems))
    return SurfaceReport(surface, sha, str(data_path), digest, problems)


def _stable_observers(
    observers: dict[str, dict[int, set[str]]],
    manifest: Manifest,
    freeze: Freeze,
    parent_files: Callable[[set[str]], set[str]],
) -> dict[str, dict[int, set[str]]]:
    """v3.4 as ``check`` applies it: the manifest's unstable observations, read and path-mapped by
    the same code as ``check``'s (over every observed line here), dropped for live tests by the
    core's own rule. A malformed ``unstable`` is a one-line refusal (``check`` cannot use the map)."""
    from oracle_gate.errors import InputError
    from oracle_gate.maps.reader.unstable import unstable_observers

    try:
        unstable = unstable_observers(manifest.extra, manifest.path, observers, parent_files)
    except InputError as exc:
        raise UsageError(f"{exc.source}: {exc.problem}") from exc
    frozen = {path: {n: frozenset(tests) for n, tests in lines.items()} for path, lines in observers.items()}
    stable = without_unstable(frozen, unstable, freeze.is_frozen)
    return {path: {n: set(tests) for n, tests in lines.items()} for path, lines in stable.items()}


def _tree_files(git: Git, sha: str) -> list[str]:
    out = git.run(["ls-tree", "-r", "-z", "--name-only", "--full-tree", sha]).stdout
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def _commit_dates(git: Git, shas: list[str]) -> dict[str, dt.date]:
    """The committer date (UTC) of each commit ``shas`` names; one it does not name is left out."""
    dates = {}
    for sha in sorted(set(shas)):
        if sha.startswith("-"):
            continue
        proc = git.run(
            ["show", "-s", "--format=%ct", "--end-of-options", f"{sha}^{{commit}}"], ok_codes=(0, 128)
        )
        stamp = proc.stdout.decode().strip()
        if proc.returncode == 0 and stamp.isascii() and stamp.isdigit():
            dates[sha] = dt.datetime.fromtimestamp(int(stamp), dt.UTC).date()
    return dates


# -- renderings ------------------------------------------------------------------------------------


def to_json(report: SurfaceReport) -> dict[str, Any]:
    s = report.surface
    return {
        "rev": report.rev,
        "map": {"path": report.map_path, "sha256": report.map_sha256},
        "today": s.today.isoformat(),
        "measured_lines": s.measured_lines,
        "frozen_only_lines": s.frozen_only_lines,
        "share": s.share,
        "files": dict(sorted(s.files.items())),
        "entries": [_entry_json(e) for e in s.entries],
        "problems": list(report.problems),
    }


def _entry_json(e: EntrySurface) -> dict[str, Any]:
    return {
        "nodeid": e.nodeid,
        "reason": e.reason,
        "bound_sha": e.bound_sha,
        "owner": e.owner,
        "expires": e.expires,
        "age_days": e.age_days,
        "lines": e.lines,
        "line_count": e.line_count,
        "unique_lines": e.unique,
        "needs_triage": list(e.triage),
    }


def to_markdown(report: SurfaceReport) -> str:
    from oracle_gate.render.markdown import environment

    s = report.surface
    entries = sorted_entries(s.entries)
    files = sorted(s.files.items(), key=lambda item: (-len(item[1]), item[0]))
    return (
        environment()
        .get_template("surface.md.j2")
        .render(
            r=report,
            s=s,
            share=unique_share_text(s.share),
            entries=entries[:MAX_ROWS],
            entries_more=max(0, len(entries) - MAX_ROWS),
            files=[(path, _ranges(lines), len(lines)) for path, lines in files[:MAX_ROWS]],
            files_more=max(0, len(files) - MAX_ROWS),
            triage=[e for e in entries if e.triage],
        )
    )


def _ranges(lines: list[int]) -> str:
    return ", ".join(range_text(a, b) for a, b in line_ranges(lines))
