"""A real repository with pull requests the way GitHub keeps them, for the end-to-end tests.

``origin.git`` is a bare repository holding ``main`` and, per pull request ``N``,
``refs/pull/N/head`` (the pull request's head) and ``refs/pull/N/merge`` (a real merge commit of
the head into ``main``, first parent ``main``: GitHub's test merge). Everything is made with the
real ``git``; the parent's per-test coverage is really measured with pytest-cov.

The pull requests, all against the same parent (``main``):

* #1 ``pass_clean``: edits a line a live test observes;
* #2 ``unscored``: edits 60 separate lines observed only by a frozen test (60 annotations: more
  than one batch of 50);
* #3 ``fail``: edits a protected fixture and adds a skip marker;
* #4 like #1, but the change also commits a file where the workflow puts the parent's map;
* #6 commits a symlink there instead, to a file of its own;
* #5 two versions (``unscored`` then ``pass_clean``) to update the sticky comment in place;
* #9 a head with no test-merge commit (as GitHub has for a pull request with conflicts).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.github_fake import FakeGitHub
from tests.support.repo import Repo, clean_env, measure_coverage

REPO = "oracle-org/widgets"
FROZEN_TEST = "tests/test_frozen.py::test_frozen_area"
FUNCTIONS = 60  # separate overlap ranges in PR #2
OTHER_UID = (
    1001  # the workspace's owner: the runner's user, not root, as on a GitHub runner seen from the container
)


def frozen_area(version: str) -> str:
    """60 three-line functions; ``version`` "changed" edits the middle line of each."""
    body = []
    for i in range(FUNCTIONS):
        extra = " + 0" if version == "changed" else ""
        body.append(f"def f{i}(x):\n    y = x + {i}{extra}\n    return y\n")
    return "\n".join(body)


CALC = "def add(a, b):\n    return a + b\n\n\ndef scale(x):\n    return x * 2\n"
TEST_CALC = (
    "from calc import add, scale\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_scale():\n    assert scale(4) == 8\n"
)
TEST_FROZEN = (
    "import frozen_area\n\n\n"
    "def test_frozen_area():\n"
    f"    assert sum(getattr(frozen_area, f'f{{i}}')(1) for i in range({FUNCTIONS})) > 0\n"
)
PYPROJECT = '[tool.pytest.ini_options]\npythonpath = ["src"]\n'


@dataclass
class PullRequest:
    number: int
    head: str  # the pull request's head commit (where the check run goes)
    merge: str | None  # GitHub's test-merge commit (None: GitHub has none, e.g. conflicts)
    branch: str
    expected: str = ""  # the verdict the gate must give
    base: str | None = None  # the base branch's tip when it is not the project's main


@dataclass
class Project:
    root: Path
    origin: Path
    main: str  # the parent of every pull request
    coverage: Path  # the parent's per-test coverage, measured for real (coverage.py data file)
    pulls: dict[int, PullRequest] = field(default_factory=dict)
    versions: dict[str, PullRequest] = field(default_factory=dict)  # PR #5's two versions

    def git(self, *args: str) -> str:
        return git(self.origin, *args)

    def point_pull(self, pr: PullRequest) -> None:
        """Make ``refs/pull/N/head`` and ``/merge`` of ``origin`` what ``pr`` says (a push to the PR)."""
        self.git("update-ref", f"refs/pull/{pr.number}/head", pr.head)
        if pr.merge is None:
            self.git("update-ref", "-d", f"refs/pull/{pr.number}/merge")
        else:
            self.git("update-ref", f"refs/pull/{pr.number}/merge", pr.merge)
        self.pulls[pr.number] = pr


def git(where: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-c", "safe.directory=*", "-C", str(where), *args],
        env=env or clean_env(),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
    return proc.stdout.decode().strip()


def build_project(root: Path) -> Project:
    """The work repository, its bare ``origin`` with every pull request, and the parent's coverage."""
    work = Repo(root / "work")
    work.write("src/calc.py", CALC)
    work.write("src/frozen_area.py", frozen_area("original"))
    work.write("tests/test_calc.py", TEST_CALC)
    work.write("tests/test_frozen.py", TEST_FROZEN)
    work.write("fixtures/data.json", '{"answer": 42}\n')
    work.write("pyproject.toml", PYPROJECT)
    first = work.commit("the project")
    freeze = {"schema": 1, "frozen": [{"nodeid": FROZEN_TEST, "reason": "flaky", "bound_sha": first}]}
    work.write("freeze.json", json.dumps(freeze, indent=2) + "\n")
    main = work.commit("freeze the flaky test")

    pulls = [
        _pull(work, main, 1, "pass", {"src/calc.py": CALC.replace("a + b", "b + a")}, expected="pass_clean"),
        _pull(work, main, 2, "overlap", {"src/frozen_area.py": frozen_area("changed")}, expected="unscored"),
        _pull(
            work,
            main,
            3,
            "oracle",
            {
                "fixtures/data.json": '{"answer": 43}\n',
                "tests/test_calc.py": TEST_CALC.replace(
                    "def test_scale", "import pytest\n\n\n@pytest.mark.skip\ndef test_scale"
                ),
            },
            expected="fail",
        ),
    ]
    own_map = _pull(
        work,
        main,
        4,
        "own-map",
        {
            ".oracle-gate/map.coverage": "a map the change brings along\n",
            "src/calc.py": CALC.replace("a + b", "b + a"),
        },
        expected="pass_clean",
    )
    linked_map = _pull(
        work,
        main,
        6,
        "linked-map",
        {"evil/map.bin": "another map the change brings along\n"},
        symlinks={".oracle-gate/map.coverage": "../evil/map.bin"},
        expected="",
    )
    v1 = _pull(work, main, 5, "v1", {"src/frozen_area.py": frozen_area("changed")}, expected="unscored")
    v2 = _pull(work, main, 5, "v2", {"src/calc.py": CALC.replace("x * 2", "2 * x")}, expected="pass_clean")
    conflicted = _pull(work, main, 9, "conflicted", {"src/calc.py": "# rewritten\n"}, expected="")
    conflicted.merge = None
    work.checkout("main")

    origin = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(work.root), str(origin))
    git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")  # GitHub serves commits by SHA
    for ref in git(origin, "for-each-ref", "--format=%(refname)", "refs/heads").split():
        if ref != "refs/heads/main":
            git(origin, "update-ref", "-d", ref)
    project = Project(root, origin, main, root / "parent.coverage")
    for pr in [*pulls, own_map, linked_map, v1, conflicted]:
        project.point_pull(pr)
    project.versions = {"v1": v1, "v2": v2}
    # Keep v2's objects in origin, unreferenced by any pull ref until a test "pushes" it.
    git(
        origin,
        "fetch",
        "-q",
        str(work.root),
        f"{v2.head}:refs/keep/v2-head",
        f"{v2.merge}:refs/keep/v2-merge",
    )

    parent = Repo(root / "parent")  # a clean checkout of the parent, where the map is measured
    shutil.rmtree(parent.root)
    git(root, "clone", "-q", str(origin), str(parent.root))
    measure_coverage(parent, project.coverage, pythonpath="src")
    return project


def _pull(
    work: Repo,
    main: str,
    number: int,
    name: str,
    files: dict[str, str],
    *,
    expected: str,
    symlinks: dict[str, str] | None = None,
) -> PullRequest:
    """A branch off ``main`` with ``files`` changed (and ``symlinks`` made), and its test merge
    (first parent ``main``)."""
    branch = f"pr-{number}-{name}"
    work.checkout(main, new_branch=branch)
    for path, content in files.items():
        work.write(path, content)
    for path, target in (symlinks or {}).items():
        work.symlink(path, target)
    head = work.commit(f"pull request {number} ({name})")
    work.checkout(main)
    work.git("checkout", "-q", "--detach", main)
    work.git("merge", "-q", "--no-ff", "-m", f"Merge {head} into {main}", head)
    merge = work.head()
    work.checkout("main")
    return PullRequest(number, head, merge, branch, expected)


def add_pull_request(project: Project, number: int, name: str, files: dict[str, str]) -> PullRequest:
    """One more pull request off ``main`` (made in the work repository, its refs in ``origin``), for
    a test whose change is too large to build for every session; undo with :func:`drop_pull_request`."""
    work = Repo(project.root / "work")
    pr = _pull(work, project.main, number, name, files, expected="")
    assert pr.merge is not None
    git(
        project.origin,
        "fetch",
        "-q",
        str(work.root),
        f"+{pr.head}:refs/keep/{name}-head",
        f"+{pr.merge}:refs/keep/{name}-merge",
    )
    work.git("branch", "-D", pr.branch)  # the next test may make its own version
    project.point_pull(pr)
    return pr


def drop_pull_request(project: Project, number: int) -> None:
    """Forget a pull request :func:`add_pull_request` made (its objects stay, unreferenced by a pull ref)."""
    project.git("update-ref", "-d", f"refs/pull/{number}/head")
    project.git("update-ref", "-d", f"refs/pull/{number}/merge")
    del project.pulls[number]


def seed_fake(fake: FakeGitHub, project: Project) -> FakeGitHub:
    """The fake GitHub knowing the repository and every pull request of the project."""
    fake.add_repo(REPO)
    for pr in project.pulls.values():
        fake.add_pull(REPO, pr.number, head_sha=pr.head, base_sha=project.main, head_ref=pr.branch)
        for sha in (pr.head, pr.merge):
            if sha is not None:
                seed_commit(fake, project, sha)
    return fake


def seed_commit(fake: FakeGitHub, project: Project, sha: str) -> None:
    """Tell the fake about commit ``sha`` of the project's origin, with the parents git gives it."""
    fake.add_commit(REPO, sha, project.git("rev-list", "--parents", "-n", "1", sha).split()[1:])


def chown_tree(path: Path, uid: int = OTHER_UID) -> None:
    """Give ``path`` and everything under it to ``uid``, as the runner's workspace is to the container."""
    for dirpath, dirnames, filenames in os.walk(path):
        os.chown(dirpath, uid, uid)
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), uid, uid)


AGENT_BASE = "agent-base"
EMPTY_FREEZE = json.dumps({"schema": 1, "frozen": []}, indent=2) + "\n"


def open_against_agent_base(project: Project, real: PullRequest, number: int) -> PullRequest:
    """The base swap: the agent pushes ``agent-base`` (main with ``freeze.json`` emptied) and opens a
    second pull request ``number`` with ``real``'s head against it; GitHub makes its own test merge
    ``refs/pull/<number>/merge`` (first parent: the agent's branch). Returns that pull request, whose
    base is :attr:`PullRequest.base` (the agent's branch tip)."""
    tip = _commit_with_file(project, project.main, "freeze.json", EMPTY_FREEZE, "freeze nothing")
    project.git("update-ref", f"refs/heads/{AGENT_BASE}", tip)
    tree = project.git("merge-tree", "--write-tree", tip, real.head).splitlines()[0]
    merge = project.git("commit-tree", tree, "-p", tip, "-p", real.head, "-m", "the test merge")
    # Its refs only: it stays out of ``project.pulls``, which every test's fake is seeded from.
    project.git("update-ref", f"refs/pull/{number}/head", real.head)
    project.git("update-ref", f"refs/pull/{number}/merge", merge)
    return PullRequest(number, real.head, merge, real.branch, expected="pass_clean", base=tip)


def open_pull_with_files(project: Project, number: int, branch: str, files: dict[str, bytes]) -> PullRequest:
    """A pull request ``number`` whose head is main with ``files`` written (bytes as committed), and
    its test merge, made in ``origin`` on demand (it stays out of ``project.pulls``)."""
    head = _commit_files(project, project.main, files, f"pull request {number} ({branch})")
    tree = project.git("merge-tree", "--write-tree", project.main, head).splitlines()[0]
    merge = project.git("commit-tree", tree, "-p", project.main, "-p", head, "-m", "the test merge")
    project.git("update-ref", f"refs/pull/{number}/head", head)
    project.git("update-ref", f"refs/pull/{number}/merge", merge)
    return PullRequest(number, head, merge, branch)


def _commit_with_file(project: Project, parent: str, path: str, content: str, message: str) -> str:
    """A commit on ``parent`` in ``origin`` with ``path`` set to ``content`` (plumbing only: bare)."""
    return _commit_files(project, parent, {path: content.encode()}, message)


def _commit_files(project: Project, parent: str, files: dict[str, bytes], message: str) -> str:
    """A commit on ``parent`` in ``origin`` with ``files`` set (plumbing only: ``origin`` is bare)."""
    index = project.root / f"index-{parent[:12]}"
    env = {**clean_env(), "GIT_INDEX_FILE": str(index)}
    git(project.origin, "read-tree", parent, env=env)
    for path, content in files.items():
        blob = (
            subprocess.run(
                ["git", "-C", str(project.origin), "hash-object", "-w", "--stdin"],
                input=content,
                env=clean_env(),
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        git(project.origin, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
    tree = git(project.origin, "write-tree", env=env)
    index.unlink()
    return git(project.origin, "commit-tree", tree, "-p", parent, "-m", message)
