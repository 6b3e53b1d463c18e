"""Contract v2's observer rules on a real repository with a really measured map.

Each case is a way an agent's change could route around the frozen tests (or weaken the live ones)
that v1 judged ``pass_clean``, plus the honest changes that must stay ``pass_clean``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.markdown import to_markdown
from oracle_gate.render.verdict_json import to_json
from tests.support.factories import Measured, Project, clone_project, freeze_json, line_of
from tests.support.in_process import run_cli
from tests.support.repo import Repo, measure_coverage

OBS = "src/pkg/obs.py"
TESTS = "tests/test_obs.py"
LIVE = f"{TESTS}::test_live"
FROZEN = f"{TESTS}::test_frozen"

OBS_PY = '''\
"""Observed by known tests."""


def frozen_only(x):
    # only the frozen test runs this function

    z = x - 1
    return z * 3


def live(x):
    """Docstring of a function a live test observes."""
    y = x + 1
    return y * 2


def other(x):
    return x + 10
'''

TESTS_PY = """\
from pkg.obs import frozen_only, live, other


def test_live():
    assert live(1) == 4


def test_frozen():
    assert frozen_only(2) == 3


def test_other():
    assert other(1) == 11
"""


MAP_COMMAND = (sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov", "--cov-context=test")


def build(workdir: Path) -> Measured:
    repo = Repo(workdir / "origin")
    repo.write("src/pkg/__init__.py", "")
    repo.write(OBS, OBS_PY)
    repo.write(TESTS, TESTS_PY)
    first = repo.commit("observed module")
    repo.write("freeze.json", freeze_json([FROZEN], first[:10]))
    parent = repo.commit("freeze test_frozen")
    return Measured(repo.root, first, parent, measure_coverage(repo, workdir / "parent.coverage"))


@pytest.fixture(scope="module")
def measured_obs(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    return build(tmp_path_factory.mktemp("observers"))


@pytest.fixture
def obs(measured_obs: Measured, tmp_path: Path) -> Project:
    return clone_project(measured_obs, tmp_path / "work")


def line(snippet: str, path: str = OBS) -> int:
    return line_of(OBS_PY if path == OBS else TESTS_PY, snippet)


def codes(v: Verdict) -> list[str]:
    return [str(c) for c in v.codes]


# -- changes to a frozen-only function through lines no test runs ------------------------------------


def test_a_comment_inside_a_frozen_only_function_replaced_by_code_is_overlap(obs: Project) -> None:
    head = obs.head(obs.replace(OBS, "    # only the frozen test runs this function\n", "    return x\n"))
    v = obs.check(head)
    n = line("# only the frozen test")
    assert (v.verdict, codes(v)) == ("unscored", ["freeze_overlap"])
    assert v.overlap == {OBS: [n]}
    assert v.inherited == {OBS: [n]}
    assert "the function around it is observed only by frozen tests" in to_markdown(v)


def test_a_blank_line_inside_a_frozen_only_function_replaced_by_code_is_overlap(obs: Project) -> None:
    head = obs.head(obs.replace(OBS, "function\n\n    z = x - 1", "function\n    return x\n    z = x - 1"))
    v = obs.check(head)
    blank = line("# only the frozen test") + 1
    assert v.touched == {OBS: [blank]}
    assert v.overlap == {OBS: [blank]}


def test_a_decorator_added_above_a_frozen_only_function_is_overlap(obs: Project) -> None:
    head = obs.head(obs.replace(OBS, "def frozen_only(x):", "@lambda f: lambda x: x\ndef frozen_only(x):"))
    v = obs.check(head)
    assert (v.verdict, codes(v)) == ("unscored", ["freeze_overlap"])
    assert v.overlap == {OBS: [line("def frozen_only")]}


def test_the_def_line_of_a_frozen_only_function_changed_is_overlap(obs: Project) -> None:
    head = obs.head(obs.replace(OBS, "def frozen_only(x):", "def frozen_only(x=0):"))
    v = obs.check(head)
    assert (v.verdict, codes(v)) == ("unscored", ["freeze_overlap"])
    assert v.overlap == {OBS: [line("def frozen_only")]}


def test_a_frozen_only_function_rebound_at_module_level_below_it_is_overlap(obs: Project) -> None:
    """Appending ``frozen_only = ...`` touches every line of the parent's ``def frozen_only``."""
    head = obs.head(lambda repo: repo.write(OBS, repo.read(OBS) + "\n\nfrozen_only = lambda x: x\n"))
    v = obs.check(head)
    start, end = line("def frozen_only"), line("return z * 3")
    assert set(range(start, end + 1)) <= set(v.touched[OBS])
    assert (v.verdict, codes(v)) == ("unscored", ["freeze_overlap"])
    assert v.overlap == {OBS: list(range(start, end + 1))}


def test_rebinding_by_import_is_overlap(obs: Project) -> None:
    head = obs.head(
        lambda repo: repo.write(OBS, repo.read(OBS) + "\n\nfrom os.path import join as frozen_only\n")
    )
    assert obs.check(head).overlap[OBS][0] == line("def frozen_only")


# -- a live test weakened in the change that breaks the code it observed ------------------------------


def break_live(repo: Repo) -> None:
    repo.write(OBS, repo.read(OBS).replace("y = x + 1", "y = x + 2"))


def break_live_and_its_assert(repo: Repo) -> None:
    """``break_live``, and the live test still calls ``live(1)`` but no longer asserts on it."""
    break_live(repo)
    repo.write(TESTS, repo.read(TESTS).replace("    assert live(1) == 4\n", "    live(1)\n"))


@pytest.mark.parametrize(
    ("weaken", "how"),
    [
        ("    assert live(1) == 4\n", "    live(1)\n"),  # asserts removed
        ("    assert live(1) == 4\n", "    return\n    assert live(1) == 4\n"),  # an early return
        ("def test_live():", "def check_live():"),  # renamed: no longer collected
    ],
    ids=["asserts-removed", "early-return", "renamed"],
)
def test_a_live_test_weakened_with_the_code_it_observed_is_observer_edited(
    obs: Project, weaken: str, how: str
) -> None:
    def change(repo: Repo) -> None:
        break_live(repo)
        repo.write(TESTS, repo.read(TESTS).replace(weaken, how))

    v = obs.check(obs.head(change))
    n = line("y = x + 1")
    assert (v.verdict, codes(v)) == ("unscored", ["observer_edited"])
    assert v.edited_only == {OBS: [n]}
    assert v.edited_observers == {OBS: {n: [LIVE]}}
    assert to_json(v)["edited_only"] == {OBS: [n]}
    reason = next(r for r in v.reasons if r.code == "observer_edited")
    assert (reason.path, reason.line) == (OBS, n)


def test_a_live_test_file_deleted_with_the_code_it_observed_is_observer_edited(obs: Project) -> None:
    def change(repo: Repo) -> None:
        break_live(repo)
        repo.delete(TESTS)

    v = obs.check(obs.head(change))
    assert "observer_edited" in codes(v)
    assert v.edited_only == {OBS: [line("y = x + 1")]}
    assert v.edited_tests[LIVE] == "its file is deleted or renamed"


def test_edited_observers_live_lets_the_edited_test_count(obs: Project) -> None:
    obs.new_parent(lambda repo: repo.write("oracle-gate.toml", 'edited_observers = "live"\n'))
    v = obs.check(obs.head(break_live_and_its_assert))
    assert (v.verdict, codes(v)) == ("pass_clean", ["live_surface_covers_diff"])


def test_a_malformed_edited_observers_value_keeps_the_safe_default(obs: Project) -> None:
    obs.new_parent(lambda repo: repo.write("oracle-gate.toml", 'edited_observers = "yes"\n'))
    v = obs.check(obs.head(break_live_and_its_assert))
    assert codes(v) == ["oracle_incomplete", "observer_edited"]
    assert "edited_observers" in v.reasons[0].detail


# -- every freeze entry must be visible in the map --------------------------------------------------------


def test_a_map_built_without_the_frozen_test_is_oracle_incomplete(obs: Project, tmp_path: Path) -> None:
    cov = measure_coverage(obs.repo, tmp_path / "no-frozen.coverage", args=("tests", "-k", "not frozen"))
    head = obs.head(obs.replace(OBS, "z = x - 1", "z = x - 2"))
    v = obs.check(head, coverage=cov)
    assert (v.verdict, codes(v)) == ("unscored", ["oracle_incomplete"])
    assert "matches no test the coverage map saw run" in v.reasons[0].detail
    assert v.overlap == {}


def test_oracle_gate_map_with_k_deselecting_the_frozen_test_records_it_and_is_incomplete(
    obs: Project, tmp_path: Path
) -> None:
    obs.repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    parent = obs.new_parent(lambda repo: None, "pytest config")
    out = tmp_path / "map" / "parent.coverage"
    proc = run_cli(
        "map",
        "--repo",
        str(obs.root),
        "--sha",
        parent,
        "--out",
        str(out),
        "--",
        *MAP_COMMAND,
        "-k",
        "not frozen",
    )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["frozen"] == {"ran": [], "deselected": [FROZEN]}
    assert manifest["tests_ran"] == [LIVE, f"{TESTS}::test_other"]
    v = obs.check(obs.head(obs.replace(OBS, "z = x - 1", "z = x - 2")), coverage=out, coverage_sha=None)
    assert codes(v) == ["oracle_incomplete"]


def test_oracle_gate_map_lists_every_test_that_ran_and_the_frozen_ones(obs: Project, tmp_path: Path) -> None:
    obs.repo.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    parent = obs.new_parent(lambda repo: None, "pytest config")
    out = tmp_path / "map" / "parent.coverage"
    proc = run_cli("map", "--repo", str(obs.root), "--sha", parent, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["frozen"] == {"ran": [FROZEN], "deselected": []}
    assert manifest["tests_ran"] == sorted([LIVE, FROZEN, f"{TESTS}::test_other"])
    v = obs.check(obs.head(obs.replace(OBS, "z = x - 1", "z = x - 2")), coverage=out, coverage_sha=None)
    assert codes(v) == ["freeze_overlap"]


def test_a_freeze_nodeid_that_matches_nothing_is_oracle_incomplete(obs: Project) -> None:
    entries = [FROZEN, f"{TESTS}::test_gone"]
    obs.new_parent(
        lambda repo: repo.write("freeze.json", freeze_json(entries, obs.measured.root_commit[:10]))
    )
    v = obs.check(obs.head(obs.replace(OBS, "y = x + 1", "y = 1 + x")))
    assert (v.verdict, codes(v)) == ("unscored", ["oracle_incomplete"])
    assert "'tests/test_obs.py::test_gone'" in v.reasons[0].detail
    assert v.reasons[0].path == "freeze.json"


# -- honest changes stay pass_clean ----------------------------------------------------------------------


def test_a_new_test_inserted_between_two_existing_ones_is_pass_clean(obs: Project) -> None:
    """The insertion's anchors (a blank line, the next test's ``def``) edit neither neighbour; the
    ``def`` line takes its own (live) test's observers."""
    new = "def test_new():\n    assert live(2) == 6\n\n\ndef test_other():"
    v = obs.check(obs.head(obs.replace(TESTS, "def test_other():", new)))
    assert v.touched == {TESTS: [line("def test_other", TESTS) - 1, line("def test_other", TESTS)]}
    assert (v.verdict, codes(v)) == ("pass_clean", ["live_surface_covers_diff"])
    assert v.edited_tests == {}


def test_a_new_test_inserted_just_above_a_frozen_test_touches_its_def_line(obs: Project) -> None:
    """The letter of v2: the frozen test's ``def`` line is an anchor, runs only at import, and takes
    the observers of its function (the frozen test alone): freeze_overlap (see the README's choices)."""
    new = "def test_new():\n    assert live(2) == 6\n\n\ndef test_frozen():"
    v = obs.check(obs.head(obs.replace(TESTS, "def test_frozen():", new)))
    assert v.overlap == {TESTS: [line("def test_frozen", TESTS)]}


def test_a_fix_plus_a_brand_new_test_is_pass_clean(obs: Project) -> None:
    def change(repo: Repo) -> None:
        repo.write(OBS, repo.read(OBS).replace("y = x + 1", "y = 1 + x"))
        repo.write(TESTS, repo.read(TESTS) + "\n\ndef test_live_again():\n    assert live(0) == 2\n")

    v = obs.check(obs.head(change))
    assert (v.verdict, codes(v)) == ("pass_clean", ["live_surface_covers_diff"])


def test_a_docstring_edit_in_a_live_observed_function_is_pass_clean(obs: Project) -> None:
    head = obs.head(obs.replace(OBS, "Docstring of a function", "The docstring of a function"))
    v = obs.check(head)
    assert v.touched == {OBS: [line("Docstring of a function")]}
    assert (v.verdict, codes(v)) == ("pass_clean", ["live_surface_covers_diff"])
