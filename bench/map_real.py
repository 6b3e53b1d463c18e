"""``oracle-gate map`` on real projects, each mapped twice: the ``sys.monitoring`` collector against
coverage.py (``ORACLE_GATE_COLLECTOR=coverage.py``), compared (test context, file, line) by line.

Each project is a released sdist (``pip download --no-binary :all: --no-deps``, cached) extracted into
a fresh git repository: ``git add -A`` honours the sdist's own ``.gitignore``, so a version file the
build writes and git ignores (``_version.py``) is in the checkout but not in the commit, as after a
build in a real clone. Where this bench changes a project to exercise a setting the project does not
use itself, the edit is applied before the commit and printed (``edited:``).

Built as the README says: a Python 3.12 venv per project (cached; the gate re-installed when its
source changes) with the project's test dependencies, pytest-cov and this checkout of the gate
installed without ``-e``; the project itself is not installed (the map imports it from the
worktree: ``src/`` first on ``PYTHONPATH``). Then, from the checkout::

    oracle-gate map --repo . --sha HEAD --out MAP [--copy-ignored src/pkg/_version.py]

Both runs get ``PYTHONHASHSEED=0`` and the project's own determinism options (hypothesis' seed), so
that what differs is the collector. Printed per project: tests, the features exercised, the wall
time of each map, whether each map flagged the parent (a test failing only under ``map`` is a
finding), and ``equivalent: yes`` or the number of differences with the first few. Plain figures,
never asserted::

    .venv/bin/python bench/map_real.py [--projects attrs,pluggy,...] [--python python3.12]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test suite's way of finding python3.12 (a pyenv shim too)

from tests.support.py312 import python312  # noqa: E402

Observation = tuple[str, str, int]  # (test context, repo-relative file, line)
Arc = tuple[str, str, int, int]


def no_edit(root: Path) -> list[str]:
    return []


def drop_subprocess_patch(root: Path) -> list[str]:
    """attrs measures its subprocesses (``patch = ["subprocess"]``), which the collector cannot: without
    the line, the collector itself measures attrs' src layout, ``branch`` and ``source_pkgs``."""
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(text.replace('patch = ["subprocess"]\n', ""))
    return ['pyproject.toml: removed [tool.coverage.run] patch = ["subprocess"]']


NO_COVER_TESTS = (
    "test_error_on_weird_lines",
    "test_iniconfig_from_file",
    "test_example_pypirc",
    "test_parse_strips_inline_comments",
)


def mark_no_cover(root: Path) -> list[str]:
    """No project found on PyPI marks its own tests with pytest-cov's ``no_cover``: four of iniconfig's
    tests get the marker (one of them parametrized, the marker above ``parametrize``)."""
    path = root / "testing" / "test_iniconfig.py"
    lines = path.read_text().splitlines(keepends=True)
    out: list[str] = []
    for line in lines:
        match = re.match(r"def (test_\w+)\(", line)
        if match and match.group(1) in NO_COVER_TESTS:
            start = len(out)
            while start > 0 and out[start - 1].startswith(("@", " ", ")")):
                start -= 1  # above the decorators of the function (a parametrize spans lines)
            out.insert(start, "@pytest.mark.no_cover\n")
        out.append(line)
    path.write_text("".join(out))
    return [f"testing/test_iniconfig.py: @pytest.mark.no_cover on {', '.join(NO_COVER_TESTS)}"]


@dataclass(frozen=True)
class Project:
    requirement: str
    deps: tuple[str, ...]
    features: str
    edit: Callable[[Path], list[str]] = no_edit
    copy_ignored: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    # files whose coverage.py-only observations are the measuring tool's own doing, and why
    harness: tuple[tuple[str, ...], str] = ((), "")
    baseline: bool = False  # timing-dependent suite: a second coverage.py map shows the noise floor


ATTRS_DEPS = ("attrs==26.1.0", "cloudpickle", "hypothesis", "pympler", "pytest")
ATTRS_ENV = {"PYTEST_ADDOPTS": "--hypothesis-seed=0"}
PROJECTS = {
    "attrs": Project(
        "attrs==26.1.0",
        ATTRS_DEPS,
        "src layout; [tool.coverage.run] branch, source_pkgs, patch = [subprocess] (the collector falls "
        "back: both maps are coverage.py's); hypothesis suite",
        env=ATTRS_ENV,
    ),
    "attrs-nopatch": Project(
        "attrs==26.1.0",
        ATTRS_DEPS,
        "attrs without its patch line: src layout, branch, source_pkgs measured by the collector",
        edit=drop_subprocess_patch,
        env=ATTRS_ENV,
    ),
    "pluggy": Project(
        "pluggy==1.7.0",
        ("pytest",),
        "src layout; .coveragerc branch = 1 + include globs (its tests measured too); pytest itself "
        "runs on the measured pluggy (src/ first on PYTHONPATH)",
        harness=(
            ("src/pluggy/_execution.py", "src/pluggy/_result.py"),
            "pytest-cov's own hookwrapper=True pytest_runtest_call (active with --cov only) runs "
            "pluggy's old-style-wrapper code around every test's call",
        ),
    ),
    "iniconfig": Project(
        "iniconfig==2.3.1",
        ("pytest",),
        "src layout; setuptools-scm writes git-ignored src/iniconfig/_version.py (--copy-ignored); "
        "pytest-cov no_cover markers (added here); no coverage configuration",
        edit=mark_no_cover,
        copy_ignored=("src/iniconfig/_version.py",),
    ),
    "execnet": Project(
        "execnet==2.1.2",
        ("pytest", "pytest-timeout"),
        "src layout; hatch-vcs writes git-ignored src/execnet/_version.py, imported unconditionally "
        "(--copy-ignored); tests start threads and subprocess gateways",
        copy_ignored=("src/execnet/_version.py",),
        baseline=True,
    ),
}


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "COVERAGE_", "PYTEST_"))}
    env.update(
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        PYTHONHASHSEED="0",
    )
    env.pop("ORACLE_GATE_COLLECTOR", None)
    return env


def gate_digest() -> str:
    digest = hashlib.sha256()
    for path in [*sorted((ROOT / "gate").rglob("*.py")), ROOT / "pyproject.toml"]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def project_venv(name: str, project: Project, python: str, cache: Path) -> Path:
    """A cached venv with the project's test dependencies, pytest-cov and this checkout's gate (not -e).

    Keyed by the dependencies and the interpreter; the gate is re-installed when its source changed."""
    key = hashlib.sha256(f"{python}|{project.deps}".encode()).hexdigest()[:12]
    home = cache / f"venv-{name}-{key}"
    py = str(home / "bin" / "python")
    if not (home / ".complete").is_file():
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(home)], check=True, capture_output=True)
        pip = [py, "-m", "pip", "install", "-q", *project.deps, "pytest-cov", str(ROOT)]
        subprocess.run(pip, check=True, capture_output=True)
        (home / ".gate").write_text(gate_digest())
        (home / ".complete").touch()
    if (home / ".gate").read_text() != gate_digest():
        reinstall = [py, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(ROOT)]
        subprocess.run(reinstall, check=True, capture_output=True)
        (home / ".gate").write_text(gate_digest())
    return home / "bin" / "python"


def sdist(requirement: str, cache: Path, py: Path) -> Path:
    folder = cache / "sdists" / requirement
    found = sorted(folder.glob("*.tar.gz")) if folder.is_dir() else []
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        download = [str(py), "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps"]
        subprocess.run([*download, requirement, "-d", str(folder)], check=True, capture_output=True)
        found = sorted(folder.glob("*.tar.gz"))
    return found[0]


def materialize(project: Project, root: Path, cache: Path, py: Path) -> list[str]:
    """The sdist as a git repository at ``root``; returns the edits this bench made."""
    extract = root.parent / "extract"
    with tarfile.open(sdist(project.requirement, cache, py)) as tar:
        tar.extractall(extract, filter="data")
    shutil.move(next(extract.iterdir()), root)
    edits = project.edit(root)
    env = git_env()
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", project.requirement]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    for rel in project.copy_ignored:
        ignored = subprocess.run(["git", "check-ignore", "-q", rel], cwd=root, env=env, check=False)
        state = (
            "present, git-ignored" if (root / rel).is_file() and ignored.returncode == 0 else "NOT ignored"
        )
        edits.append(f"{rel}: {state}, not in the commit")
    return edits


@dataclass(frozen=True)
class MapRun:
    seconds: float
    status: int
    manifest: dict[str, object]
    notes: list[str]
    tail: str


def run_map(py: Path, root: Path, out: Path, project: Project, collector: str | None) -> MapRun:
    argv = [str(py), "-m", "oracle_gate", "map", "--repo", ".", "--sha", "HEAD", "--out", str(out)]
    for rel in project.copy_ignored:
        argv += ["--copy-ignored", rel]
    env = {**git_env(), **project.env}
    if collector:
        env["ORACLE_GATE_COLLECTOR"] = collector
    env["PATH"] = f"{py.parent}{os.pathsep}{env.get('PATH', '')}"
    started = time.perf_counter()
    argv += ["--progress", "never"]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    manifest_path = out.with_name(out.name + ".manifest.json")
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    notes = [line for line in proc.stderr.splitlines() if line.startswith("oracle-gate map: measuring with")]
    return MapRun(seconds, proc.returncode, manifest, notes, proc.stderr[-2500:])


def observations(path: Path) -> tuple[set[Observation], set[Arc], bool]:
    """Every (context, file, line) with a non-empty context, and the arcs when the map has them."""
    from coverage import CoverageData

    data = CoverageData(basename=str(path), read_only=True)
    data.read()
    lines: set[Observation] = set()
    for name in data.measured_files():
        for line, contexts in data.contexts_by_lineno(name).items():
            lines.update((c, name, line) for c in contexts if c)
    has_arcs = data.has_arcs()
    data.close()
    arcs: set[Arc] = set()
    if has_arcs:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        query = (
            "SELECT c.context, f.path, a.fromno, a.tono FROM arc a JOIN file f ON a.file_id = f.id "
            "JOIN context c ON a.context_id = c.id WHERE c.context != ''"
        )
        arcs = {(c, f, a, b) for c, f, a, b in con.execute(query)}
        con.close()
    return lines, arcs, has_arcs


def differences(
    name: str,
    mine: set[Observation] | set[Arc],
    theirs: set[Observation] | set[Arc],
    labels: tuple[str, str] = ("the collector's map", "coverage.py's"),
) -> str:
    only_mine, only_theirs = sorted(mine - theirs), sorted(theirs - mine)
    if not only_mine and not only_theirs:
        return f"{name}: equivalent: yes ({len(mine):,} observations)"
    shown = [f"  only in {labels[0]}: {o}" for o in only_mine[:4]]
    shown += [f"  only in {labels[1]}: {o}" for o in only_theirs[:4]]
    head = f"{name}: equivalent: NO, {len(only_mine)} only in {labels[0]}, {len(only_theirs)} only in "
    head += labels[1]
    return "\n".join([head, *shown])


def describe(label: str, run: MapRun) -> str:
    m = run.manifest
    flagged = "flagged (tests failed)" if m.get("tests_passed") is False else "not flagged"
    if run.status not in (0, 1):
        return f"{label}: NO MAP (exit {run.status}) after {run.seconds:.1f} s\n{run.tail}"
    failed = m.get("failed")
    extra = f"; failed: {failed[:3]}" if isinstance(failed, list) and failed else ""
    return (
        f"{label}: {run.seconds:6.1f} s, exit {run.status}, {m.get('tests')} tests, collector "
        f"{m.get('collector')}, {flagged}{extra}"
    )


def bench_project(name: str, project: Project, python: str, cache: Path, tmp: Path) -> None:
    print(f"\n## {name} ({project.requirement})\nfeatures: {project.features}", flush=True)
    py = project_venv(name, project, python, cache)
    root = tmp / name / "repo"
    root.parent.mkdir(parents=True)
    for edit in materialize(project, root, cache, py):
        print(f"edited: {edit}" if not edit.startswith("src/") else f"checkout: {edit}")
    runs = {}
    labels = [("mon", None), ("cov", "coverage.py")] + ([("cov2", "coverage.py")] if project.baseline else [])
    for label, collector in labels:
        out = tmp / name / label / "map.coverage"
        out.parent.mkdir()
        runs[label] = (run_map(py, root, out, project, collector), out)
        print(describe(f"map {label}", runs[label][0]), flush=True)
        for note in runs[label][0].notes:
            print(f"  {note}")
    if any(run.status not in (0, 1) for run, _ in runs.values()):
        return
    mon_lines, mon_arcs, mon_has_arcs = observations(runs["mon"][1])
    cov_lines, cov_arcs, cov_has_arcs = observations(runs["cov"][1])
    files, why = project.harness
    harness = {o for o in cov_lines - mon_lines if o[1] in files}
    print(differences("lines (context, file, line)", mon_lines, cov_lines - harness))
    if harness:
        print(f"  and {len(harness):,} coverage.py-only observations in {', '.join(files)}: {why}")
    if mon_has_arcs and cov_has_arcs:
        print(differences("arcs (context, file, from, to)", mon_arcs, cov_arcs))
    elif cov_has_arcs:
        print("arcs: coverage.py's map has arcs, the collector records lines (compared as lines above)")
    if "cov2" in runs:
        again, _, _ = observations(runs["cov2"][1])
        floor = "noise floor: coverage.py against coverage.py"
        print(differences(floor, again, cov_lines, ("the second", "the first")))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--python", help="the interpreter to build the venvs from (default: python3.12)")
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "oracle-gate-map-real")
    parser.add_argument("--keep", type=Path, help="keep the repositories and maps in this new directory")
    args = parser.parse_args()
    python = args.python or python312()
    if python is None:
        raise SystemExit("python3.12 is not on PATH (nor in pyenv): give --python")
    unknown = sorted(set(args.projects.split(",")) - set(PROJECTS))
    if unknown:
        raise SystemExit(f"unknown project(s): {', '.join(unknown)} (known: {', '.join(PROJECTS)})")
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"python {python}; machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="oracle-gate-map-real-") as tmp:
        work = Path(tmp) if args.keep is None else args.keep
        for name in args.projects.split(","):
            bench_project(name, PROJECTS[name], python, args.cache, work)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
