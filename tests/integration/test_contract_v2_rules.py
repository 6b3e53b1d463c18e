"""Contract v2, change-level rules and hostile inputs, on real repositories with a really measured map.

One case per bullet of issue 9 that these rules answer, each giving the verdict v2 prescribes,
plus cases that must stay ``pass_clean``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from oracle_gate.check import read_changes
from oracle_gate.git import Git, GitObject
from oracle_gate.judge.changes import MAX_BLOB
from oracle_gate.judge.verdict import Verdict
from tests.support.factories import TEST_FILE, Project
from tests.support.repo import Repo, run_cli

MOD = "src/pkg/mod.py"
FROZEN_LINE = "    z = x - 1\n"  # observed by the frozen test alone
LIVE_LINE = "    y = x + 1\n"  # observed by a live test


def codes(v: Verdict) -> set[str]:
    return {str(code) for code in v.codes}


def write(path: str, text: str | bytes) -> Callable[[Repo], object]:
    return lambda repo: repo.write(path, text)


def live_edit(repo: Repo) -> None:
    """An edit of a live-observed line: on its own, pass_clean."""
    repo.write(MOD, repo.read(MOD).replace(LIVE_LINE, "    y = 1 + x\n"))


def with_live_edit(*edits: Callable[[Repo], object]) -> Callable[[Repo], None]:
    def apply(repo: Repo) -> None:
        live_edit(repo)
        for edit in edits:
            edit(repo)

    return apply


# ---------------------------------------------------------------- stays pass_clean


def test_live_edit_alone_passes_clean(project: Project) -> None:
    """The baseline every case below adds one thing to."""
    assert project.check(project.head(live_edit)).verdict == "pass_clean"


def test_untouched_gitattributes_stays_pass_clean(project: Project) -> None:
    """A ``.gitattributes`` the parent has and the change does not touch is no runner change."""
    project.new_parent(write(".gitattributes", "*.json binary\n"))
    assert project.check(project.head(live_edit)).verdict == "pass_clean"


def test_source_if_mode_skip_stays_pass_clean(project: Project) -> None:
    """``if mode == "skip":`` in a source file is not a marker API (v2 looks at every .py file)."""
    edit = with_live_edit(
        write("src/pkg/modes.py", 'def run(mode):\n    if mode == "skip":\n        return 0\n')
    )
    v = project.check(project.head(edit))
    assert (v.verdict, codes(v)) == ("pass_clean", {"live_surface_covers_diff"})


# ---------------------------------------------------------------- case-insensitive protection


@pytest.mark.parametrize("path", ["Fixtures/x.json", "FREEZE.json", "Harness/run.py", "HARNESS"])
def test_protected_names_in_another_case(project: Project, path: str) -> None:
    """What a macOS or Windows runner reads as a protected path is protected."""
    v = project.check(project.head(with_live_edit(write(path, "{}\n"))))
    assert "oracle_edit_forbidden" in codes(v)
    assert v.verdict == "fail"


# ---------------------------------------------------------------- runner configuration


@pytest.mark.parametrize(
    "path",
    [
        "pytest.toml",
        ".pytest.toml",
        ".pytest.ini",
        ".coveragerc",
        "setup.py",
        "noxfile.py",
        "tests/Conftest.py",
        ".gitattributes",
        ".github/actions/setup/action.yml",
        "src/pkg/__pycache__/mod.cpython-311.pyc",
    ],
)
def test_runner_files_outside_v1_list(project: Project, path: str) -> None:
    """Each v2 runner file, added, is runner_config_changed."""
    v = project.check(project.head(with_live_edit(write(path, "[pytest]\n"))))
    assert "runner_config_changed" in codes(v)
    assert v.verdict == "fail"


def test_pytest11_entry_point(project: Project) -> None:
    """A pytest11 entry point added to pyproject.toml loads a plugin into the run."""
    project.new_parent(write("pyproject.toml", '[project]\nname = "tiny"\n'))
    text = '[project]\nname = "tiny"\n\n[project.entry-points.pytest11]\nevil = "pkg.mod"\n'
    v = project.check(project.head(with_live_edit(write("pyproject.toml", text))))
    assert "runner_config_changed" in codes(v)


def test_pytest_plugins_in_a_test_module(project: Project) -> None:
    """``pytest_plugins = [...]`` added to a test module is runner configuration."""

    def edit(repo: Repo) -> None:
        repo.write(TEST_FILE, repo.read(TEST_FILE) + '\npytest_plugins = ["pkg.mod"]\n')

    assert "runner_config_changed" in codes(project.check(project.head(edit)))


def test_deeply_nested_pyproject_is_judged_not_a_crash(project: Project) -> None:
    """Hostile input: a pyproject.toml too deep for tomllib is an unparseable side, not exit 3."""
    deep = "x = " + "[" * 50_000 + "]" * 50_000 + "\n"
    v = project.check(project.head(with_live_edit(write("pyproject.toml", deep))))
    assert "runner_config_changed" in codes(v)


# ---------------------------------------------------------------- skip markers


@pytest.mark.parametrize(
    "marker",
    [
        "    pytest.skip ('later')",
        "    raise unittest.SkipTest('later')",
        "    pytest.exit(returncode=0)",
        '    getattr(pytest, "skip")("later")',
    ],
)
def test_v2_skip_marker_spellings(project: Project, marker: str) -> None:
    """Each spelling the issue lists, added to a live test, is skip_marker_added."""
    edit = project.replace(TEST_FILE, "    assert live(1) == 4\n", f"{marker}\n    assert live(1) == 4\n")
    assert "skip_marker_added" in codes(project.check(project.head(edit)))


def test_marker_defined_in_source(project: Project) -> None:
    """A marker API written in src/ (outside the tests globs) counts."""
    edit = with_live_edit(
        write("src/pkg/markers.py", "import pytest\n\nslow = pytest.mark.skip(reason='x')\n")
    )
    assert "skip_marker_added" in codes(project.check(project.head(edit)))


def test_mark_deselected_by_parent_addopts(project: Project) -> None:
    """``@pytest.mark.slow`` is a skip marker when the parent's addopts deselects ``slow``."""
    project.new_parent(write("pytest.ini", "[pytest]\naddopts = -m 'not slow'\nmarkers = slow\n"))
    edit = project.replace(TEST_FILE, "def test_live():\n", "@pytest.mark.slow\ndef test_live():\n")
    v = project.check(project.head(edit))
    assert "skip_marker_added" in codes(v)
    assert any("addopts" in r.detail for r in v.reasons)


# ---------------------------------------------------------------- normal paths


def test_freeze_nodeid_written_dot_slash(project: Project) -> None:
    """A ``./tests/...`` nodeid is oracle_incomplete naming the freeze file."""

    def edit(repo: Repo) -> None:
        doc = json.loads(repo.read("freeze.json"))
        doc["frozen"][0]["nodeid"] = "./" + doc["frozen"][0]["nodeid"]
        repo.write("freeze.json", json.dumps(doc))

    project.new_parent(edit)
    v = project.check(project.head(live_edit))
    assert "oracle_incomplete" in codes(v)
    assert any(r.path == "freeze.json" and "'./tests/test_mod.py'" in r.detail for r in v.reasons)


def test_lock_paths_written_loosely_still_protect(project: Project) -> None:
    """Lock paths ``./x`` and ``a//b`` are problems naming the lock, and protect ``x`` and ``a/b``."""
    lock = {"paths": ["./data.txt", "src//pkg/lazy.py"]}
    project.new_parent(with_parent(write("fixture_lock.json", json.dumps(lock)), write("data.txt", "1\n")))
    v = project.check(project.head(with_live_edit(write("data.txt", "2\n"))))
    assert v.verdict == "fail"
    assert [r.path for r in v.reasons if r.code == "oracle_edit_forbidden"] == ["data.txt"]
    problems = [r.detail for r in v.reasons if r.code == "oracle_incomplete"]
    assert len(problems) == 2
    assert all(d.startswith("fixture_lock.json: 'paths' entry") for d in problems)


def with_parent(*edits: Callable[[Repo], object]) -> Callable[[Repo], None]:
    def apply(repo: Repo) -> None:
        for edit in edits:
            edit(repo)

    return apply


# ---------------------------------------------------------------- symlinks


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("src/abs", "/etc/passwd"),
        ("src/up", "../../outside/freeze.json"),
        ("src/checkout", "../../work/freeze.json"),  # ../<checkout>/freeze.json: leaves the repository
    ],
)
def test_symlink_escaping_the_repository(project: Project, link: str, target: str) -> None:
    """An absolute target or one that leaves the repository cannot be judged: oracle_edit_forbidden."""
    v = project.check(project.head(with_live_edit(lambda repo: repo.symlink(link, target))))
    assert "oracle_edit_forbidden" in codes(v)


def test_symlink_chain_into_the_freeze_manifest(project: Project) -> None:
    """A chain of links (each harmless textually) that ends at freeze.json is an oracle edit."""

    def edit(repo: Repo) -> None:
        repo.symlink("docs/up", "..")  # the repository root: harmless on its own
        repo.symlink("src/hop", "../docs/up")
        repo.symlink("src/manifest", "hop/freeze.json")

    v = project.check(project.head(with_live_edit(edit)))
    assert any(r.path == "src/manifest" for r in v.reasons if r.code == "oracle_edit_forbidden")


def test_symlink_cycle_is_forbidden(project: Project) -> None:
    """Links that loop never resolve: fail closed after 40 links."""

    def edit(repo: Repo) -> None:
        repo.symlink("src/a", "b")
        repo.symlink("src/b", "a")

    assert "oracle_edit_forbidden" in codes(project.check(project.head(with_live_edit(edit))))


def test_link_replacing_a_protected_directory(project: Project) -> None:
    """A link named ``harness`` replacing the protected directory is an edit of it."""
    project.new_parent(write("harness/run.py", "print('run')\n"))

    def edit(repo: Repo) -> None:
        repo.delete("harness")
        repo.symlink("harness", "src")

    v = project.check(project.head(with_live_edit(edit)))
    assert any(r.path == "harness" for r in v.reasons if r.code == "oracle_edit_forbidden")


def head_with_raw_link(project: Project, link: str, target: str) -> str:
    """A head commit holding a symlink the file system could not create (written to git directly)."""
    project.branch_from(project.parent)
    repo = project.repo
    sha = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=repo.root,
            env=repo.env,
            input=target.encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    repo.git("update-index", "--add", "--cacheinfo", f"120000,{sha},{link}")
    repo.git("commit", "-q", "-m", "raw link")
    return repo.head()


def test_3000_segment_symlink_target_under_a_double_star_policy(project: Project) -> None:
    """Hostile input: a 3000-segment target under ``**/x/**`` is judged at once, no RecursionError.

    Longer than PATH_MAX, it cannot be followed (fail closed); a 1500-segment one is resolved and
    matched against the glob (``**/x/**`` can match below any directory: the link counts too).
    """
    project.new_parent(write("oracle-gate.toml", 'protected = ["**/x/**"]\n'))
    for segments in (3000, 1500):
        v = project.check(head_with_raw_link(project, "src/deep", "/".join(["a"] * segments)))
        assert "oracle_edit_forbidden" in codes(v), segments
        assert v.verdict == "fail"


# ---------------------------------------------------------------- module shadowing, text -> binary


@pytest.mark.parametrize(
    "shadow",
    [
        "src/pkg/mod/__init__.py",
        "src/pkg/mod.so",
        "src/pkg/mod.cpython-311-x86_64-linux-gnu.so",
        "src/pkg/mod.pyd",
    ],
)
def test_module_shadowing_touches_the_whole_module(project: Project, shadow: str) -> None:
    """An added path Python would import instead of mod.py touches all of mod.py: the frozen lines too."""
    v = project.check(project.head(write(shadow, "from pkg.lazy import value\n")))
    assert "freeze_overlap" in codes(v)
    assert v.touched[MOD] == list(
        range(1, len(project.repo.git("show", f"{project.parent}:{MOD}").splitlines()) + 1)
    )


def test_text_turned_binary_touches_every_parent_line(project: Project) -> None:
    """mod.py turned binary (a NUL byte) touches every parent line: the frozen ones overlap."""
    v = project.check(project.head(lambda repo: repo.write(MOD, repo.read(MOD).encode() + b"\0")))
    assert "freeze_overlap" in codes(v)


# ---------------------------------------------------------------- oversized blobs


def test_oversized_blob_is_judged_without_a_diff(project: Project) -> None:
    """A side larger than 16 MiB: every parent line touched, no line added in head."""
    big = b"".join(b"line %d\n" % i for i in range(2_200_000))  # ~ 17 MiB
    assert len(big) > 16 * 1024 * 1024
    project.new_parent(write("data/big.txt", b"one\ntwo\nthree\n"))
    v = project.check(project.head(write("data/big.txt", big)), coverage=None)
    assert v.touched["data/big.txt"] == [1, 2, 3]
    assert "no_added_lines" in codes(v)


# ---------------------------------------------------------------- hostile oracle files


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("oracle-gate.toml", "protected = " + "[" * 50_000 + "]" * 50_000 + "\n"),
        ("freeze.json", "[" * 200_000 + "]" * 200_000),
        ("fixture_lock.json", "[" * 200_000 + "]" * 200_000),
    ],
)
def test_deeply_nested_oracle_file_is_oracle_incomplete(project: Project, path: str, text: str) -> None:
    """A parent oracle file nested past the parser's limit: oracle_incomplete naming it, not exit 3."""
    project.new_parent(write(path, text))
    v = project.check(project.head(live_edit))
    assert v.verdict == "unscored"
    assert [r.path for r in v.reasons if r.code == "oracle_incomplete"] == [path]
    assert any("nested too deeply" in r.detail for r in v.reasons)


def test_deeply_nested_policy_through_the_cli_exits_2(project: Project) -> None:
    """The same through the real CLI: exit 2 (unscored), one line on stderr at most, no traceback."""
    project.new_parent(write("oracle-gate.toml", "protected = " + "[" * 50_000 + "]" * 50_000 + "\n"))
    head = project.head(live_edit)
    args = ("check", "--repo", str(project.root), "--base", project.parent, "--head", head)
    proc = run_cli(*args, "--coverage", str(project.coverage), "--coverage-sha", project.parent)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr


class RecordingGit(Git):
    """The real Git, recording the size of every object it reads whole."""

    def __init__(self, repo: Path) -> None:
        super().__init__(repo)
        self.largest_read = 0

    def read(self, specs: Sequence[str]) -> list[GitObject | None]:
        objects = super().read(specs)
        self.largest_read = max([self.largest_read, *(len(o.data) for o in objects if o is not None)])
        return objects


def test_oversized_blob_is_never_read_whole(project: Project) -> None:
    """Sizes are asked first: the read side loads no blob above the cap, whatever the change."""
    big = b"x" * 63 + b"\n"
    project.new_parent(write("data/big.txt", big * 300_000))  # ~ 19 MiB
    head = project.head(write("data/big.txt", b"y" * 63 + b"\n" + big * 299_999))
    git = RecordingGit(project.root)
    changes = read_changes(git, project.parent, head)
    (change,) = changes.files
    assert change.oversized
    assert len(change.touched) == 300_000
    assert change.added == ()
    assert git.largest_read <= MAX_BLOB


def test_shadowed_module_entry_carries_its_parent_bytes(project: Project) -> None:
    """The shadowed module's entry holds its parent bytes on both sides: content unchanged, parseable."""
    head = project.head(write("src/pkg/mod/__init__.py", ""))
    changes = read_changes(Git(project.root), project.parent, head)
    (module,) = [f for f in changes.files if f.path == MOD]
    assert module.shadowed_by == "src/pkg/mod/__init__.py"
    assert (
        module.old_blob
        == module.new_blob
        == project.repo.git("show", f"{project.parent}:{MOD}").encode() + b"\n"
    )
    assert not module.content_changed
