"""Contract v3.2 on a real repository with a really measured map: rebinding the syntax cannot name.

Each evasion replaces ``frozen_only`` (observed only by the frozen test) with code placed on the
blank lines between two functions, or from another module. Contract v2 judged every one
``pass_clean``: the inserted lines' anchors are blank lines outside any function, which no test
observes. Callers really run the replacement, which the last test shows by running the suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.markdown import to_markdown
from oracle_gate.render.verdict_json import to_json
from tests.support.factories import Measured, Project, clone_project, freeze_json, line_of
from tests.support.repo import Repo, clean_env, measure_coverage

RETRY = "src/pkg/retry.py"
TESTS = "tests/test_retry.py"
FROZEN = f"{TESTS}::test_frozen"

RETRY_PY = '''\
"""Retries, observed by known tests."""


def frozen_only(x):
    # only the frozen test runs this function
    return x * 3


def live(x):
    return x + 1
'''

TESTS_PY = """\
from pkg import retry


def test_live():
    assert retry.live(1) == 2


def test_frozen():
    assert retry.frozen_only(2) == 6
"""

BLANK = "    return x * 3\n\n\ndef live"  # the two blank lines between the functions


@pytest.fixture(scope="module")
def measured_retry(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    workdir = tmp_path_factory.mktemp("rebinding")
    repo = Repo(workdir / "origin")
    repo.write("src/pkg/__init__.py", "")
    repo.write(RETRY, RETRY_PY)
    repo.write(TESTS, TESTS_PY)
    first = repo.commit("retry module")
    repo.write("freeze.json", freeze_json([FROZEN], first[:10]))
    parent = repo.commit("freeze test_frozen")
    return Measured(repo.root, first, parent, measure_coverage(repo, workdir / "parent.coverage"))


@pytest.fixture
def project(measured_retry: Measured, tmp_path: Path) -> Project:
    return clone_project(measured_retry, tmp_path / "work")


def codes(v: Verdict) -> set[str]:
    return {str(c) for c in v.codes}


FROZEN_LINES = list(range(line_of(RETRY_PY, "def frozen_only"), line_of(RETRY_PY, "return x * 3") + 1))

IN_FILE_EVASIONS = {
    "globals": "globals()['frozen_only'] = lambda x: x",
    "sys.modules": "setattr(__import__('sys').modules[__name__], 'frozen_only', lambda x: x)",
    "exec": "exec('def frozen_only(x):\\n    return x')",
    "__code__": "frozen_only.__code__ = (lambda x: x).__code__",
}


@pytest.mark.parametrize("code", IN_FILE_EVASIONS.values(), ids=IN_FILE_EVASIONS.keys())
def test_a_frozen_only_function_replaced_between_functions_is_dynamic_rebinding(
    project: Project, code: str
) -> None:
    """v2: pass_clean. v3.2: every definition of the file is touched, and a human must look."""
    v = project.check(project.head(project.replace(RETRY, BLANK, f"    return x * 3\n\n{code}\n\ndef live")))
    assert v.verdict == "unscored"
    assert codes(v) == {"freeze_overlap", "dynamic_rebinding"}
    assert v.overlap == {RETRY: FROZEN_LINES}
    reason = next(r for r in v.reasons if r.code == "dynamic_rebinding")
    assert (reason.path, reason.line) == (RETRY, line_of(RETRY_PY, "return x * 3") + 2)
    shown = next(r for r in to_json(v)["reasons"] if r["code"] == "dynamic_rebinding")
    assert (shown["path"], shown["line"]) == (RETRY, reason.line)
    assert "dynamic_rebinding" in to_markdown(v)


def test_a_frozen_only_function_replaced_from_another_module_is_freeze_overlap(project: Project) -> None:
    """v2: pass_clean (the new module touches nothing of retry.py). v3.2: the definition is touched."""

    def patch(repo: Repo) -> None:
        repo.write("src/pkg/__init__.py", "from pkg import boot  # noqa: F401\n")
        repo.write("src/pkg/boot.py", "from pkg import retry\n\nretry.frozen_only = retry.live\n")

    v = project.check(project.head(patch))
    assert (v.verdict, codes(v)) == ("unscored", {"freeze_overlap"})
    assert v.touched[RETRY] == FROZEN_LINES
    assert v.overlap == {RETRY: FROZEN_LINES}


def test_an_honest_change_between_functions_stays_pass_clean(project: Project) -> None:
    v = project.check(
        project.head(project.replace(RETRY, BLANK, "    return x * 3\n\nLIMIT = 3\n\ndef live"))
    )
    assert (v.verdict, codes(v)) == ("pass_clean", {"live_surface_covers_diff"})


def test_the_replacement_really_runs(project: Project) -> None:
    """The evasion is real: with the ``globals()`` write, the frozen test's assertion fails."""
    project.head(
        project.replace(RETRY, BLANK, f"    return x * 3\n\n{IN_FILE_EVASIONS['globals']}\n\ndef live")
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", TESTS],
        cwd=project.root,
        env=clean_env(PYTHONPATH=str(project.root / "src"), PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert "1 failed, 1 passed" in run.stdout, run.stdout
