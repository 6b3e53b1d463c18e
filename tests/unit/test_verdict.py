"""evaluate() on hand-built evidence: every row of the verdict table, precedence, the ratio."""

from __future__ import annotations

import hashlib

import pytest

from oracle_gate.judge.changes import ChangeSet
from oracle_gate.judge.freeze import Freeze
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.lock import FixtureLock
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.policy import Policy
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.verdict import (
    EXIT_STATUS,
    REASONS,
    Outcome,
    Verdict,
    changed_link_target,
    evaluate,
    line_ranges,
    overlap_ratio,
)
from tests.support.factories import (
    Edit,
    added,
    change_set,
    deleted,
    evidence,
    freeze_of,
    judge,
    lines,
    modified,
    numbered,
    observed,
    renamed,
)

SRC = "src/m.py"
FROZEN = "tests/t.py::test_frozen"
LIVE = "tests/t.py::test_live"
EDIT_LINE_3 = modified(SRC, numbered(5), lines("l1", "l2", "X", "l4", "l5"))
NO_MAP = ParentCoverage(problems=(Problem(None, "no coverage map of the parent was given"),))


def codes(v: Verdict) -> list[str]:
    return [str(code) for code in v.codes]


# ---------------------------------------------------------------- pass_clean


def test_live_observed_change_passes_clean() -> None:
    """A change whose touched lines a live test observes is pass_clean (live_surface_covers_diff)."""
    v = judge(EDIT_LINE_3, coverage=observed({SRC: {3: [LIVE, FROZEN]}}), freeze=freeze_of(FROZEN))
    assert v.verdict == "pass_clean"
    assert codes(v) == ["live_surface_covers_diff"]
    assert v.exit_status == 0
    assert v.overlap == {}
    assert v.touched == {SRC: [3]}


def test_unobserved_line_does_not_block() -> None:
    """A touched line no test observes at all is no overlap: pass_clean."""
    v = judge(EDIT_LINE_3, coverage=observed({}), freeze=freeze_of(FROZEN))
    assert v.verdict == "pass_clean"


# ---------------------------------------------------------------- freeze_overlap


def test_line_observed_only_by_frozen_tests_is_overlap() -> None:
    """A touched line observed by frozen tests and no live test is freeze_overlap, unscored."""
    v = judge(EDIT_LINE_3, coverage=observed({SRC: {3: [FROZEN]}}), freeze=freeze_of(FROZEN))
    assert v.verdict == "unscored"
    assert codes(v) == ["freeze_overlap"]
    assert v.overlap == {SRC: [3]}
    assert v.overlap_ratio == 1.0
    assert v.overlap_observers == {SRC: {3: [FROZEN]}}
    assert v.exit_status == 2


def test_partial_overlap_reports_only_the_frozen_lines() -> None:
    """Part of the change under frozen tests alone: only those lines overlap, ratio is the share."""
    edit = modified(SRC, numbered(6), lines("X", "l2", "Y", "l4", "l5", "Z"))
    cov = observed({SRC: {1: [FROZEN], 3: [LIVE], 6: [FROZEN, "tests/t.py::test_frozen[2]"]}})
    v = judge(edit, coverage=cov, freeze=freeze_of(FROZEN))
    assert v.overlap == {SRC: [1, 6]}
    assert v.touched == {SRC: [1, 3, 6]}
    assert v.overlap_ratio == 0.6667


def test_frozen_prefix_applies_to_observers() -> None:
    """Observers frozen by a ``::`` or ``[`` prefix count as frozen; a non-boundary prefix does not."""
    cov = observed({SRC: {3: ["tests/t.py::TestA::test_y", "tests/t.py::test_x[1]"]}})
    v = judge(EDIT_LINE_3, coverage=cov, freeze=freeze_of("tests/t.py::TestA", "tests/t.py::test_x"))
    assert v.overlap == {SRC: [3]}
    cov = observed({SRC: {3: ["tests/t.py::test_xy"]}})
    assert judge(EDIT_LINE_3, coverage=cov, freeze=freeze_of("tests/t.py::test_x")).overlap == {}


def test_ignored_files_are_left_out_of_overlap_and_ratio() -> None:
    """Files matched by ``ignore`` neither overlap nor count in |T|, but stay in ``touched``."""
    other = modified("docs/gen.py", numbered(3), lines("X", "l2", "l3"))
    cov = observed({SRC: {3: [FROZEN]}, "docs/gen.py": {1: [FROZEN]}})
    v = judge(EDIT_LINE_3, other, coverage=cov, freeze=freeze_of(FROZEN), policy=Policy(ignore=("docs/**",)))
    assert v.overlap == {SRC: [3]}
    assert v.touched == {"docs/gen.py": [1], SRC: [3]}
    assert v.overlap_ratio == 1.0


def test_ignore_never_removes_protection() -> None:
    """An ignored path that is protected is still an oracle edit."""
    v = judge(
        modified("fixtures/a.json", b"1\n", b"2\n"),
        policy=Policy(ignore=("fixtures/**",)),
    )
    assert "oracle_edit_forbidden" in codes(v)
    assert v.verdict == "fail"


# ---------------------------------------------------------------- oracle_incomplete


@pytest.mark.parametrize(
    "kw",
    [
        {"policy": Policy(problems=(Problem("oracle-gate.toml", "unknown key 'x'"),))},
        {"freeze": freeze_of(FROZEN, problems=(Problem("freeze.json", "freeze entry 0: 'reason' missing"),))},
        {"lock": FixtureLock(problems=(Problem("fixture_lock.json", "not valid JSON"),))},
        {"coverage": NO_MAP},
        {
            "coverage": ParentCoverage(
                problems=(Problem("cov", "the coverage map is bound to x, not to the parent y"),)
            )
        },
    ],
    ids=["policy", "freeze", "lock", "no-map", "unbound-map"],
)
def test_any_input_problem_is_oracle_incomplete(
    kw: dict[str, Policy | Freeze | FixtureLock | ParentCoverage],
) -> None:
    """A malformed policy, freeze or lock, or a missing or unbound map, is oracle_incomplete."""
    v = judge(EDIT_LINE_3, **kw)
    assert v.verdict == "unscored"
    assert codes(v) == ["oracle_incomplete"]
    (reason,) = v.reasons
    (problem,) = next(iter(kw.values())).problems
    assert reason.detail == str(problem)
    assert reason.path == problem.source  # the malformed file, None for a map never given


def test_unusable_map_means_no_overlap_and_no_freeze_overlap() -> None:
    """When the map is unusable, overlap is empty and freeze_overlap is not evaluated."""
    unusable = ParentCoverage(
        observers={SRC: {3: frozenset([FROZEN])}}, problems=(Problem("cov", "bound to another commit"),)
    )
    v = judge(EDIT_LINE_3, coverage=unusable, freeze=freeze_of(FROZEN))
    assert codes(v) == ["oracle_incomplete"]
    assert v.overlap == {}
    assert v.overlap_ratio == 0.0


def test_freeze_problem_and_overlap_are_both_reported() -> None:
    """A freeze entry with a problem still freezes: oracle_incomplete and freeze_overlap together."""
    freeze = freeze_of(
        FROZEN, problems=(Problem("freeze.json", "freeze entry 0 ('x'): 'reason' missing or empty"),)
    )
    v = judge(EDIT_LINE_3, coverage=observed({SRC: {3: [FROZEN]}}), freeze=freeze)
    assert codes(v) == ["oracle_incomplete", "freeze_overlap"]


# ---------------------------------------------------------------- no_added_lines


@pytest.mark.parametrize(
    "edits",
    [
        (),
        (deleted(SRC, numbered(3)),),
        (modified(SRC, numbered(3), lines("l1", "l3")),),
        (renamed(SRC, "src/n.py", numbered(3), numbered(3)),),
        (modified(SRC, numbered(3), numbered(3), new_mode="100755"),),
        (modified("img.png", b"\x89PNG\0a", b"\x89PNG\0b"),),
    ],
    ids=["empty", "deleted-file", "deletion-only", "pure-rename", "mode-only", "binary"],
)
def test_no_added_line_is_unscored(edits: tuple[Edit, ...]) -> None:
    """An empty, deletion-only, pure-rename, mode-only or binary change has no added lines."""
    v = judge(*edits)
    assert v.verdict == "unscored"
    assert codes(v) == ["no_added_lines"]


def test_lines_added_only_to_ignored_files_are_no_added_lines() -> None:
    """Added lines in files matched by ``ignore`` do not make the change scorable."""
    v = judge(added("docs/a.py", lines("x")), policy=Policy(ignore=("docs/**",)))
    assert codes(v) == ["no_added_lines"]


# ---------------------------------------------------------------- fail rows


@pytest.mark.parametrize(
    "edit",
    [
        added("seeds/new.txt", b"x\n"),
        deleted("fixtures/a.json", b"{}\n"),
        modified("harness/run.py", b"a\n", b"b\n"),
        renamed("fixtures/a.json", "data/a.json", b"{}\n", b"{}\n"),  # renamed from
        renamed("data/a.json", "fixtures/a.json", b"{}\n", b"{}\n"),  # renamed to
        modified("harness/run.sh", b"x\n", b"x\n", new_mode="100755"),  # mode only
        modified("freeze.json", b"{}\n", b'{"schema": 1}\n'),
        added("oracle-gate.toml", b"forbid_skip_markers = false\n"),
        added(".github/workflows/ci.yml", b"on: push\n"),
        added("fixtures/link", b"../src/m.py", mode="120000"),  # a symlink counts by its own path
    ],
)
def test_protected_path_changes_fail(edit: Edit) -> None:
    """Adding, deleting, renaming from or to, changing the mode of or editing a protected path fails."""
    v = judge(edit)
    assert v.verdict == "fail"
    assert "oracle_edit_forbidden" in codes(v)
    assert v.exit_status == 1


@pytest.mark.parametrize(
    ("link", "target", "forbidden"),
    [
        ("data", "fixtures", True),  # a new symlink to a protected directory
        ("data.json", "fixtures/a.json", True),
        ("src/x", "../seeds/s.txt", True),
        ("src/deep/x", "../../harness", True),
        ("src/x", "./../fixtures/sub/../a.json", True),
        ("src/x", "../docs/a.md", False),
        ("x", "fixturesX/a", False),
        ("x", "../outside", True),  # v2: leaves the repository
        ("x", "/etc/passwd", True),  # v2: absolute
        ("a/x", "../src", False),
    ],
)
def test_new_symlink_into_protected_path(link: str, target: str, forbidden: bool) -> None:
    """A new symlink whose target resolves into a protected path is an oracle edit."""
    v = judge(added(link, target.encode(), mode="120000"))
    assert ("oracle_edit_forbidden" in codes(v)) is forbidden


def test_retargeted_symlink_into_protected_path() -> None:
    """Re-pointing an existing symlink into a protected path counts like a new one."""
    edit = modified("data", b"docs", b"fixtures", old_mode="120000", new_mode="120000")
    assert "oracle_edit_forbidden" in codes(judge(edit))


def test_changed_link_target_helper() -> None:
    """changed_link_target gives the raw target of a new symlink, and None for a plain file."""
    (new,) = change_set(added("a/b/link", b"../../c/d", mode="120000")).files
    assert changed_link_target(new) == "../../c/d"
    (plain,) = change_set(added("a/file", b"../../x")).files
    assert changed_link_target(plain) is None


def test_extra_protected_globs_fail_too() -> None:
    """A glob added on the command line protects like the policy's own."""
    edit = modified("docs/a.md", b"a\n", b"b\n")
    assert codes(judge(edit)) != ["oracle_edit_forbidden"]
    v = judge(edit, policy=Policy().with_extra_protected(["docs/**"]))
    assert "oracle_edit_forbidden" in codes(v)


def test_lock_paths_are_protected() -> None:
    """Every path the lock names is protected even when the policy's list is empty."""
    v = judge(
        modified("tests/data/corpus.json", b"1\n", b"2\n"),
        policy=Policy(protected=()),
        lock=FixtureLock(paths=("tests/data/corpus.json",)),
    )
    assert "oracle_edit_forbidden" in codes(v)


def test_paths_pinned_by_sha256_only_are_protected_too() -> None:
    """A path the lock names only under ``sha256`` is protected: even its mode may not change."""
    digest = hashlib.sha256(b"x\n").hexdigest()
    lock = FixtureLock(paths=(), sha256=(("data/x.bin", digest),))
    v = judge(
        modified("data/x.bin", b"x\n", b"x\n", new_mode="100755"),
        lock=lock,
        locked_blobs={"data/x.bin": b"x\n"},
    )
    assert codes(v) == ["oracle_edit_forbidden", "no_added_lines"]


def test_symlink_to_the_repository_root_is_not_counted() -> None:
    """Contract-silent choice: a symlink to the root (``.``) is not a symlink *into* a protected path."""
    assert "oracle_edit_forbidden" not in codes(judge(added("src/root", b"..", mode="120000")))


def test_lock_digest_mismatch_fails_even_if_untouched() -> None:
    """A locked fixture whose head bytes differ from the lock breaks it, touched or not."""
    digest = hashlib.sha256(b"good\n").hexdigest()
    lock = FixtureLock(paths=("f.json",), sha256=(("f.json", digest), ("g.json", digest)))
    v = judge(EDIT_LINE_3, lock=lock, locked_blobs={"f.json": b"bad\n", "g.json": None})
    assert v.verdict == "fail"
    assert codes(v) == ["fixture_lock_broken"]
    assert {r.path for r in v.reasons} == {"f.json", "g.json"}
    ok = judge(EDIT_LINE_3, lock=lock, locked_blobs={"f.json": b"good\n", "g.json": b"good\n"})
    assert ok.verdict == "pass_clean"


def test_runner_config_change_fails_unless_switched_off() -> None:
    """An edited conftest.py fails, unless the policy sets protect_runner_config = false."""
    edit = modified("tests/conftest.py", b"a = 1\n", b"a = 2\n")
    v = judge(edit)
    assert v.verdict == "fail"
    assert codes(v) == ["runner_config_changed"]
    assert judge(edit, policy=Policy(protect_runner_config=False)).verdict == "pass_clean"


def test_skip_marker_fails_unless_switched_off() -> None:
    """An added skip marker in a test file fails, unless forbid_skip_markers = false."""
    edit = modified(
        "tests/test_a.py",
        lines("def test_a():", "    pass"),
        lines("@skip_on_ci", "def test_a():", "    pass"),
    )
    v = judge(edit)
    assert v.verdict == "fail"
    assert codes(v) == ["skip_marker_added"]
    (reason,) = v.reasons
    assert (reason.path, reason.line) == ("tests/test_a.py", 1)
    assert judge(edit, policy=Policy(forbid_skip_markers=False)).verdict == "pass_clean"


# ---------------------------------------------------------------- all together, precedence


def test_every_reason_that_applies_is_reported_in_table_order() -> None:
    """One change that trips every check reports every reason, the verdict being the most severe."""
    digest = hashlib.sha256(b"locked\n").hexdigest()
    v = judge(
        EDIT_LINE_3,
        modified("fixtures/a.json", b"1\n", b"2\n"),
        added("conftest.py", b"import os\n"),
        # module level: a marker outside every test (v3.8: one on a new test would be its own)
        added("tests/test_new.py", lines("import pytest", "pytest.skip('later', allow_module_level=True)")),
        freeze=freeze_of(
            FROZEN, problems=(Problem("freeze.json", "freeze entry 0: bound_sha abcd names no commit"),)
        ),
        lock=FixtureLock(paths=("data.bin",), sha256=(("data.bin", digest),)),
        locked_blobs={"data.bin": b"changed\n"},
        coverage=observed({SRC: {3: [FROZEN]}}),
    )
    assert v.verdict == "fail"
    assert codes(v) == [
        "oracle_edit_forbidden",
        "fixture_lock_broken",
        "runner_config_changed",
        "skip_marker_added",
        "oracle_incomplete",
        "freeze_overlap",
    ]
    assert v.overlap == {SRC: [3]}


def test_no_added_lines_is_reported_with_other_reasons() -> None:
    """A deletion-only change of a protected file with an unbound map reports all three reasons."""
    v = judge(deleted("fixtures/a.json", b"{}\n"), coverage=NO_MAP)
    assert v.verdict == "fail"
    assert codes(v) == ["oracle_edit_forbidden", "oracle_incomplete", "no_added_lines"]


@pytest.mark.parametrize(
    ("present", "verdict"),
    [
        ({"fail", "unscored"}, "fail"),
        ({"unscored"}, "unscored"),
        ({"fail"}, "fail"),
        (set(), "pass_clean"),
    ],
)
def test_precedence_fail_over_unscored_over_pass(present: set[str], verdict: str) -> None:
    """The verdict is the most severe one present: fail > unscored > pass_clean."""
    edits: list[Edit] = [EDIT_LINE_3]
    if "fail" in present:
        edits.append(added("seeds/x", b"x\n"))
    v = judge(*edits, coverage=NO_MAP if "unscored" in present else observed({}))
    assert v.verdict == verdict
    assert v.exit_status == EXIT_STATUS[Outcome(verdict)]
    assert ("live_surface_covers_diff" in codes(v)) is (verdict == "pass_clean")


def test_reason_table_and_exit_codes() -> None:
    """The reason codes and their verdicts are exactly the contract's table; exit codes 0/1/2."""
    assert REASONS == {
        "oracle_edit_forbidden": "fail",
        "fixture_lock_broken": "fail",
        "runner_config_changed": "fail",
        "skip_marker_added": "fail",
        "oracle_incomplete": "unscored",
        "no_added_lines": "unscored",
        "freeze_overlap": "unscored",
        "observer_edited": "unscored",
        "seed_rewritten": "fail",  # v3.6
        "dynamic_rebinding": "unscored",  # v3.2
        "oracle_change_approved": "pass_clean",  # v3.5, informational
        "live_surface_covers_diff": "pass_clean",
    }
    assert EXIT_STATUS == {"pass_clean": 0, "fail": 1, "unscored": 2}


def test_evaluate_is_pure_and_repeatable() -> None:
    """The same evidence gives the same verdict twice."""
    ev = evidence(change_set(EDIT_LINE_3), coverage=observed({SRC: {3: [FROZEN]}}), freeze=freeze_of(FROZEN))
    assert evaluate(ev) == evaluate(ev)


# ---------------------------------------------------------------- small pure helpers


@pytest.mark.parametrize(
    ("overlap", "touched", "ratio"),
    [
        ({}, {}, 0.0),  # T empty
        ({}, {"a": [1]}, 0.0),
        ({"a": [1]}, {"a": [1, 2, 3]}, 0.3333),
        ({"a": [1, 2]}, {"a": [1, 2, 3]}, 0.6667),
        ({"a": [1]}, {"a": [1], "b": list(range(1, 7))}, 0.1429),
        ({"a": [1]}, {"a": [1], "ign/x": [1, 2, 3]}, 1.0),  # ignored files are left out of |T|
        ({}, {"ign/x": [1]}, 0.0),
    ],
)
def test_overlap_ratio(overlap: dict[str, list[int]], touched: dict[str, list[int]], ratio: float) -> None:
    """|overlap| / |T| over scored files, rounded to 4 places, 0 when T is empty."""
    assert overlap_ratio(overlap, touched, GlobSet(["ign/**"])) == ratio


def test_line_ranges() -> None:
    """Sorted lines become inclusive runs."""
    assert line_ranges([]) == []
    assert line_ranges([5, 1, 2, 3, 9, 10]) == [(1, 3), (5, 5), (9, 10)]


def test_touched_is_in_parent_coordinates_for_renames() -> None:
    """The verdict's touched map keys a renamed file by its parent path."""
    v = judge(renamed("src/a.py", "src/b.py", numbered(4), lines("l1", "X", "l3", "l4")))
    assert v.touched == {"src/a.py": [2]}


def test_changeset_type_is_what_evaluate_reads() -> None:
    """An empty ChangeSet (parent == head) is no_added_lines and nothing else."""
    v = evaluate(evidence(ChangeSet("p", "p", ())))
    assert codes(v) == ["no_added_lines"]
    assert (v.parent, v.head) == ("p", "p")
