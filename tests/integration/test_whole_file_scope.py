"""Scope inheritance holds however a line is touched (issue 19): a file touched whole, by a text ->
binary change, an oversized head or a module shadowed by an added path, gives the same overlap as
deleting it: the ``def`` line of a function only frozen tests run (executed at import, observed by no
test) takes its function's observers and is in the overlap."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.factories import Project
from tests.support.repo import Repo

MOD = "src/pkg/mod.py"
BIG = b"".join(b"x_%d = %d\n" % (i, i) for i in range(1_700_000))  # ~ 17 MiB: over the blob cap


def to_binary(repo: Repo) -> None:
    repo.write(MOD, repo.read(MOD).encode() + b"\0")


def to_oversized(repo: Repo) -> None:
    repo.write(MOD, BIG)


def shadowed(repo: Repo) -> None:
    repo.write("src/pkg/mod/__init__.py", "from pkg.lazy import value\n")


def deleted(repo: Repo) -> None:
    repo.delete(MOD)


@pytest.mark.parametrize(
    "touch", [to_binary, to_oversized, shadowed], ids=["text-to-binary", "oversized-head", "shadowed"]
)
def test_whole_file_touch_keeps_scope_inheritance(project: Project, touch: Callable[[Repo], None]) -> None:
    def_line = project.line("def frozen_only(x):")
    reference = project.check(project.head(deleted))
    assert def_line in reference.overlap[MOD]  # inherited from the body, which only test_frozen runs
    v = project.check(project.head(touch))
    assert v.verdict == "unscored"
    assert def_line in v.overlap[MOD]
    assert v.overlap[MOD] == reference.overlap[MOD]
    assert def_line in v.inherited[MOD]
