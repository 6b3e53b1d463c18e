"""Symlink targets resolved through the head tree (contract v2), pure.

A symlink the change adds or re-points is judged by where it leads: the read side
(:func:`oracle_gate.check.read_link_resolutions`) answers "what is this path in head?" for the paths
along the target only, and :func:`resolve_link` walks the target component by component as the
kernel would, following up to :data:`MAX_LINKS` links. An absolute target, one that climbs above
the repository, a cycle or a chain longer than the limit cannot be judged as a repository path:
it *escapes*, and the gate treats it as an oracle edit (fail closed).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

MAX_LINKS = 40  # as Linux's ELOOP limit
MAX_TARGET = 4096  # PATH_MAX: a longer target cannot be followed by the runner's kernel either
MAX_STEPS = 100_000  # components walked in all, whatever the links expand to


class EntryKind(StrEnum):
    TREE = "tree"
    LINK = "link"
    OTHER = "other"  # a file or a submodule
    MISSING = "missing"


#: path -> (what head has there, the link's target when it is a link)
Lookup = Callable[[str], tuple[EntryKind, str | None]]


def lexical_lookup(_path: str) -> tuple[EntryKind, str | None]:
    """A head tree with no symlink in it: resolution is then purely textual."""
    return EntryKind.MISSING, None


@dataclass(frozen=True)
class LinkResolution:
    link: str
    path: str | None  # the repo-relative path the link leads to ('' is the repository root)
    escape: str | None = None  # why it leads to no repository path (then ``path`` is None)


def resolve_link(link: str, target: str, lookup: Lookup = lexical_lookup) -> LinkResolution:
    """Where ``link`` (whose own target is ``target``) leads in head, following head's links."""
    problem = _target_problem(target)
    if problem:
        return LinkResolution(link, None, problem)
    current = [p for p in posixpath.dirname(link).split("/") if p]
    pending = _components(target)
    links, steps = 1, 0
    while pending:
        steps += 1
        if steps > MAX_STEPS:
            return LinkResolution(link, None, f"takes more than {MAX_STEPS} steps to resolve")
        name = pending.pop()
        if name == "..":
            if not current:
                return LinkResolution(link, None, "leaves the repository")
            current.pop()
            continue
        kind, next_target = lookup("/".join([*current, name]))
        if kind != EntryKind.LINK:
            current.append(name)
            continue
        links += 1
        if links > MAX_LINKS:
            return LinkResolution(link, None, f"passes more than {MAX_LINKS} links (a cycle or a chain)")
        problem = _target_problem(next_target or "")
        if problem:
            return LinkResolution(link, None, f"leads through {'/'.join([*current, name])}, which {problem}")
        pending.extend(_components(next_target or ""))
    return LinkResolution(link, "/".join(current))


def _components(target: str) -> list[str]:
    """A target's meaningful components, last first (a stack)."""
    return [c for c in reversed(target.split("/")) if c not in ("", ".")]


def _target_problem(target: str) -> str | None:
    if target.startswith("/"):
        return "is absolute"
    if len(target) > MAX_TARGET:
        return f"is longer than {MAX_TARGET} bytes"
    if "\0" in target:
        return "holds a NUL byte"
    return None
