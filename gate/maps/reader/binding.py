"""Whether a map may be used for a check, and the parent coverage read from it.

A map is *bound* to the commit it was measured on, by the gate's own map manifest
(:mod:`oracle_gate.maps.reader.manifest`) or by an explicit ``--coverage-sha``. A map bound to
anything but the parent is not used. The freeze's entries no test of the map ran are found here too.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from oracle_gate.errors import GitError, InputError, UnknownRevision
from oracle_gate.git import Git
from oracle_gate.judge.freeze import nodeid_matches
from oracle_gate.judge.problems import Problem
from oracle_gate.maps.reader.data import EarlyMapRead, SafeSqliteMap, open_map, read_errors
from oracle_gate.maps.reader.manifest import Manifest, locate

if TYPE_CHECKING:  # for typing only: judge.observers is imported where coverage is read
    from oracle_gate.judge.observers import MapReader, ParentCoverage


def unseen_frozen(frozen: Iterable[str], reader: MapReader, manifest: Manifest | None) -> frozenset[str]:
    """v2: the freeze entries that match no test id the map knows ran (a context with measured
    lines, or a test id the manifest lists as run)."""
    nodeids = list(dict.fromkeys(frozen))
    if not nodeids:
        return frozenset()
    listed = sorted(manifest.tests_ran if manifest is not None and manifest.tests_ran is not None else ())
    unlisted = [nodeid for nodeid in nodeids if not listed_test_matching(listed, nodeid)]
    if not unlisted:
        return frozenset()
    if isinstance(reader, SafeSqliteMap):  # all entries at once: bisections, then at most one pass
        return frozenset(unlisted) - reader.ran_tests_matching(unlisted)
    ran = getattr(reader, "ran_test_matching", None)
    return frozenset(n for n in unlisted if ran is None or not ran(n))


def listed_test_matching(listed: Sequence[str], nodeid: str) -> bool:
    """Whether a test id of the sorted ``listed`` is one ``nodeid`` matches: only the ids that start
    with ``nodeid`` are looked at (a bisection), not all 50,000 of a large map's."""
    index = bisect.bisect_left(listed, nodeid)
    while index < len(listed) and listed[index].startswith(nodeid):
        if nodeid_matches(nodeid, listed[index]):
            return True
        index += 1
    return False


def binding_problems(
    *,
    parent: str,
    claimed_sha: str | None,
    manifest: Manifest | None,
    digest: str,
    allow_failing_parent: bool,
    source: str,
) -> list[Problem]:
    """Why the map is not bound to the parent (empty when it is). Pure."""
    problems = []
    if manifest is None and claimed_sha is None:
        problems.append(
            Problem(
                source,
                "the coverage map is not bound to a commit "
                "(give --coverage-sha or a map manifest from 'oracle-gate map')",
            )
        )
    if claimed_sha is not None and claimed_sha != parent:
        problems.append(
            Problem(source, f"the coverage map is bound to {claimed_sha}, not to the parent {parent}")
        )
    if manifest is not None:
        where = str(manifest.path)
        if manifest.sha != parent:
            problems.append(
                Problem(
                    where, f"the map manifest binds the map to {manifest.sha}, not to the parent {parent}"
                )
            )
        if manifest.data_sha256 != digest:
            problems.append(
                Problem(
                    where,
                    f"the data file's sha256 {digest[:12]}... does not match "
                    f"the manifest's {manifest.data_sha256[:12]}...",
                )
            )
        if manifest.shard is not None:
            problems.append(
                Problem(
                    where,
                    f"the map is shard {manifest.shard[0]}/{manifest.shard[1]} of a sharded "
                    "run, not a whole map (merge all shards with 'oracle-gate map --combine')",
                )
            )
        if not manifest.tests_passed and not allow_failing_parent:
            problems.append(
                Problem(
                    where,
                    "the parent's test run failed when the map was made "
                    "(pass --allow-failing-parent to use it anyway)",
                )
            )
    return problems


def load_parent_coverage(
    git: Git,
    *,
    parent: str,
    coverage: Path | None,
    coverage_sha: str | None,
    touched: Mapping[str, Iterable[int]],
    allow_failing_parent: bool = False,
    frozen: Iterable[str] = (),
    early: EarlyMapRead | None = None,
) -> ParentCoverage:
    """The edge: locate, bind and read the map; every problem becomes a reported problem.
    ``early``: the locating and hashing, started on another thread (:class:`EarlyMapRead`)."""
    from oracle_gate.judge.observers import ParentCoverage, touched_observers
    from oracle_gate.maps.reader.unstable import unstable_observers

    if coverage is None:
        return ParentCoverage(problems=(Problem(None, "no coverage map of the parent was given"),))
    try:
        if early is not None and early.coverage == coverage:
            data_path, manifest, read = early.result()
        else:
            data_path, manifest = locate(coverage)
            read = None
        reader, digest = open_map(data_path, read)
        claimed = _resolve_claim(git, coverage_sha, str(coverage))
    except InputError as exc:
        return ParentCoverage(problems=in_repository(git, [Problem(exc.source, exc.problem)]))
    problems = binding_problems(
        parent=parent,
        claimed_sha=claimed,
        manifest=manifest,
        digest=digest,
        allow_failing_parent=allow_failing_parent,
        source=str(data_path),
    )
    if problems:
        return ParentCoverage(digest=digest, problems=in_repository(git, problems))
    unreadable: tuple[type[Exception], ...] = (*read_errors(), TypeError, ValueError)  # wrong-typed rows
    try:
        parent_files = lambda paths: git.existing_files(parent, paths)  # noqa: E731
        observers = touched_observers(reader, touched, parent_files)
        unseen = unseen_frozen(frozen, reader, manifest)
        unstable = (
            unstable_observers(manifest.extra, manifest.path, touched, parent_files) if manifest else {}
        )
    except InputError as exc:
        return ParentCoverage(digest=digest, problems=in_repository(git, [Problem(exc.source, exc.problem)]))
    except unreadable as exc:
        problem = Problem(str(data_path), f"cannot read coverage rows ({exc})")
        return ParentCoverage(digest=digest, problems=in_repository(git, [problem]))
    return ParentCoverage(observers=observers, digest=digest, unseen_frozen=unseen, unstable=unstable)


def in_repository(git: Git, problems: Sequence[Problem]) -> tuple[Problem, ...]:
    """The map's problems, a file inside the checkout named by its repository path, as every other
    path of a verdict is (issue 28: the map's reason carried its absolute path). A file outside the
    checkout keeps the path it was given: the core reports it in the text, as no repository path."""
    try:
        top = Path(os.fsdecode(git.run(["rev-parse", "--show-toplevel"]).stdout.strip())).resolve()
    except GitError:
        return tuple(problems)
    return tuple(dataclasses.replace(p, source=_relative_to(p.source, top)) for p in problems)


def _relative_to(source: str | None, top: Path) -> str | None:
    if source is None:
        return None
    try:
        return Path(source).resolve().relative_to(top).as_posix()
    except (ValueError, OSError):
        return source


def _resolve_claim(git: Git, coverage_sha: str | None, source: str) -> str | None:
    if coverage_sha is None:
        return None
    try:
        return git.commit(coverage_sha)
    except UnknownRevision as exc:
        raise InputError(source, f"--coverage-sha {coverage_sha!r} names no commit here") from exc
