"""The oracle (policy, freeze manifest, fixture lock) read from the parent with git, on real repos."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable, Mapping

import pytest

from oracle_gate.judge.verdict import Verdict
from tests.support.factories import FROZEN_IDS, TEST_FILE, Project, dedent, freeze_json
from tests.support.repo import Repo

MOD = "src/pkg/mod.py"
FROZEN_EDIT = ("z = x - 1", "z = x - 2")  # a line only the frozen test observes
LIVE_EDIT = ("y = x + 1", "y = 1 + x")  # a line a live test observes


def codes(v: Verdict) -> list[str]:
    return [str(code) for code in v.codes]


def details(v: Verdict, code: str) -> list[str]:
    return [r.detail for r in v.reasons if r.code == code]


def write(path: str, text: str | bytes) -> Callable[[Repo], object]:
    return lambda repo: repo.write(path, text)


def symlink(link: str, target: str) -> Callable[[Repo], object]:
    return lambda repo: repo.symlink(link, target)


# ---------------------------------------------------------------- read from the parent


def test_head_cannot_weaken_the_policy(project: Project) -> None:
    """A head that switches skip markers off in oracle-gate.toml is still judged by the parent's."""

    def head(repo: Repo) -> None:
        repo.write("oracle-gate.toml", "forbid_skip_markers = false\nprotected = []\n")
        repo.write(
            TEST_FILE, repo.read(TEST_FILE).replace("def test_live", "@pytest.mark.skip\ndef test_live")
        )

    v = project.check(project.head(head))
    assert codes(v) == ["oracle_edit_forbidden", "skip_marker_added"]


def test_head_emptying_the_freeze_is_judged_by_the_parents_freeze(project: Project) -> None:
    """Unfreezing in head is forbidden, and the overlap is still computed with the parent's freeze."""

    def head(repo: Repo) -> None:
        repo.write("freeze.json", '{"schema": 1, "frozen": []}\n')
        repo.write(MOD, repo.read(MOD).replace(*FROZEN_EDIT))

    v = project.check(project.head(head))
    assert codes(v) == ["oracle_edit_forbidden", "freeze_overlap"]
    assert v.overlap == {MOD: [project.line(FROZEN_EDIT[0])]}


def test_working_tree_is_never_read(project: Project) -> None:
    """Uncommitted oracle files on disk change nothing: the gate reads commits only."""
    head = project.head(project.replace(MOD, *FROZEN_EDIT))
    project.repo.write("oracle-gate.toml", "protected = [\n")  # malformed, uncommitted
    project.repo.write("freeze.json", '{"schema": 1, "frozen": []}\n')
    v = project.check(head)
    assert codes(v) == ["freeze_overlap"]


def test_policy_moves_the_freeze_manifest(project: Project) -> None:
    """``freeze = ...`` in the parent's policy names where the manifest is read and what is protected."""

    def parent(repo: Repo) -> None:
        repo.move("freeze.json", "oracle/frozen.json")
        repo.write("oracle-gate.toml", 'freeze = "oracle/frozen.json"\n')

    project.new_parent(parent)
    assert project.check(project.head(project.replace(MOD, *FROZEN_EDIT))).overlap
    v = project.check(project.head(write("oracle/frozen.json", "{}")))
    assert "oracle_edit_forbidden" in codes(v)


def test_missing_manifest_freezes_nothing(project: Project) -> None:
    """Without a freeze manifest nothing is frozen, and that is no problem."""
    project.new_parent(lambda repo: repo.delete("freeze.json"))
    v = project.check(project.head(project.replace(MOD, *FROZEN_EDIT)))
    assert (v.verdict, codes(v)) == ("pass_clean", ["live_surface_covers_diff"])


# ---------------------------------------------------------------- policy


def test_unknown_policy_key_is_incomplete_but_protection_stays(project: Project) -> None:
    """A misspelt key makes the policy malformed; the defaults keep protecting seeds/**."""
    project.new_parent(write("oracle-gate.toml", 'protect = ["docs/**"]\n'))
    v = project.check(project.head(write("seeds/s.txt", "x\n")))
    assert codes(v) == ["oracle_edit_forbidden", "oracle_incomplete"]
    assert details(v, "oracle_incomplete") == ["oracle-gate.toml: unknown key 'protect'"]


def test_wrong_type_keeps_the_wellformed_keys(project: Project) -> None:
    """With one key of the wrong type the other keys of the file still apply."""
    project.new_parent(write("oracle-gate.toml", 'protected = ["docs/**"]\nforbid_skip_markers = "no"\n'))
    v = project.check(project.head(write("docs/a.md", "x\n")))
    assert codes(v) == ["oracle_edit_forbidden", "oracle_incomplete"]


def test_unparseable_policy_keeps_defaults(project: Project) -> None:
    """A policy that is not TOML is malformed; the default protection applies."""
    project.new_parent(write("oracle-gate.toml", "protected = [\n"))
    v = project.check(project.head(write("fixtures/x.json", "{}\n")))
    assert codes(v) == ["oracle_edit_forbidden", "oracle_incomplete"]
    assert "not valid TOML" in details(v, "oracle_incomplete")[0]


def test_protected_list_replaces_the_defaults(project: Project) -> None:
    """With ``protected = ["docs/**"]`` seeds/ may change and docs/ may not."""
    project.new_parent(write("oracle-gate.toml", 'protected = ["docs/**"]\n'))
    assert "oracle_edit_forbidden" not in codes(project.check(project.head(write("seeds/s.py", "x = 1\n"))))
    assert "oracle_edit_forbidden" in codes(project.check(project.head(write("docs/a.md", "x\n"))))


@pytest.mark.parametrize(
    "path",
    ["oracle-gate.toml", ".github/workflows/ci.yml", "freeze.json", "oracle/lock.json", "data/locked.txt"],
)
def test_always_protected_paths(project: Project, path: str) -> None:
    """The policy file, workflows, freeze and lock paths and lock-named paths are always protected."""

    def parent(repo: Repo) -> None:
        repo.write("oracle-gate.toml", 'protected = []\nfixture_lock = "oracle/lock.json"\n')
        repo.write("oracle/lock.json", json.dumps({"paths": ["data/locked.txt"]}))
        repo.write("data/locked.txt", "locked\n")

    project.new_parent(parent)
    v = project.check(project.head(write(path, "changed\n")))
    assert "oracle_edit_forbidden" in codes(v)


def test_globs_are_anchored_at_the_root(project: Project) -> None:
    """``freeze.json`` protects the root file only, not ``a/freeze.json``."""
    v = project.check(project.head(write("src/freeze.json", "{}\n")))
    assert "oracle_edit_forbidden" not in codes(v)


def test_protect_option_adds_globs(project: Project) -> None:
    """--protect adds a protected glob for this check."""
    head = project.head(write("docs/guide.md", "x\n"))
    assert "oracle_edit_forbidden" not in codes(project.check(head))
    v = project.check(head, protect=("docs/**",))
    assert "oracle_edit_forbidden" in codes(v)
    assert v.protocol.extra_protected == ("docs/**",)


def test_ignore_excludes_from_scoring_not_from_protection(project: Project) -> None:
    """``ignore`` drops a file from overlap and ratio but never from protection."""
    project.new_parent(write("oracle-gate.toml", 'ignore = ["src/pkg/mod.py", "fixtures/**"]\n'))
    v = project.check(project.head(project.replace(MOD, *FROZEN_EDIT)))
    assert v.overlap == {}
    assert v.overlap_ratio == 0.0
    assert v.touched == {MOD: [project.line(FROZEN_EDIT[0])]}
    assert codes(v) == ["no_added_lines"]  # the only added line is in an ignored file
    assert "oracle_edit_forbidden" in codes(project.check(project.head(write("fixtures/a.json", "1\n"))))


# ---------------------------------------------------------------- freeze bindings


def set_bound_sha(project: Project, bound: str) -> None:
    project.new_parent(write("freeze.json", freeze_json(FROZEN_IDS, bound)))


def test_bound_sha_of_the_parent_or_an_ancestor_is_fine(project: Project) -> None:
    """An abbreviated (4+ digits) or full id of the parent's history binds an entry."""
    for bound in (project.measured.root_commit[:4], project.measured.root_commit.upper(), project.parent[:7]):
        set_bound_sha(project, bound)
        v = project.check(project.head(project.replace(MOD, *LIVE_EDIT)))
        assert v.verdict == "pass_clean", bound


def test_foreign_bound_sha_is_incomplete_and_still_freezes(project: Project) -> None:
    """A bound_sha on a side branch is unscored (oracle_incomplete) and the entries still freeze."""
    project.branch_from(project.measured.root_commit)
    side = project.repo.commit("side branch")
    set_bound_sha(project, side[:8])
    v = project.check(project.head(project.replace(MOD, *FROZEN_EDIT)))
    assert codes(v) == ["oracle_incomplete", "freeze_overlap"]
    assert all("is not the parent or an ancestor of it" in d for d in details(v, "oracle_incomplete"))
    assert len(details(v, "oracle_incomplete")) == len(FROZEN_IDS)


def test_bound_sha_of_a_descendant_is_foreign(project: Project) -> None:
    """A bound_sha naming a commit after the parent (here the head itself) is not in its history."""
    head = project.head(project.replace(MOD, *LIVE_EDIT))
    set_bound_sha(project, head)
    v = project.check(project.head(project.replace(MOD, *LIVE_EDIT)))
    assert codes(v) == ["oracle_incomplete"]


@pytest.mark.parametrize(
    ("bound", "problem"),
    [
        ("deadbeefdeadbeef", "names no commit in this repository"),
        ("main", "is not a hex commit id"),  # a ref name is not a commit id
        ("abc", "is not a hex commit id"),
    ],
)
def test_unbound_entries(project: Project, bound: str, problem: str) -> None:
    """A bound_sha that names nothing, is a ref name or too short is oracle_incomplete."""
    set_bound_sha(project, bound)
    v = project.check(project.head(project.replace(MOD, *LIVE_EDIT)))
    assert codes(v) == ["oracle_incomplete"]
    assert problem in details(v, "oracle_incomplete")[0]


def test_bound_sha_of_a_blob_or_tree_is_not_a_commit(project: Project) -> None:
    """A hex id naming a tree is not a commit: unbound."""
    tree = project.repo.git("rev-parse", f"{project.parent}^{{tree}}")
    set_bound_sha(project, tree)
    v = project.check(project.head(project.replace(MOD, *LIVE_EDIT)))
    assert "names no commit" in details(v, "oracle_incomplete")[0]


def test_ambiguous_bound_sha(project: Project) -> None:
    """A prefix shared by two commits of the parent's history is ambiguous: oracle_incomplete."""
    stream = "".join(
        f"commit refs/heads/many\ncommitter T <t@x> 0 +0000\ndata {len(str(i))}\n{i}\n"
        + ("from " + project.parent + "\n" if i == 0 else "")
        for i in range(700)
    )
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        cwd=project.root,
        input=stream.encode(),
        env=project.repo.env,
        check=True,
    )
    commits = project.repo.git("rev-list", "many").split()
    seen: dict[str, str] = {}
    prefix = next(c[:4] for c in commits if seen.setdefault(c[:4], c) != c)
    project.parent = project.repo.git("rev-parse", "many")
    set_bound_sha(project, prefix)
    v = project.check(project.head(project.replace(MOD, *LIVE_EDIT)))
    assert codes(v) == ["oracle_incomplete"]
    assert "is ambiguous" in details(v, "oracle_incomplete")[0]


# ---------------------------------------------------------------- fixture lock


def lock_parent(project: Project, lock: Mapping[str, object], corpus: str = "[1, 2]\n") -> None:
    def apply(repo: Repo) -> None:
        repo.write("tests/data/corpus.json", corpus)
        repo.write("fixture_lock.json", json.dumps(lock))

    project.new_parent(apply)


DIGEST = hashlib.sha256(b"[1, 2]\n").hexdigest()
LOCK = {"paths": ["tests/data/corpus.json"], "sha256": {"tests/data/corpus.json": DIGEST}}


def test_locked_fixture_edit_fails_twice(project: Project) -> None:
    """Editing a locked fixture is both a protected edit and a broken lock."""
    lock_parent(project, LOCK)
    v = project.check(project.head(write("tests/data/corpus.json", "[1, 2, 3]\n")))
    assert codes(v) == ["oracle_edit_forbidden", "fixture_lock_broken"]


def test_missing_locked_fixture_breaks_the_lock(project: Project) -> None:
    """Deleting a locked fixture breaks the lock: it is missing in head."""
    lock_parent(project, LOCK)
    v = project.check(project.head(lambda repo: repo.delete("tests/data/corpus.json")))
    assert "fixture_lock_broken" in codes(v)
    assert "is missing in head" in details(v, "fixture_lock_broken")[0]


def test_lock_is_checked_even_when_untouched(project: Project) -> None:
    """A parent whose fixture already differs from its lock breaks on any change."""
    lock_parent(project, LOCK, corpus="[9]\n")
    v = project.check(project.head(project.replace(MOD, *LIVE_EDIT)))
    assert codes(v) == ["fixture_lock_broken"]


def test_lock_with_paths_only_protects_without_digests(project: Project) -> None:
    """A lock without ``sha256`` is well formed; its paths are protected."""
    lock_parent(project, {"paths": ["tests/data/corpus.json"]})
    assert project.check(project.head(project.replace(MOD, *LIVE_EDIT))).verdict == "pass_clean"
    v = project.check(project.head(write("tests/data/corpus.json", "[]\n")))
    assert codes(v) == ["oracle_edit_forbidden"]


def test_locked_bytes_are_read_from_head_not_disk(project: Project) -> None:
    """The digest is checked against head's blob: a dirty working tree does not matter."""
    lock_parent(project, LOCK)
    head = project.head(project.replace(MOD, *LIVE_EDIT))
    project.repo.write("tests/data/corpus.json", "changed on disk\n")
    assert project.check(head).verdict == "pass_clean"


# ---------------------------------------------------------------- runner configuration


@pytest.mark.parametrize(
    "path",
    [
        "tests/conftest.py",
        "conftest.py",
        "pytest.ini",
        "tox.ini",
        "a/b/sitecustomize.py",
        "usercustomize.py",
        "x.pth",
    ],
)
def test_adding_a_runner_hook_fails(project: Project, path: str) -> None:
    """Adding a hook file at any depth is runner_config_changed."""
    v = project.check(project.head(write(path, "import os\n")))
    assert (v.verdict, codes(v)) == ("fail", ["runner_config_changed"])


def test_runner_hook_deleted_renamed_edited_and_mode(project: Project) -> None:
    """Deleting, renaming and editing a conftest.py count; changing only its mode does not."""
    project.new_parent(write("tests/conftest.py", "import os\n"))
    deleted = project.head(lambda repo: repo.delete("tests/conftest.py"))
    renamed = project.head(lambda repo: repo.move("tests/conftest.py", "tests/helpers.py"))
    edited = project.head(write("tests/conftest.py", "import sys\n"))
    mode = project.head(lambda repo: repo.write("tests/conftest.py", "import os\n", executable=True))
    for head in (deleted, renamed, edited):
        assert "runner_config_changed" in codes(project.check(head))
    assert codes(project.check(mode)) == ["no_added_lines"]


def test_pyproject_runner_table_counts_other_tables_do_not(project: Project) -> None:
    """In pyproject.toml, [tool.pytest.ini_options] counts; [project] and comments do not."""
    pyproject = dedent("""
        [project]
        name = "tiny"

        [tool.pytest.ini_options]
        addopts = "-q"
        """)
    project.new_parent(write("pyproject.toml", pyproject))
    runner = project.head(write("pyproject.toml", pyproject.replace('"-q"', '"-q -k live"')))
    other = project.head(write("pyproject.toml", pyproject.replace('"tiny"', '"tiny2"')))
    comment = project.head(write("pyproject.toml", "# tests\n" + pyproject.replace('"-q"', "'-q'")))
    assert codes(project.check(runner)) == ["runner_config_changed"]
    assert codes(project.check(other)) == ["live_surface_covers_diff"]
    assert codes(project.check(comment)) == ["live_surface_covers_diff"]


def test_setup_cfg_coverage_section_counts(project: Project) -> None:
    """In setup.cfg, a [coverage:run] change counts."""
    cfg = "[metadata]\nname = tiny\n\n[coverage:run]\nbranch = True\n"
    project.new_parent(write("setup.cfg", cfg))
    v = project.check(project.head(write("setup.cfg", cfg.replace("True", "False"))))
    assert codes(v) == ["runner_config_changed"]
    assert details(v, "runner_config_changed") == ["setup.cfg: changes [coverage:run]"]


def test_protect_runner_config_false_switches_the_check_off(project: Project) -> None:
    """With ``protect_runner_config = false`` a new conftest.py is not a failure."""
    project.new_parent(write("oracle-gate.toml", "protect_runner_config = false\n"))
    assert project.check(project.head(write("tests/conftest.py", "x = 1\n"))).verdict == "pass_clean"


# ---------------------------------------------------------------- skip markers


@pytest.mark.parametrize(
    "marker",
    [
        "@pytest.mark.skip",
        "@pytest.mark.skipif(True, reason='ci')",
        "@pytest.mark.xfail(reason='clock skew on CI')",
        "@skip_on_ci",
    ],
)
def test_skip_marker_in_a_test_file_fails(project: Project, marker: str) -> None:
    """An added marker line in a test file is skip_marker_added with its head line number."""
    head = project.head(project.replace(TEST_FILE, "def test_live", f"{marker}\ndef test_live"))
    v = project.check(head)
    assert codes(v) == ["skip_marker_added"]
    (reason,) = v.reasons
    assert (reason.path, reason.line) == (TEST_FILE, project.line("def test_live", TEST_FILE))


def test_imperative_skip_in_test_body_fails(project: Project) -> None:
    """``pytest.skip(`` inside a test body is a marker too."""
    head = project.head(project.replace(TEST_FILE, "    assert live(1) == 4\n", "    pytest.skip('x')\n"))
    assert "skip_marker_added" in codes(project.check(head))


def test_marker_words_outside_test_files_do_not_count(project: Project) -> None:
    """v2: in a file the ``tests`` globs do not match, a word like "skip" is not a marker (no API)."""
    head = project.head(project.replace(MOD, "    y = x + 1\n", '    y = x + 1  # "skip" @skip_on_ci\n'))
    assert "skip_marker_added" not in codes(project.check(head))


def test_marker_api_outside_test_files_counts(project: Project) -> None:
    """v2: a marker API in any .py file counts, even in a comment of a source file."""
    head = project.head(project.replace(MOD, "    y = x + 1\n", "    y = x + 1  # pytest.mark.skip\n"))
    assert "skip_marker_added" in codes(project.check(head))


def test_forbid_skip_markers_false_switches_the_check_off(project: Project) -> None:
    """With ``forbid_skip_markers = false`` markers are allowed."""
    project.new_parent(write("oracle-gate.toml", "forbid_skip_markers = false\n"))
    head = project.head(project.replace(TEST_FILE, "def test_live", "@pytest.mark.skip\ndef test_live"))
    assert "skip_marker_added" not in codes(project.check(head))


def test_removing_a_marker_is_fine(project: Project) -> None:
    """Deleting a marker line is not adding one."""
    project.new_parent(project.replace(TEST_FILE, "def test_live", "@pytest.mark.skip\ndef test_live"))
    head = project.head(project.replace(TEST_FILE, "@pytest.mark.skip\ndef test_live", "def test_live"))
    assert "skip_marker_added" not in codes(project.check(head))


# ---------------------------------------------------------------- symlinks


def test_symlink_at_a_protected_path(project: Project) -> None:
    """A symlink added at a protected path counts by its own path."""
    head = project.head(lambda repo: repo.symlink("seeds/link", "../README.md"))
    assert "oracle_edit_forbidden" in codes(project.check(head))


def test_new_symlink_into_a_protected_directory(project: Project) -> None:
    """A new symlink whose target resolves into a protected directory is an oracle edit."""
    project.new_parent(write("fixtures/data.json", "[]\n"))
    for link, target in (("src/data", "../fixtures"), ("d.json", "fixtures/data.json")):
        v = project.check(project.head(symlink(link, target)))
        assert "oracle_edit_forbidden" in codes(v), link
    v = project.check(project.head(lambda repo: repo.symlink("src/readme", "../README.md")))
    assert "oracle_edit_forbidden" not in codes(v)


def test_protected_file_turned_into_symlink(project: Project) -> None:
    """Replacing the freeze manifest by a symlink is an edit of a protected path."""

    def head(repo: Repo) -> None:
        (repo.root / "freeze.json").unlink()
        repo.symlink("freeze.json", "README.md")

    assert "oracle_edit_forbidden" in codes(project.check(project.head(head)))


# ---------------------------------------------------------------- the map's path in its reasons (issue 28)


def test_a_map_inside_the_checkout_is_named_by_its_repository_path(project: Project) -> None:
    """Issue 28: a map's ``oracle_incomplete`` carried the map's absolute path where every other
    path of the verdict is repository-relative."""
    inside = project.root / ".oracle-gate" / "parent.coverage"
    inside.parent.mkdir()
    inside.write_bytes(project.coverage.read_bytes())
    head = project.head(write("src/pkg/extra.py", "X = 1\n"))
    v = project.check(head, coverage=inside, coverage_sha=project.measured.root_commit)
    (reason,) = [r for r in v.reasons if r.code == "oracle_incomplete"]
    assert reason.path == ".oracle-gate/parent.coverage"
    assert reason.detail.startswith(".oracle-gate/parent.coverage: the coverage map is bound to ")
    assert str(project.root) not in reason.detail


def test_a_map_outside_the_checkout_names_no_repository_path(project: Project) -> None:
    """Outside the checkout the map has no repository path: the reason still names the file in its
    text, and carries no ``path`` (which the JSON and annotations read as a repository file)."""
    head = project.head(write("src/pkg/extra.py", "X = 1\n"))
    v = project.check(head, coverage_sha=project.measured.root_commit)
    (reason,) = [r for r in v.reasons if r.code == "oracle_incomplete"]
    assert reason.path is None
    assert reason.detail.startswith(f"{project.coverage}: the coverage map is bound to ")
