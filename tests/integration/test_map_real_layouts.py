"""``oracle-gate map`` on what real projects have: ``--help`` that states the default as it is, one line
saying why coverage.py measures, a git-ignored version file the build writes (``--copy-ignored``), and
a frozen test with a version-conditional ``skipif`` (attrs' ``TestAnnotations``). Real temporary
repositories and real pytest runs (on this interpreter: coverage.py measures on 3.11)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from coverage import CoverageData

from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

FROZEN = "tests/test_calc.py::TestAnnotations::test_frozen"


def map_args(repo: Repo, out: Path, *extra: str) -> list[str]:
    return ["map", "--repo", str(repo.root), "--sha", "HEAD", "--out", str(out), *extra]


def frozen_project(repo: Repo, condition: str) -> None:
    """A test class whose frozen test carries ``skipif(condition)``, and a freeze naming it."""
    repo.write("calc.py", "def sign(x):\n    return -1 if x < 0 else 1\n")
    repo.write(
        "tests/test_calc.py",
        "import sys\n\nimport pytest\n\nfrom calc import sign\n\n\n"
        "def test_pos():\n    assert sign(3) == 1\n\n\n"
        "class TestAnnotations:\n"
        f"    @pytest.mark.skipif({condition}, reason='needs a newer Python')\n"
        "    def test_frozen(self):\n        assert sign(-1) == -1\n",
    )
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    repo.commit("calc")
    entry = {"nodeid": FROZEN, "reason": "flaky on CI", "bound_sha": repo.head()[:10]}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    repo.commit("freeze")


def test_map_help_states_the_default_command_of_each_collector() -> None:
    proc = run_cli("map", "--help")

    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0
    assert (
        "default: python -m pytest -q -p no:cacheprovider -p no:randomly, measured by oracle-gate's "
        "collector: sys.monitoring on Python 3.12+, coverage.py's C tracer on 3.11; when the coverage "
        "configuration needs coverage.py"
    ) in text
    assert "--copy-ignored PATH" in text


def test_the_gates_collector_measures_without_a_note(repo: Repo, tmp_path: Path) -> None:
    frozen_project(repo, "False")

    proc = run_cli(*map_args(repo, tmp_path / "map.coverage"))

    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if line.startswith("oracle-gate map: measuring with")]
    assert notes == []  # the gate's own collector measures, on 3.11 too: nothing to explain
    manifest = json.loads((tmp_path / "map.coverage.manifest.json").read_text())
    assert manifest["collector"] == ("sysmon" if sys.version_info >= (3, 12) else "settrace")


def test_a_frozen_test_whose_skipif_is_false_is_run_for_the_map(repo: Repo, tmp_path: Path) -> None:
    """On today's main this stopped ``map`` with exit 3 (a freeze policy error)."""
    frozen_project(repo, "sys.version_info < (3, 0)")
    out = tmp_path / "map.coverage"

    proc = run_cli(*map_args(repo, out))

    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["frozen"] == {"ran": [FROZEN], "deselected": []}
    assert FROZEN in manifest["tests_ran"]


@pytest.mark.parametrize(
    ("condition", "marker"),
    [("sys.version_info >= (3, 0)", "skipif"), ("'sys.platform != \"nowhere\"'", "skipif")],
)
def test_a_frozen_test_actually_skipped_on_the_parent_is_named(
    repo: Repo, tmp_path: Path, condition: str, marker: str
) -> None:
    frozen_project(repo, condition)

    proc = run_cli(*map_args(repo, tmp_path / "map.coverage"))

    assert proc.returncode == 3, proc.stderr
    assert (
        f"freeze policy error: {FROZEN} is frozen and also carries a pytest.mark.{marker} marker"
        in proc.stderr
    )


def version_project(repo: Repo) -> None:
    """A package whose ``_version.py`` the build writes and git ignores (hatch-vcs, setuptools-scm)."""
    repo.write(".gitignore", "_version.py\n")
    repo.write("calc.py", "from _version import version\n\n\ndef sign(x):\n    return -1 if x < 0 else 1\n")
    repo.write(
        "tests/test_calc.py", "from calc import sign, version\n\n\ndef test_pos():\n    assert sign(3) == 1\n"
    )
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    repo.commit("calc, its version written at build time")
    repo.write("_version.py", "version = '1.2.3'\n")  # as `pip install -e .` writes it in the checkout


def test_a_git_ignored_version_file_is_copied_into_the_worktree_when_named(
    repo: Repo, tmp_path: Path
) -> None:
    version_project(repo)

    without = run_cli(*map_args(repo, tmp_path / "without.coverage"))
    named = run_cli(*map_args(repo, tmp_path / "map.coverage", "--copy-ignored", "_version.py"))

    assert without.returncode == 3
    assert "No module named '_version'" in without.stderr
    assert "pass --copy-ignored _version.py" in without.stderr
    assert "src layout" not in without.stderr
    assert named.returncode == 0, named.stderr
    assert repo.git("status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("calc.py", "the commit measured has this file"),
        ("../outside.py", "give a path relative to the repository"),
        ("/etc/hostname", "give a path relative to the repository"),
        ("missing.py", "no such regular file"),
        ("notes.txt", "git does not ignore it"),
    ],
)
def test_copy_ignored_refuses_what_is_not_a_git_ignored_file_of_the_checkout(
    repo: Repo, tmp_path: Path, path: str, problem: str
) -> None:
    version_project(repo)
    (repo.root / "notes.txt").write_text("untracked, not ignored\n")

    proc = run_cli(*map_args(repo, tmp_path / "map.coverage", "--copy-ignored", path))

    assert proc.returncode != 0
    assert f"--copy-ignored {path!r}" in proc.stderr or f"--copy-ignored {path}:" in proc.stderr
    assert problem in proc.stderr
    assert not (tmp_path / "map.coverage").exists()


def flipping_project(repo: Repo) -> None:
    """``test_flip`` takes the other branch on every run (a counter kept outside the worktree)."""
    repo.write(
        "calc.py",
        "def branch(odd):\n    if odd:\n        return 1\n    return 0\n\n\ndef one():\n    return 1\n",
    )
    repo.write(
        "tests/test_calc.py",
        "import os\n\nfrom calc import branch, one\n\n\n"
        "def test_flip():\n    path = os.environ['FLIP_FILE']\n"
        "    n = int(open(path).read()) if os.path.exists(path) else 0\n"
        "    open(path, 'w').write(str(n + 1))\n    branch(n % 2)\n\n\n"
        "def test_steady():\n    assert one() == 1\n",
    )
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    repo.commit("a test that flips")


def test_map_repeat_records_what_differed_between_runs_as_unstable(repo: Repo, tmp_path: Path) -> None:
    flipping_project(repo)
    env = clean_env(FLIP_FILE=str(tmp_path / "flip"))
    once, twice = tmp_path / "once.coverage", tmp_path / "twice.coverage"

    first = run_cli(*map_args(repo, once), env=env)
    second = run_cli(*map_args(repo, twice, "--repeat", "2"), env=env)

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert json.loads(once.with_name(once.name + ".manifest.json").read_text())["repeat"] == 1
    manifest = json.loads(twice.with_name(twice.name + ".manifest.json").read_text())
    assert manifest["repeat"] == 2
    assert manifest["unstable"] == {"tests/test_calc.py::test_flip": {"calc.py": [3, 4]}}
    data = CoverageData(basename=str(twice), read_only=True)
    data.read()
    by_line = data.contexts_by_lineno("calc.py")
    assert {3, 4} <= set(by_line)  # the map is the union of the runs
    data.close()


@pytest.mark.parametrize("value", ["0", "21", "x", "²"])
def test_map_repeat_refuses_a_count_out_of_range(repo: Repo, tmp_path: Path, value: str) -> None:
    flipping_project(repo)

    proc = run_cli(*map_args(repo, tmp_path / "map.coverage", "--repeat", value))

    assert proc.returncode != 0
    assert f"--repeat {value!r}: give a whole number of runs from 1 to 20" in proc.stderr


@pytest.mark.parametrize("built", [True, False])
def test_a_missing_git_ignored_version_file_of_a_src_layout_is_named_not_the_src_layout(
    repo: Repo, tmp_path: Path, built: bool
) -> None:
    """The hint blamed the src layout ("a src layout needs src/ on the path?") for a package that
    imports fine but whose build-written ``_version.py`` the worktree lacks (issue 28): it names the
    file and ``--copy-ignored`` now, and says to build it first when the checkout lacks it too."""
    repo.write(".gitignore", "src/pkg/_version.py\n")
    repo.write("src/pkg/__init__.py", "from pkg._version import version\n")
    repo.write("tests/test_pkg.py", "import pkg\n\n\ndef test_version():\n    assert pkg.version\n")
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    repo.commit("a src layout with a version file the build writes")
    if built:
        repo.write("src/pkg/_version.py", "version = '1.0'\n")

    proc = run_cli(*map_args(repo, tmp_path / "map.coverage"))

    assert proc.returncode == 3
    line = next(x for x in proc.stderr.splitlines() if "no map:" in x)
    assert "src/pkg/_version.py is ignored by git" in line
    assert line.endswith("pass --copy-ignored src/pkg/_version.py")
    assert ("build it in the checkout" in line) is not built
    assert "src layout" not in proc.stderr


def no_testpaths_project(repo: Repo, config: dict[str, str]) -> None:
    """Tests under tests/, and a benchmark needing a plugin this environment lacks (its CI installs it
    in another job, and runs ``pytest tests`` here)."""
    repo.write("calc.py", "def sign(x):\n    return -1 if x < 0 else 1\n")
    repo.write("tests/test_calc.py", "from calc import sign\n\n\ndef test_pos():\n    assert sign(3) == 1\n")
    repo.write(
        "benchmarks/test_speed.py", "import pytest_benchmark_plugin_absent\n\n\ndef test_speed():\n    pass\n"
    )
    repo.write("harness/test_harness.py", "def test_harness():\n    pass\n")  # the oracle's: run too
    for rel, text in config.items():
        repo.write(rel, text)
    repo.commit("tests, and benchmarks run elsewhere")


@pytest.mark.parametrize(
    "config",
    [{}, {"pytest.ini": "[pytest]\npythonpath = .\n"}, {"pyproject.toml": "[tool.pytest.ini_options]\n"}],
)
def test_without_testpaths_the_default_runs_the_conventional_test_directory_and_says_so(
    repo: Repo, tmp_path: Path, config: dict[str, str]
) -> None:
    """Without ``testpaths`` the default command collected benchmarks/ too, which the project's CI never
    runs here, and the map failed on its import (issue 28)."""
    no_testpaths_project(repo, config)
    out = tmp_path / "map.coverage"

    proc = run_cli(*map_args(repo, out))

    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "no testpaths in" in line]
    assert len(notes) == 1
    assert "the map runs pytest on tests/" in notes[0]
    assert "set testpaths" in notes[0]
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["tests_ran"] == ["harness/test_harness.py::test_harness", "tests/test_calc.py::test_pos"]
    assert manifest["command"][-2:] == ["tests", "harness"]


@pytest.mark.parametrize(
    "config",
    [
        {"pytest.ini": "[pytest]\ntestpaths = tests benchmarks\n"},
        {"setup.cfg": "[tool:pytest]\naddopts = --doctest-modules\n"},
    ],
)
def test_testpaths_or_module_doctests_leave_the_choice_to_pytest(
    repo: Repo, tmp_path: Path, config: dict[str, str]
) -> None:
    no_testpaths_project(repo, config)

    proc = run_cli(*map_args(repo, tmp_path / "map.coverage"))

    assert proc.returncode == 3  # the project's own choice collects benchmarks/: it fails as pytest does
    assert "No module named 'pytest_benchmark_plugin_absent'" in proc.stderr
    assert "no testpaths in" not in proc.stderr
