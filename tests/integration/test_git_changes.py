"""The change set read from real git repositories: renames, binaries, modes, symlinks, attributes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oracle_gate.check import read_changes
from oracle_gate.errors import GitError
from oracle_gate.git import Git, diff_blob_pairs
from oracle_gate.judge.changes import ChangeSet
from tests.support.factories import numbered
from tests.support.repo import Repo

TEN = "".join(f"line {i}\n" for i in range(1, 11))


def changes(repo: Repo, parent: str, head: str) -> ChangeSet:
    return read_changes(Git(repo.root), parent, head)


def base(repo: Repo, files: dict[str, str | bytes]) -> str:
    for path, content in files.items():
        repo.write(path, content)
    return repo.commit("parent")


def test_rename_with_edits_is_one_change_in_parent_coordinates(repo: Repo) -> None:
    """git diff -M pairs a renamed, edited file; its touched lines are parent lines of the old path."""
    parent = base(repo, {"src/old.py": TEN})
    repo.move("src/old.py", "src/new.py")
    repo.write("src/new.py", TEN.replace("line 5\n", "line five\n"))
    cs = changes(repo, parent, repo.commit())
    (change,) = cs.files
    assert (change.status, change.old_path, change.new_path) == ("renamed", "src/old.py", "src/new.py")
    assert cs.touched() == {"src/old.py": [5]}


def test_deleted_and_added_files(repo: Repo) -> None:
    """A deleted file touches all its lines; an added file touches none."""
    parent = base(repo, {"gone.py": "a\nb\nc\n"})
    repo.delete("gone.py")
    repo.write("fresh.py", "x\ny\n")
    cs = changes(repo, parent, repo.commit())
    assert cs.touched() == {"gone.py": [1, 2, 3]}
    fresh = next(f for f in cs.files if f.new_path == "fresh.py")
    assert [a.text for a in fresh.added] == ["x", "y"]


def test_binary_file_touches_nothing(repo: Repo) -> None:
    """A blob with a NUL byte is binary: no touched and no added lines."""
    parent = base(repo, {"data.bin": b"abc\0def\n"})
    repo.write("data.bin", b"abc\0xyz\n")
    (change,) = changes(repo, parent, repo.commit()).files
    assert change.binary
    assert (change.touched, change.added) == (frozenset(), ())


def test_mode_change_touches_nothing(repo: Repo) -> None:
    """chmod +x alone touches no line."""
    parent = base(repo, {"run.py": TEN})
    repo.write("run.py", TEN, executable=True)
    (change,) = changes(repo, parent, repo.commit()).files
    assert change.mode_only
    assert (change.old_mode, change.new_mode) == ("100644", "100755")
    assert change.touched == frozenset()


def test_file_replaced_by_symlink(repo: Repo) -> None:
    """A file turned into a symlink touches all the file's lines (a deletion plus an addition)."""
    parent = base(repo, {"a.py": "1\n2\n3\n", "b.py": "x\n"})
    (repo.root / "a.py").unlink()
    repo.symlink("a.py", "b.py")
    (change,) = changes(repo, parent, repo.commit()).files
    assert change.status == "type_changed"
    assert sorted(change.touched) == [1, 2, 3]


def test_submodule_pointer_touches_nothing(repo: Repo) -> None:
    """A gitlink change has no lines."""
    repo.write("README", "x\n")
    first = repo.commit()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{first},vendor/lib")
    repo.git("commit", "-q", "-m", "submodule")
    parent = repo.head()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{parent},vendor/lib")
    repo.git("commit", "-q", "-m", "bump")
    (change,) = changes(repo, parent, repo.head()).files
    assert change.new_kind == "submodule"
    assert (change.touched, change.added) == (frozenset(), ())


@pytest.mark.parametrize("attributes", ["*.py binary\n", "*.py -diff\n", "*.py -text\n"])
@pytest.mark.parametrize("where", ["parent", "head", "disk", "info"])
def test_gitattributes_cannot_hide_a_text_change(repo: Repo, attributes: str, where: str) -> None:
    """``.gitattributes`` in either commit, on disk or in .git/info cannot turn a .py edit binary."""
    files: dict[str, str | bytes] = {"src/m.py": TEN}
    if where == "parent":
        files[".gitattributes"] = attributes
    parent = base(repo, files)
    repo.write("src/m.py", TEN.replace("line 3\n", "line three\n"))
    if where == "head":
        repo.write(".gitattributes", attributes)
    head = repo.commit()
    if where == "disk":
        repo.write(".gitattributes", attributes)  # uncommitted, in the working tree
    if where == "info":
        (repo.root / ".git" / "info").mkdir(exist_ok=True)
        (repo.root / ".git" / "info" / "attributes").write_text(attributes)
    cs = changes(repo, parent, head)
    assert cs.touched()["src/m.py"] == [3]
    (change,) = [f for f in cs.files if f.path == "src/m.py"]
    assert not change.binary
    assert [a.text for a in change.added] == ["line three"]


def test_textconv_and_external_diff_are_not_used(repo: Repo) -> None:
    """A repository's diff driver with textconv and an external diff cannot change the line diff."""
    parent = base(repo, {"src/m.py": TEN, ".gitattributes": "*.py diff=hide\n"})
    repo.git("config", "diff.hide.textconv", "sh -c 'echo same'")
    repo.git("config", "diff.external", "false")
    repo.git("config", "diff.algorithm", "histogram")
    repo.write("src/m.py", TEN.replace("line 7\n", "line seven\n"))
    assert changes(repo, parent, repo.commit()).touched() == {"src/m.py": [7]}


def test_user_attributes_file_cannot_hide_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user-level attributes file ($XDG_CONFIG_HOME/git/attributes) cannot normalise away a change."""
    config = tmp_path / "xdg"
    (config / "git").mkdir(parents=True)
    (config / "git" / "attributes").write_text("* text eol=lf\n*.py -diff\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    diff = diff_blob_pairs([(b"a\r\nb\r\n", b"a\nb\n")])
    assert "-a\r\n" in diff
    assert "+a\n" in diff


def test_paths_with_spaces_and_unicode(repo: Repo) -> None:
    """Paths are read NUL-separated: spaces, quotes and non-ASCII names come through intact."""
    name = 'tests/dir with space/tëst "q".py'
    parent = base(repo, {name: TEN})
    repo.write(name, TEN.replace("line 2\n", "line two\n"))
    assert changes(repo, parent, repo.commit()).touched() == {name: [2]}


def test_missing_blob_is_a_git_error(repo: Repo) -> None:
    """A blob missing from the object store (a broken or partial clone) stops the gate with a GitError."""
    parent = base(repo, {"src/m.py": TEN})
    repo.write("src/m.py", TEN + "more\n")
    head = repo.commit()
    blob = repo.git("rev-parse", f"{head}:src/m.py")
    os.remove(repo.root / ".git" / "objects" / blob[:2] / blob[2:])
    with pytest.raises(GitError, match=f"blob {blob} is missing"):
        changes(repo, parent, head)


def test_many_changed_files_in_one_diff(repo: Repo) -> None:
    """With more than ten files in one diff, each file keeps its own touched lines."""
    parent = base(repo, {f"m{i:02}.py": numbered(12).decode() for i in range(1, 13)})
    for i in range(1, 13):
        repo.write(f"m{i:02}.py", numbered(12).decode().replace(f"l{i}\n", "X\n"))
    assert changes(repo, parent, repo.commit()).touched() == {f"m{i:02}.py": [i] for i in range(1, 13)}
