"""The contract's globs: anchored at the repository root, case-sensitive.

``*`` and ``?`` stay within one path segment, ``[...]`` is a character class,
a whole-segment ``**`` matches zero or more directories, and a trailing
``dir/**`` matches everything below ``dir`` (not ``dir`` itself). Unlike
``.gitignore``, a pattern without a slash names a root path only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


def _segment(seg: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        if c == "*":
            while i + 1 < len(seg) and seg[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (end := _class_end(seg, i)) != -1:
            out.append(_char_class(seg[i + 1 : end]))
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class_end(seg: str, start: int) -> int:
    """Index of the ``]`` closing the class opened at ``start`` (-1: none, ``[`` is literal).

    As in fnmatch, a ``]`` right after ``[`` or ``[!`` is a member, not the end.
    """
    j = start + 1
    if seg[j : j + 1] in ("!", "^"):
        j += 1
    if seg[j : j + 1] == "]":
        j += 1
    return seg.find("]", j)


def _char_class(body: str) -> str:
    """A regex class for a glob class body, every member escaped.

    Escaping each member keeps ``[``, ``&&``, ``~~``, ``||`` and ``--`` from reading
    as regex set syntax; a reversed range (``z-a``) matches nothing, as in fnmatch.
    """
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    members: list[str] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            low, high = body[i], body[i + 2]
            if low <= high:
                members.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
        else:
            members.append(re.escape(body[i]))
            i += 1
    if negate:
        return "[^/" + "".join(members) + "]"
    return "[" + "".join(members) + "]" if members else "(?!)"


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> re.Pattern[str]:
    segments = pattern.strip("/").split("/")
    parts: list[str] = []
    for index, seg in enumerate(segments):
        last = index == len(segments) - 1
        if seg == "**":
            parts.append(".+" if last else "(?:[^/]+/)*")
        else:
            parts.append(_segment(seg) + ("" if last else "/"))
    return re.compile(r"\A" + "".join(parts) + r"\Z", re.DOTALL)


def glob_matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).match(path) is not None


def _segment_matches(pattern_seg: str, name: str) -> bool:
    return re.fullmatch(_segment(pattern_seg), name, re.DOTALL) is not None


def glob_may_match_below(pattern: str, directory: str) -> bool:
    """True when ``pattern`` can match some path strictly below ``directory``."""
    pat = pattern.strip("/").split("/")
    path = [p for p in directory.strip("/").split("/") if p]

    def walk(pi: int, di: int) -> bool:
        if di == len(path):
            return pi < len(pat)
        if pi == len(pat):
            return False
        if pat[pi] == "**":
            return walk(pi + 1, di) or walk(pi, di + 1)
        return _segment_matches(pat[pi], path[di]) and walk(pi + 1, di + 1)

    return walk(0, 0)


class GlobSet:
    """An ordered set of globs; answers which one matches first."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(dict.fromkeys(patterns))

    def match(self, path: str) -> str | None:
        return next((p for p in self.patterns if glob_matches(p, path)), None)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.match(path) is not None

    def may_match_below(self, directory: str) -> str | None:
        return next((p for p in self.patterns if glob_may_match_below(p, directory)), None)
