"""Every row of the verdict table on a real repository with per-test coverage measured by pytest-cov."""

from __future__ import annotations

import hashlib
import json

from oracle_gate.judge.verdict import Verdict
from tests.support.factories import MOD_PY, TEST_FILE, Project, dedent, line_of
from tests.support.repo import Repo

MOD = "src/pkg/mod.py"
LAZY = "src/pkg/lazy.py"


def codes(v: Verdict) -> list[str]:
    return [str(code) for code in v.codes]


def test_change_observed_by_live_tests_passes_clean(project: Project) -> None:
    """An edit of lines a live test observes is pass_clean, exit 0."""
    head = project.head(project.replace(MOD, "    y = x + 1\n", "    y = 1 + x\n"))
    v = project.check(head)
    assert (v.verdict, codes(v)) == ("pass_clean", ["live_surface_covers_diff"])
    assert v.touched == {MOD: [project.line("y = x + 1")]}
    assert v.exit_status == 0


def test_line_shared_by_live_and_frozen_tests_is_no_overlap(project: Project) -> None:
    """A line a frozen and a live test both observe is on the live surface."""
    head = project.head(project.replace(MOD, "    return x * x\n", "    return x**2\n"))
    assert project.check(head).verdict == "pass_clean"


def test_change_under_the_frozen_test_alone_is_overlap(project: Project) -> None:
    """An edit of lines only the frozen test observes is freeze_overlap with those lines."""
    head = project.head(project.replace(MOD, "    z = x - 1\n    return z * 3\n", "    return (x - 1) * 3\n"))
    v = project.check(head)
    lines = [project.line("z = x - 1"), project.line("return z * 3")]
    assert (v.verdict, codes(v)) == ("unscored", ["freeze_overlap"])
    assert v.overlap == {MOD: lines}
    assert v.overlap_ratio == 1.0
    assert v.overlap_observers == {MOD: {n: [f"{TEST_FILE}::test_frozen"] for n in lines}}


def test_partial_overlap_ratio(project: Project) -> None:
    """A change partly under a frozen test alone reports the share, rounded to 4 places."""

    def edit(repo: Repo) -> None:
        text = repo.read(MOD)
        for old, new in [
            ("z = x - 1", "z = x - 2"),
            ("y = x + 1", "y = x + 2"),
            ("return -x", "return 0 - x"),
        ]:
            text = text.replace(old, new)
        repo.write(MOD, text)

    v = project.check(project.head(edit))
    assert v.overlap == {MOD: [project.line("z = x - 1")]}
    assert len(v.touched[MOD]) == 3
    assert v.overlap_ratio == 0.3333
    assert codes(v) == ["freeze_overlap"]


def test_freeze_prefix_at_bracket_boundary(project: Project) -> None:
    """``test_param`` in the manifest freezes ``test_param[1]`` and ``test_param[2]``."""
    v = project.check(project.head(project.replace(MOD, "return n + 100", "return n + 101")))
    assert v.overlap == {MOD: [project.line("return n + 100")]}


def test_freeze_prefix_at_class_boundary(project: Project) -> None:
    """``TestGroup`` in the manifest freezes ``TestGroup::test_in_class``."""
    v = project.check(project.head(project.replace(MOD, 'return "class"', 'return "klass"')))
    assert v.overlap == {MOD: [project.line('return "class"')]}


def test_non_boundary_prefix_does_not_freeze(project: Project) -> None:
    """``test_frozen`` does not freeze ``test_frozen_extra``: its lines are live."""
    v = project.check(project.head(project.replace(MOD, '"not frozen: ', '"still not frozen: ')))
    assert v.verdict == "pass_clean"


def test_import_time_lines_belong_to_the_importing_test(project: Project) -> None:
    """A module first imported inside a frozen test has its import-time lines under that test."""
    v = project.check(project.head(project.replace(LAZY, "CONSTANT = 1\n", "CONSTANT = 2 - 1\n")))
    assert v.overlap == {LAZY: [line_of(project.repo.read(LAZY), "CONSTANT = 2 - 1")]}


def test_def_line_run_only_at_import_takes_its_functions_observers(project: Project) -> None:
    """v2: a def line run only at collection (context "") has no observer of its own; it takes the
    observers of its function, here the frozen test alone: freeze_overlap, shown as inherited."""
    head = project.head(project.replace(MOD, "def frozen_only(x):", "def frozen_only(x, unused=None):"))
    v = project.check(head)
    line = project.line("def frozen_only")
    assert v.touched == {MOD: [line]}
    assert (v.verdict, codes(v)) == ("unscored", ["freeze_overlap"])
    assert v.overlap == {MOD: [line]}
    assert v.inherited == {MOD: [line]}
    assert v.overlap_observers == {MOD: {line: [f"{TEST_FILE}::test_frozen"]}}


def test_unobserved_line_does_not_block(project: Project) -> None:
    """A line no test observes is no overlap: pass_clean is no claim of correctness."""
    assert project.check(project.head(project.replace(MOD, "return -x", "return x"))).verdict == "pass_clean"


def test_pure_insertion_touches_the_neighbours(project: Project) -> None:
    """Inserting lines between two frozen-only lines touches both, and both overlap."""
    head = project.head(project.replace(MOD, "    z = x - 1\n", "    z = x - 1\n    z = z + 0\n"))
    v = project.check(head)
    lines = [project.line("z = x - 1"), project.line("return z * 3")]
    assert v.touched == {MOD: lines}
    assert v.overlap == {MOD: lines}


def test_no_added_lines_rows(project: Project) -> None:
    """Empty, deletion-only and pure-rename changes are no_added_lines."""
    assert codes(project.check(project.parent)) == ["no_added_lines"]

    def delete_line(repo: Repo) -> None:
        repo.write(MOD, repo.read(MOD).replace("    return -x\n", ""))

    v = project.check(project.head(delete_line))
    assert (v.verdict, codes(v)) == ("unscored", ["no_added_lines"])
    assert v.touched == {MOD: [project.line("return -x")]}
    rename = project.head(lambda repo: repo.move("README.md", "docs/README.md"))
    assert codes(project.check(rename)) == ["no_added_lines"]


def test_deletion_of_frozen_only_lines_is_no_added_lines_and_overlap(project: Project) -> None:
    """Deleting lines only frozen tests observe reports both no_added_lines and freeze_overlap."""

    def delete(repo: Repo) -> None:
        repo.write(MOD, repo.read(MOD).replace("    z = x - 1\n", ""))

    v = project.check(project.head(delete))
    assert codes(v) == ["no_added_lines", "freeze_overlap"]


def test_protected_edit_fails(project: Project) -> None:
    """Editing the freeze manifest is oracle_edit_forbidden, exit 1."""
    head = project.head(lambda repo: repo.write("freeze.json", '{"schema": 1, "frozen": []}\n'))
    v = project.check(head)
    assert (v.verdict, codes(v)) == ("fail", ["oracle_edit_forbidden"])
    assert v.exit_status == 1


def test_no_map_or_unbound_map_is_oracle_incomplete(project: Project) -> None:
    """Without a map, or with one not bound to the parent, the verdict is unscored and overlap empty."""
    head = project.head(project.replace(MOD, "    z = x - 1\n", "    z = x - 2\n"))
    for v in (
        project.check(head, coverage=None),
        project.check(head, coverage_sha=None),
        project.check(head, coverage_sha=project.measured.root_commit),
    ):
        assert (v.verdict, codes(v)) == ("unscored", ["oracle_incomplete"])
        assert v.overlap == {}
        assert v.overlap_ratio == 0.0


def test_all_reasons_together(project: Project) -> None:
    """One change tripping every check reports all of them; the verdict is fail."""

    def parent(repo: Repo) -> None:
        repo.write("fixtures/corpus.json", "[1, 2]\n")
        digest = hashlib.sha256(b"[1, 2]\n").hexdigest()
        repo.write(
            "fixture_lock.json",
            json.dumps({"paths": ["fixtures/corpus.json"], "sha256": {"fixtures/corpus.json": digest}}),
        )
        frozen = json.loads(repo.read("freeze.json"))
        frozen["frozen"][0]["reason"] = ""  # a problem, but the entry still freezes
        repo.write("freeze.json", json.dumps(frozen))

    project.new_parent(parent)

    def head(repo: Repo) -> None:
        repo.write(MOD, repo.read(MOD).replace("z = x - 1", "z = x - 2"))
        repo.write("fixtures/corpus.json", "[1, 2, 3]\n")
        repo.write("tests/conftest.py", "import os\n")
        repo.write(
            TEST_FILE, repo.read(TEST_FILE).replace("def test_live", "@pytest.mark.xfail\ndef test_live")
        )

    v = project.check(project.head(head))
    assert v.verdict == "fail"
    assert codes(v) == [
        "oracle_edit_forbidden",
        "fixture_lock_broken",
        "runner_config_changed",
        "skip_marker_added",
        "oracle_incomplete",
        "freeze_overlap",
    ]
    assert v.overlap == {MOD: [line_of(MOD_PY, "z = x - 1")]}


def test_unscored_reasons_together_without_fail(project: Project) -> None:
    """A malformed policy plus a frozen-only edit is unscored with both reasons."""
    project.new_parent(lambda repo: repo.write("oracle-gate.toml", "protcted = []\n"))
    v = project.check(project.head(project.replace(MOD, "z = x - 1", "z = x - 2")))
    assert v.verdict == "unscored"
    assert codes(v) == ["oracle_incomplete", "freeze_overlap"]


def test_runner_and_skip_reasons_in_one_change(project: Project) -> None:
    """Adding a conftest.py and a skip marker fails with both reasons and nothing else."""

    def head(repo: Repo) -> None:
        repo.write(
            "tests/conftest.py",
            dedent("""
            def pytest_collection_modifyitems(items):
                items[:] = []
            """),
        )
        # Inserted at the top: the touched line 1 (an import) is observed by no test. On a helper, not
        # a new test (v3.8: a new test may carry its own markers).
        helper = "import pytest\n@pytest.mark.skip\ndef helper_more():\n    pass\n"
        repo.write(TEST_FILE, helper + repo.read(TEST_FILE))

    v = project.check(project.head(head))
    assert (v.verdict, codes(v)) == ("fail", ["runner_config_changed", "skip_marker_added"])
