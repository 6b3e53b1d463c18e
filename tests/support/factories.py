"""Small reusable factories for the unit and integration tiers.

Unit-tier helpers build plain values (``ChangeSet``, ``Evidence``, ``Freeze``...)
and may only call git's diff on bytes (``oracle_gate.git.diff_blob_pairs``).
Integration-tier helpers build real git repositories: :class:`Project` is a
clone of a tiny measured project (``src/pkg`` + ``tests`` + ``freeze.json``)
whose per-test coverage was measured once, for real, with pytest-cov contexts.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle_gate.check import CheckRequest, run_check
from oracle_gate.git import diff_blob_pairs
from oracle_gate.judge.changes import ChangeSet, RawChange, build_changes
from oracle_gate.judge.freeze import Freeze, FreezeEntry
from oracle_gate.judge.lock import FixtureLock
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.policy import Policy
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.verdict import Evidence, Provenance, Verdict, evaluate
from tests.support.repo import Repo, measure_coverage

PARENT = "a" * 40
HEAD = "b" * 40

# ---------------------------------------------------------------- unit tier: plain values


def lines(*texts: str, newline: bool = True) -> bytes:
    """File bytes made of ``texts``, one per line (last line without LF when ``newline`` is False)."""
    body = "\n".join(texts)
    return (body + ("\n" if newline and texts else "")).encode()


def numbered(n: int) -> bytes:
    """A file of ``n`` distinct lines ``l1``..``ln``."""
    return lines(*(f"l{i}" for i in range(1, n + 1)))


@dataclass(frozen=True)
class Edit:
    """One file-level change, described by its two sides (None: the side does not exist)."""

    old_path: str | None
    new_path: str | None
    old: bytes | None = None
    new: bytes | None = None
    old_mode: str = "100644"
    new_mode: str = "100644"


def modified(path: str, old: bytes, new: bytes, **modes: str) -> Edit:
    return Edit(path, path, old, new, **modes)


def added(path: str, new: bytes, mode: str = "100644") -> Edit:
    return Edit(None, path, None, new, new_mode=mode)


def deleted(path: str, old: bytes, mode: str = "100644") -> Edit:
    return Edit(path, None, old, None, old_mode=mode)


def renamed(old_path: str, new_path: str, old: bytes, new: bytes) -> Edit:
    return Edit(old_path, new_path, old, new)


def _object_id(mode: str, data: bytes | None, side: str) -> str:
    return hashlib.sha1(f"{mode}:{side}:".encode() + (data or b""), usedforsecurity=False).hexdigest()


def change_set(*edits: Edit, parent: str = PARENT, head: str = HEAD) -> ChangeSet:
    """The pure change-set builder run on hand-made raw changes (git diffs the blobs)."""
    raw: list[RawChange] = []
    blobs: dict[str, bytes] = {}
    for e in edits:
        if e.old_path is None:
            status = "A"
        elif e.new_path is None:
            status = "D"
        elif e.old_path != e.new_path:
            status = "R"
        elif (e.old_mode == "120000") != (e.new_mode == "120000") or "160000" in (e.old_mode, e.new_mode):
            status = "T" if e.old_mode != e.new_mode else "M"
        else:
            status = "M"
        old_sha = _object_id(e.old_mode, e.old, "old") if e.old_path else None
        new_sha = _object_id(e.new_mode, e.new, "new") if e.new_path else None
        if old_sha and e.old is not None:
            blobs[old_sha] = e.old
        if new_sha and e.new is not None:
            blobs[new_sha] = e.new
        raw.append(
            RawChange(
                status,
                e.old_path,
                e.new_path,
                e.old_mode if e.old_path else "000000",
                e.new_mode if e.new_path else "000000",
                old_sha,
                new_sha,
            )
        )
    return build_changes(parent, head, raw, blobs, diff_blob_pairs)


def touched_of(old: bytes, new: bytes) -> list[int]:
    """Touched parent lines of one modified file."""
    return sorted(change_set(modified("f.py", old, new)).files[0].touched)


def freeze_of(*nodeids: str, problems: Iterable[Problem] = ()) -> Freeze:
    """A well-formed freeze of ``nodeids`` (with optional problems attached)."""
    entries = tuple(FreezeEntry(i, n, "flaky", "abcd1234") for i, n in enumerate(nodeids))
    return Freeze(entries, problems=tuple(problems))


def observed(by_path: Mapping[str, Mapping[int, Iterable[str]]], digest: str = "0" * 64) -> ParentCoverage:
    """A usable parent coverage: path -> line -> the tests observing it."""
    return ParentCoverage(
        observers={p: {n: frozenset(t) for n, t in per.items()} for p, per in by_path.items()},
        digest=digest,
    )


def evidence(
    changes: ChangeSet,
    *,
    policy: Policy | None = None,
    freeze: Freeze | None = None,
    lock: FixtureLock | None = None,
    locked_blobs: Mapping[str, bytes | None] | None = None,
    coverage: ParentCoverage | None = None,
) -> Evidence:
    """Evidence with harmless defaults: default policy, nothing frozen, no lock, an empty usable map."""
    return Evidence(
        changes=changes,
        policy=policy or Policy(),
        freeze=freeze or Freeze(),
        lock=lock or FixtureLock(),
        locked_blobs=locked_blobs or {},
        coverage=coverage if coverage is not None else observed({}),
        protocol=Provenance(gate_version="test"),
    )


def judge(*edits: Edit, **kw: Any) -> Verdict:
    """evaluate() on the change set of ``edits`` and the evidence options in ``kw``."""
    return evaluate(evidence(change_set(*edits), **kw))


# ---------------------------------------------------------------- integration tier: real repositories

MOD_PY = '''\
"""A tiny module whose lines are observed by known tests."""


def live(x):
    y = x + 1
    return y * 2


def frozen_only(x):
    z = x - 1
    return z * 3


def shared(x):
    return x * x


def param_only(n):
    return n + 100


def class_only():
    return "class"


def prefix_trap():
    return "not frozen: the freeze prefix ends without a boundary"


def unobserved(x):
    return -x
'''

LAZY_PY = '''\
"""Imported only inside a frozen test: its import-time lines belong to that test."""

CONSTANT = 1


def value():
    return CONSTANT
'''

TEST_MOD_PY = """\
import pytest

from pkg.mod import class_only, frozen_only, live, param_only, prefix_trap, shared


def test_live():
    assert live(1) == 4
    assert shared(2) == 4


def test_frozen():
    assert frozen_only(2) == 3
    assert shared(3) == 9


def test_frozen_extra():
    assert prefix_trap().startswith("not frozen")


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert param_only(n) > 100


class TestGroup:
    def test_in_class(self):
        assert class_only() == "class"


def test_lazy_import():
    from pkg import lazy

    assert lazy.value() == 1
"""

TEST_FILE = "tests/test_mod.py"
FROZEN_IDS = (
    f"{TEST_FILE}::test_frozen",  # exact; must not freeze test_frozen_extra
    f"{TEST_FILE}::test_param",  # freezes test_param[1], test_param[2]
    f"{TEST_FILE}::TestGroup",  # freezes TestGroup::test_in_class
    f"{TEST_FILE}::test_lazy_import",
)
BASE_FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/mod.py": MOD_PY,
    "src/pkg/lazy.py": LAZY_PY,
    TEST_FILE: TEST_MOD_PY,
    "README.md": "tiny project\n",
}


def other_frozen_runs() -> dict[str, dict[str, list[int]]]:
    """JSON-map entries for the frozen tests besides ``test_frozen``, each on its own line, so a hand-
    written map shows every freeze entry ran (contract v2's visibility rule)."""
    return {
        f"{TEST_FILE}::test_param[1]": {"src/pkg/mod.py": [line_of(MOD_PY, "return n + 100")]},
        f"{TEST_FILE}::TestGroup::test_in_class": {"src/pkg/mod.py": [line_of(MOD_PY, 'return "class"')]},
        f"{TEST_FILE}::test_lazy_import": {"src/pkg/lazy.py": [line_of(LAZY_PY, "CONSTANT = 1")]},
    }


def line_of(text: str, snippet: str) -> int:
    """The 1-based number of the only line of ``text`` that contains ``snippet``."""
    found = [i for i, line in enumerate(text.splitlines(), 1) if snippet in line]
    if len(found) != 1:
        raise AssertionError(f"{snippet!r} is on lines {found}, expected exactly one")
    return found[0]


def freeze_json(nodeids: Iterable[str], bound_sha: str, reason: str = "flaky on CI") -> str:
    entries = [{"nodeid": n, "reason": reason, "bound_sha": bound_sha} for n in nodeids]
    return json.dumps({"schema": 1, "frozen": entries}, indent=2) + "\n"


def sha256_hex(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@dataclass(frozen=True)
class Measured:
    """The tiny project's origin repository, its parent commit and its measured map."""

    origin: Path
    root_commit: str
    parent: str
    coverage: Path


def build_measured_project(workdir: Path) -> Measured:
    """Build the tiny project (two commits: code, then the oracle) and measure the parent for real."""
    repo = Repo(workdir / "origin")
    for path, text in BASE_FILES.items():
        repo.write(path, text)
    root_commit = repo.commit("tiny project")
    repo.write("freeze.json", freeze_json(FROZEN_IDS, root_commit[:10]))
    parent = repo.commit("oracle: freeze flaky tests")
    coverage = measure_coverage(repo, workdir / "parent.coverage")
    return Measured(repo.root, root_commit, parent, coverage)


@dataclass
class Project:
    """A fresh clone of the measured tiny project, with helpers to make parents and heads."""

    repo: Repo
    measured: Measured
    parent: str = field(init=False)

    def __post_init__(self) -> None:
        self.parent = self.measured.parent
        self._branches = 0

    @property
    def root(self) -> Path:
        return self.repo.root

    @property
    def coverage(self) -> Path:
        return self.measured.coverage

    def line(self, snippet: str, path: str = "src/pkg/mod.py") -> int:
        return line_of(self.repo.git("show", f"{self.parent}:{path}") + "\n", snippet)

    def branch_from(self, rev: str) -> None:
        self._branches += 1
        self.repo.checkout(rev, new_branch=f"b{self._branches}")

    def new_parent(self, apply: Callable[[Repo], object], message: str = "oracle update") -> str:
        """Commit ``apply``'s edits on the current parent and make that the parent.

        Oracle files do not change the test run, so the measured map stays valid
        for it; tests bind it with ``--coverage-sha`` (as a map of R1 in the corpus).
        """
        self.branch_from(self.parent)
        apply(self.repo)
        self.parent = self.repo.commit(message)
        return self.parent

    def head(self, apply: Callable[[Repo], object], message: str = "candidate") -> str:
        """A head commit: ``apply``'s edits on top of the parent."""
        self.branch_from(self.parent)
        apply(self.repo)
        return self.repo.commit(message)

    def replace(self, path: str, old: str, new: str) -> Callable[[Repo], None]:
        """An edit replacing the only occurrence of ``old`` in ``path``."""

        def apply(repo: Repo) -> None:
            text = repo.read(path)
            assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
            repo.write(path, text.replace(old, new))

        return apply

    def check(
        self,
        head: str,
        *,
        coverage: Path | str | None = "measured",
        coverage_sha: str | bool | None = True,
        protect: tuple[str, ...] = (),
        allow_failing_parent: bool = False,
    ) -> Verdict:
        """run_check in-process: the measured map bound to the current parent unless told otherwise."""
        cov = self.coverage if coverage == "measured" else coverage
        sha = self.parent if coverage_sha is True else (coverage_sha or None)
        return run_check(
            CheckRequest(
                repo=self.root,
                base=self.parent,
                head=head,
                coverage=Path(cov) if cov is not None else None,
                coverage_sha=sha if isinstance(sha, str) else None,
                extra_protected=protect,
                allow_failing_parent=allow_failing_parent,
            )
        )


def clone_project(measured: Measured, root: Path) -> Project:
    """A new repository with the origin's history (same SHAs), in its own directory."""
    repo = Repo(root)
    repo.git("fetch", "-q", str(measured.origin), "main")
    repo.git("reset", "-q", "--hard", "FETCH_HEAD")
    return Project(repo, measured)


def write_json_map(path: Path, doc: Mapping[str, Mapping[str, Iterable[int]]]) -> Path:
    path.write_text(json.dumps({t: {p: list(n) for p, n in files.items()} for t, files in doc.items()}))
    return path


def write_manifest(
    path: Path, *, data: Path, sha: str, digest: str | None = None, tests_passed: bool = True
) -> Path:
    """A map manifest like the one ``oracle-gate map`` writes (kind, sha, data, data_sha256)."""
    doc = {
        "kind": "oracle-gate-map",
        "sha": sha,
        "data": data.name,
        "data_sha256": digest or sha256_hex(data.read_bytes()),
        "tests_passed": tests_passed,
    }
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")
