"""Drift between two maps of the default branch: ``oracle-gate map --previous MANIFEST``.

A map can go quietly wrong between one default-branch commit and the next without any pull request
noticing: a frozen test whose fixture stopped reaching the code it used to observe leaves that code
looking live-covered or unobserved, and a live test that silently stopped running leaves lines
without the observer the last map had. Neither shows in a verdict, so ``map`` compares the new map
with the previous one and says so:

* **a frozen test that shrank**: it ran for both maps, observes fewer than half the lines it did,
  and its own file (the nodeid's path) did not change between the two commits (an edit of the
  test explains a shrink; without one, what the test depends on drifted under it, and the lines
  it stopped observing lose the frozen observer that made a change to them unscored);
* **a live test that disappeared**: the previous map lists it as run, the new one does not, and its
  file still exists at the new commit (a deleted or renamed test file is a person's visible change,
  not drift).

:func:`compare` is pure; :func:`drift_since` reads the two maps and asks git what changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle_gate.errors import InputError
from oracle_gate.git import Git
from oracle_gate.judge.observers import map_measured_paths
from oracle_gate.maps.reader.data import open_map
from oracle_gate.maps.reader.manifest import Manifest, read_manifest

TestLines = Mapping[str, Mapping[str, Set[int]]]
"""Per test id: per repo-relative path, the lines it observes."""

SHRINK_FACTOR = 2  # "shrank by more than half": fewer than before / 2 lines now


@dataclass(frozen=True)
class Shrunk:
    test: str
    before: int
    after: int


@dataclass(frozen=True)
class Drift:
    """What changed between the previous map (at ``previous_sha``) and this one."""

    previous_sha: str
    shrunk: tuple[Shrunk, ...] = ()
    disappeared: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        return bool(self.shrunk or self.disappeared)

    def lines(self) -> list[str]:
        """One line per finding, for the command's output."""
        since = self.previous_sha[:12]
        out = [
            f"drift: frozen test {s.test} observes {s.after} line(s), {s.before} in the map of {since}, "
            "and its file did not change"
            for s in self.shrunk
        ]
        out += [
            f"drift: live test {t} ran for the map of {since} and did not run now (its file still exists)"
            for t in self.disappeared
        ]
        return out

    def to_document(self) -> dict[str, Any]:
        return {
            "previous_sha": self.previous_sha,
            "frozen_shrunk": [{"test": s.test, "before": s.before, "after": s.after} for s in self.shrunk],
            "live_disappeared": list(self.disappeared),
        }


def compare(
    previous: TestLines,
    current: TestLines,
    *,
    previous_sha: str,
    frozen: Set[str],
    previous_ran: Iterable[str],
    current_ran: Iterable[str],
    changed_files: Set[str],
    existing_files: Set[str],
) -> Drift:
    """The drift from ``previous`` to ``current`` (see the module's docstring). Pure."""
    shrunk = []
    for test in sorted(frozen & previous.keys()):
        before = previous[test]
        count_before = sum(len(lines) for lines in before.values())
        count_after = sum(len(lines) for lines in current.get(test, {}).values())
        if count_after * SHRINK_FACTOR < count_before and test.split("::", 1)[0] not in changed_files:
            shrunk.append(Shrunk(test, count_before, count_after))
    ran_now = set(current_ran)
    disappeared = sorted(
        test for test in set(previous_ran) - ran_now - frozen if test.split("::", 1)[0] in existing_files
    )
    return Drift(previous_sha, tuple(shrunk), tuple(disappeared))


def drift_since(previous_manifest: Path, current: Manifest, git: Git) -> Drift:
    """Compare the map of ``current`` with the one ``previous_manifest`` describes.

    Both maps must list the tests they ran (maps written by ``oracle-gate map`` do), and the
    previous commit must be in the repository (git answers what changed since). Anything else is an
    :class:`InputError` naming the previous manifest: drift that cannot be computed is not "no drift".
    """
    source = str(previous_manifest)
    previous = read_manifest(previous_manifest)
    if previous.tests_ran is None or current.tests_ran is None:
        raise InputError(
            source, "drift needs maps that list the tests they ran (written by 'oracle-gate map')"
        )
    if not git.has_commit(previous.sha):
        raise InputError(source, f"its commit {previous.sha[:12]} is not in the repository (fetch it first)")
    if previous.sha != current.sha and not git.is_ancestor(previous.sha, current.sha):
        raise InputError(source, f"its commit {previous.sha[:12]} is not an ancestor of {current.sha[:12]}")
    frozen = frozenset(_frozen_ran(current)) | frozenset(_frozen_ran(previous))
    changed = {
        p for c in git.changes(previous.sha, current.sha) for p in (c.old_path, c.new_path) if p is not None
    }
    return compare(
        read_test_lines(previous, git),
        read_test_lines(current, git),
        previous_sha=previous.sha,
        frozen=frozen,
        previous_ran=previous.tests_ran,
        current_ran=current.tests_ran,
        changed_files=changed,
        existing_files=git.existing_files(current.sha, {t.split("::", 1)[0] for t in previous.tests_ran}),
    )


def _frozen_ran(manifest: Manifest) -> list[str]:
    """The frozen test ids the map's run met (run, or deselected by the command's own filters)."""
    frozen = manifest.extra.get("frozen")
    if not isinstance(frozen, dict):
        return []
    listed = [*(frozen.get("ran") or []), *(frozen.get("deselected") or [])]
    return [str(t) for t in listed]


def read_test_lines(manifest: Manifest, git: Git) -> dict[str, dict[str, set[int]]]:
    """Per test, per repo-relative path of ``manifest.sha``'s tree, the lines the map records."""
    reader, _ = open_map(manifest.data)
    measured = list(reader.measured_files())
    tracked = git.run(["ls-tree", "-r", "-z", "--name-only", manifest.sha]).stdout.split(b"\0")
    wanted = [p.decode("utf-8", "surrogateescape") for p in tracked if p]
    mapping = map_measured_paths(measured, wanted, lambda c: git.existing_files(manifest.sha, c))
    lines: dict[str, dict[str, set[int]]] = {}
    for path, raws in mapping.items():
        for raw in raws:
            for line, tests in reader.tests_by_line(raw).items():
                for test in tests:
                    lines.setdefault(test, {}).setdefault(path, set()).add(line)
    return lines
