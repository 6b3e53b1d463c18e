"""What ``oracle-gate init`` learns from the repository before it writes anything.

Only the working tree and git's own answers are read; nothing is run. Each guess is reported with
where it came from, so the maintainer can see what to correct (a wrong guess is a visible line in a
workflow file, never a silent default).
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from oracle_gate.errors import UsageError

# The collector measures per-test coverage with sys.monitoring on 3.12+: the map costs 1.03-1.24x
# the plain suite there, against about 2x with coverage.py's C tracer on 3.11 (bench/map_overhead.py).
FAST_COLLECTOR = (3, 12)
TEST_REQUIREMENTS = (
    "requirements-test.txt",
    "requirements-tests.txt",
    "requirements-dev.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements/dev.txt",
    "test-requirements.txt",
    "dev-requirements.txt",
)
FALLBACK_INSTALL = "python -m pip install pytest pytest-cov"


@dataclass(frozen=True)
class Detected:
    default_branch: str
    python: str  # "3.12"
    requirements: str | None  # the test requirements file, relative to the root; None: not found
    test_dirs: tuple[str, ...]
    src_layout: bool
    notes: tuple[str, ...]  # what was guessed, and what to check


def detect(repo: Path) -> Detected:
    if not (repo / ".git").exists():
        raise UsageError(f"{repo}: not a git repository (run oracle-gate init at the repository's root)")
    notes: list[str] = []
    branch = default_branch(repo, notes)
    python = python_version(repo, notes)
    requirements = test_requirements(repo, notes)
    tests = tuple(name for name in ("tests", "test") if (repo / name).is_dir())
    if not tests:
        notes.append("no tests/ or test/ directory: the map runs `python -m pytest` from the root")
    src = (repo / "src").is_dir() and any(p.is_dir() for p in (repo / "src").iterdir())
    if src:
        notes.append("src layout: `oracle-gate map` puts the measured commit's src/ first on PYTHONPATH")
    return Detected(branch, python, requirements, tests, src, tuple(notes))


def default_branch(repo: Path, notes: list[str]) -> str:
    """origin's HEAD when the clone knows it, else the checked-out branch, else ``main``."""
    for args, where in (
        (["symbolic-ref", "--short", "refs/remotes/origin/HEAD"], "origin/HEAD"),
        (["symbolic-ref", "--short", "HEAD"], "the checked-out branch"),
    ):
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
        name = proc.stdout.strip().removeprefix("origin/")
        if proc.returncode == 0 and re.fullmatch(r"[A-Za-z0-9._/-]+", name):
            notes.append(f"default branch {name!r} from {where}")
            return name
    notes.append("default branch not found: 'main' assumed")
    return "main"


def python_version(repo: Path, notes: list[str]) -> str:
    """3.12 (the fast collector), or the project's own pin when it is 3.12 or later; below 3.12 only
    when the project cannot run on 3.12, with a note saying what that costs."""
    pinned = repo / ".python-version"
    if pinned.is_file():
        found = re.match(r"\s*(3)\.(\d+)", pinned.read_text(encoding="utf-8", errors="replace"))
        if found and (int(found[1]), int(found[2])) >= FAST_COLLECTOR:
            notes.append(f"Python 3.{found[2]} from .python-version")
            return f"3.{found[2]}"
    below = _upper_bound_below_312(repo)
    if below is not None:
        notes.append(
            f"Python {below}: requires-python excludes 3.12, so the map runs with the slow 3.11 tracer "
            "(about 2x the suite's time instead of 1.1x)"
        )
        return below
    notes.append("Python 3.12 for the map jobs (the fast collector needs 3.12+)")
    return "3.12"


def _upper_bound_below_312(repo: Path) -> str | None:
    try:
        project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    spec = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(spec, str):
        return None
    for op, minor in re.findall(r"(<=?)\s*3\.(\d+)", spec):
        last = int(minor) - (1 if op == "<" else 0)
        if last < FAST_COLLECTOR[1]:
            return f"3.{last}"
    return None


def test_requirements(repo: Path, notes: list[str]) -> str | None:
    """The file the map jobs install the test dependencies from, when there is one."""
    for name in TEST_REQUIREMENTS:
        if (repo / name).is_file():
            notes.append(f"test dependencies from {name}")
            return name
    notes.append(
        "no test requirements file found: the map jobs install pytest and pytest-cov only; "
        "edit that line to install your test dependencies (not the project itself, editable)"
    )
    return None


def install_line(detected: Detected, checkout: str = "") -> str:
    """How a map job installs the test dependencies, the checkout being at ``checkout`` (a relative
    path, "" for the workspace root). Never an editable install of the checkout: the map is measured
    in a separate worktree, and the tests must import the code there, not the checkout's."""
    if detected.requirements is None:
        return FALLBACK_INSTALL
    return f"python -m pip install -r {checkout}{detected.requirements}"
