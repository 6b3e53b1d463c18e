"""What ``oracle-gate map`` pays before and around the tests it runs (issue 19: ``map`` on Python 3.11 at
most pytest-cov's cost): it imports neither the judge nor another command's modules, reads the
parent's oracle files in one git batch, and asks git once what it already answered. Real temporary
repositories and a real map run (coverage.py measures, as on 3.11)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from oracle_gate.git import Git, GitObject
from oracle_gate.oracle_files import read_oracle
from tests.support.repo import Repo, clean_env

# Modules a map has no use for: the judge's evaluation and change set, the other commands, and
# importlib.metadata (some 30 ms; the plugin's report names coverage.py's version); what only
# ``check`` reads of a policy (its approvals, its globs) or of a map (observers), the GitHub
# defaults of ``publish``, and base64 (a fetch's credentials).
NOT_FOR_MAP = (
    "oracle_gate.check",
    "oracle_gate.judge.verdict",
    "oracle_gate.judge.changes",
    "oracle_gate.judge.approvals",
    "oracle_gate.judge.globs",
    "oracle_gate.judge.observers",
    "oracle_gate.github",
    "oracle_gate.score",
    "oracle_gate.adopt",
    "oracle_gate.commands.freeze",
    "oracle_gate.approvals_file",
    "oracle_gate.commands.surface",
    "oracle_gate.commands.check",
    "oracle_gate.commands.score",
    "oracle_gate.maps.inside.collector",
    "importlib.metadata",
    "coverage",
    "base64",
)

PROBE = """\
import json, sys
from oracle_gate.cli import main
status = main(sys.argv[1:])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def project(repo: Repo) -> None:
    """A tiny project with a policy, a freeze naming one of its tests and a fixture lock."""
    repo.write("calc.py", "def double(x):\n    return 2 * x\n")
    repo.write(
        "tests/test_calc.py",
        "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\n"
        "def test_flaky():\n    assert double(0) == 0\n",
    )
    repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["."]\n')
    repo.write("oracle-gate.toml", 'tests = ["tests/**"]\n')
    repo.write("fixture_lock.json", json.dumps({"paths": ["calc.py"]}) + "\n")
    base = repo.commit("calc")
    entry = {"nodeid": "tests/test_calc.py::test_flaky", "reason": "flaky", "bound_sha": base[:10]}
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    repo.commit("freeze")


def modules_of_a_map(repo: Repo, out: Path) -> list[str]:
    """The modules a real ``oracle-gate map`` of ``repo``'s HEAD has imported when it ends."""
    argv = ["map", "--repo", str(repo.root), "--sha", "HEAD", "--out", str(out)]
    env = clean_env(ORACLE_GATE_COLLECTOR="coverage.py")

    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, check=False
    )

    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == 0, proc.stderr
    modules: list[str] = result["modules"]
    return modules


def test_map_imports_neither_the_judge_nor_other_commands(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    project(repo)
    out = tmp_path / "maps" / "x.coverage"

    modules = modules_of_a_map(repo, out)

    manifest = json.loads(out.with_name("x.coverage.manifest.json").read_text())
    assert manifest["frozen"]["ran"] == ["tests/test_calc.py::test_flaky"]  # the freeze was read
    assert "tomllib" in modules  # the policy was read, as TOML
    loaded = [m for m in modules if m.startswith(NOT_FOR_MAP)]
    assert loaded == []


def test_map_without_a_policy_file_does_not_import_the_toml_parser(tmp_path: Path) -> None:
    """No ``oracle-gate.toml``: the defaults apply, and tomllib (some 6 ms) is not imported."""
    repo = Repo(tmp_path / "repo")
    project(repo)
    repo.delete("oracle-gate.toml")
    repo.commit("no policy")
    out = tmp_path / "maps" / "x.coverage"

    modules = modules_of_a_map(repo, out)

    manifest = json.loads(out.with_name("x.coverage.manifest.json").read_text())
    assert manifest["frozen"]["ran"] == ["tests/test_calc.py::test_flaky"]  # the default freeze path
    assert [m for m in modules if m.startswith(("tomllib", *NOT_FOR_MAP))] == []


class CountingGit(Git):
    """A real :class:`Git` that records the subcommands it runs."""

    def __init__(self, repo: Path) -> None:
        super().__init__(repo)
        self.calls: list[str] = []

    def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        ok_codes: Iterable[int] = (0,),
        extra_env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        self.calls.append(" ".join(args[:2]))
        return super().run(args, stdin=stdin, ok_codes=ok_codes, extra_env=extra_env)

    def read(self, specs: Sequence[str]) -> list[GitObject | None]:
        self.calls.append(f"read {len(specs)}")
        return super().read(specs)


def test_the_oracle_files_are_read_in_one_batch(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    project(repo)
    git = CountingGit(repo.root)

    oracle = read_oracle(git, repo.head())

    assert [c for c in git.calls if c.startswith("read") or c == "cat-file --batch"] == [
        "read 3",
        "cat-file --batch",
    ]
    assert oracle.freeze.is_frozen("tests/test_calc.py::test_flaky")
    assert oracle.lock.paths == ("calc.py",)
    assert oracle.policy.tests == ("tests/**",)


def test_a_policy_that_moves_the_freeze_and_lock_is_read_from_there(tmp_path: Path) -> None:
    """The default paths are read in the first batch; a decoy there must not stand in for the moved files."""
    repo = Repo(tmp_path / "repo")
    project(repo)
    repo.write("oracle-gate.toml", 'freeze = "oracle/frozen.json"\nfixture_lock = "oracle/lock.json"\n')
    entry = {"nodeid": "tests/test_calc.py::test_double", "reason": "flaky", "bound_sha": repo.head()[:10]}
    repo.write("oracle/frozen.json", json.dumps({"schema": 1, "frozen": [entry]}) + "\n")
    repo.write("oracle/lock.json", json.dumps({"paths": ["tests/test_calc.py"]}) + "\n")
    repo.commit("move the oracle")
    git = CountingGit(repo.root)

    oracle = read_oracle(git, repo.head())

    assert [c for c in git.calls if c.startswith("read")] == ["read 3", "read 2"]
    assert oracle.freeze.is_frozen("tests/test_calc.py::test_double")
    assert not oracle.freeze.is_frozen("tests/test_calc.py::test_flaky")  # the decoy at freeze.json
    assert oracle.lock.paths == ("tests/test_calc.py",)


def test_git_answers_a_repeated_question_once(tmp_path: Path) -> None:
    """``map`` checks the repository and resolves the SHA, then ``build_map`` does again."""
    repo = Repo(tmp_path / "repo")
    project(repo)
    git = CountingGit(repo.root)

    git.check_repository()
    sha = git.commit("HEAD")
    git.check_repository()
    again = git.commit(sha)

    assert again == sha
    assert git.calls == ["rev-parse --git-dir", "rev-parse --verify"]
    assert git.commit("HEAD") == sha  # a ref is asked each time
    assert git.calls[-1] == "rev-parse --verify"


def test_map_reads_which_tests_are_frozen_without_judging_the_bindings(tmp_path: Path) -> None:
    """A binding (``bound_sha``) does not change which tests are frozen: ``map`` does not spend three
    git commands per entry on it; ``check`` still does."""
    repo = Repo(tmp_path / "repo")
    project(repo)
    foreign = {"nodeid": "tests/test_calc.py::test_double", "reason": "flaky", "bound_sha": "abcdef1234"}
    frozen = json.loads(repo.read("freeze.json"))
    repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [*frozen["frozen"], foreign]}) + "\n")
    repo.commit("a foreign binding")

    judged, mapped = CountingGit(repo.root), CountingGit(repo.root)
    for_check = read_oracle(judged, repo.head())
    for_map = read_oracle(mapped, repo.head(), check_bound=False)

    assert mapped.calls == ["read 3", "cat-file --batch"]
    assert len(judged.calls) > len(mapped.calls)
    assert any("abcdef1234" in str(p) for p in for_check.freeze.problems)
    assert for_map.freeze.is_frozen("tests/test_calc.py::test_double")
    assert for_check.freeze.is_frozen("tests/test_calc.py::test_double")
