"""HeadTree: what a path is in head, for the symlink resolver, each directory listed at most once."""

from __future__ import annotations

from pathlib import Path

from oracle_gate.check import HeadTree, read_changes, read_links
from oracle_gate.git import Git
from oracle_gate.judge.symlinks import EntryKind
from tests.support.repo import Repo


class CountingGit(Git):
    def __init__(self, repo: Path) -> None:
        super().__init__(repo)
        self.listed: list[str] = []

    def list_directory(self, rev: str, directory: str) -> dict[str, tuple[str, str]]:
        self.listed.append(directory)
        return super().list_directory(rev, directory)


def test_lookup_names_trees_files_links_and_missing_paths_listing_each_directory_once(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.write("a/b/c/f.py", "x = 1\n")
    repo.symlink("a/l", "b/c")
    head = repo.commit()
    git = CountingGit(repo.root)
    tree = HeadTree(git, head)

    assert tree.lookup("a") == (EntryKind.TREE, None)
    assert tree.lookup("a/b/c") == (EntryKind.TREE, None)
    assert tree.lookup("a/b/c/f.py") == (EntryKind.OTHER, None)
    assert tree.lookup("a/l") == (EntryKind.LINK, "b/c")
    assert tree.lookup("a/l/f.py") == (EntryKind.MISSING, None)  # through a link is the resolver's job
    assert tree.lookup("a/b/c/f.py/deeper") == (EntryKind.MISSING, None)
    assert tree.lookup("nope/" * 50 + "x") == (EntryKind.MISSING, None)
    assert tree.lookup("") == (EntryKind.TREE, None)
    assert sorted(git.listed) == ["", "a", "a/b", "a/b/c"]


def test_a_link_two_thousand_segments_deep_resolves_with_one_listing(tmp_path: Path) -> None:
    """The shape of the TRUST 8 attack (bench/link_depth.py times it): the answer, and no more git."""
    repo = Repo(tmp_path / "r")
    repo.write("README", "x\n")
    parent = repo.commit("parent")
    repo.symlink("link", "/".join(["a"] * 2000))
    head = repo.commit("head")
    git = CountingGit(repo.root)

    resolved = read_links(git, head, read_changes(git, parent, head))

    assert resolved["link"].path == "/".join(["a"] * 2000)
    assert git.listed == [""]
