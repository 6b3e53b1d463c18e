"""The contract's globs (v2): anchored at the repository root, case-insensitive.

``*`` and ``?`` stay within one path segment, ``[...]`` is a character class,
a whole-segment ``**`` matches zero or more directories, so a trailing
``dir/**`` matches everything below ``dir`` *and* ``dir`` itself (replacing the
directory by a file or a symlink is an edit of it). Unlike ``.gitignore``, a
pattern without a slash names a root path only.

Matching is linear in the path: the path's segments run through a small NFA
over the pattern's segments (no regular expression spans segments, so a
3000-segment path under ``**/x/**`` cannot backtrack or recurse), and inside a
segment ``*`` splits the pattern into fixed-width pieces found left to right.
Case-insensitive because a macOS or Windows runner reads ``Fixtures/x`` as
``fixtures/x``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

_FLAGS = re.IGNORECASE | re.DOTALL
STAR = None  # a token of a segment pattern: ``*`` (any run of characters)


def _tokens(seg: str) -> list[str | None]:
    """A segment pattern as one-character regexes and STARs (runs of ``*`` collapsed)."""
    out: list[str | None] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        if c == "*":
            if not out or out[-1] is not STAR:
                out.append(STAR)
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (end := _class_end(seg, i)) != -1:
            out.append(_char_class(seg[i + 1 : end]))
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return out


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


@dataclass(frozen=True)
class _Piece:
    """A fixed-width run of one-character tokens (no ``*`` inside)."""

    regex: re.Pattern[str]
    width: int


def _piece(tokens: list[str]) -> _Piece:
    return _Piece(re.compile("".join(tokens), _FLAGS), len(tokens))


@dataclass(frozen=True)
class SegmentPattern:
    """One path segment's pattern: pieces separated by ``*`` (``starred``: at least one ``*``)."""

    pieces: tuple[_Piece, ...]
    starred: bool

    @classmethod
    def parse(cls, seg: str) -> SegmentPattern:
        pieces: list[list[str]] = [[]]
        for token in _tokens(seg):
            if token is STAR:
                pieces.append([])
            else:
                pieces[-1].append(token)
        return cls(tuple(_piece(p) for p in pieces), len(pieces) > 1)

    def matches(self, name: str) -> bool:
        """Whether ``name`` (one segment) matches; time linear in len(name) times the pattern."""
        first = self.pieces[0]
        if not self.starred:
            return len(name) == first.width and first.regex.fullmatch(name) is not None
        last = self.pieces[-1]
        end = len(name) - last.width
        if end < first.width or not first.regex.match(name, 0, first.width):
            return False
        if not last.regex.fullmatch(name, end):
            return False
        pos = first.width
        for piece in self.pieces[1:-1]:  # leftmost placement of each fixed-width piece is optimal
            found = piece.regex.search(name, pos, end)
            if found is None:
                return False
            pos = found.end()
        return True


@dataclass(frozen=True)
class Glob:
    """A compiled glob: its segments, ``None`` standing for a whole-segment ``**``."""

    segments: tuple[SegmentPattern | None, ...]

    def _closure(self, states: set[int]) -> set[int]:
        """Add the states reachable without consuming a segment (a ``**`` may match none)."""
        out = set(states)
        for i in sorted(states):
            j = i
            while j < len(self.segments) and self.segments[j] is None:
                j += 1
                out.add(j)
        return out

    def _run(self, parts: list[str]) -> set[int]:
        states = self._closure({0})
        for name in parts:
            nxt: set[int] = set()
            for i in states:
                if i == len(self.segments):
                    continue
                seg = self.segments[i]
                if seg is None:
                    nxt.add(i)
                elif seg.matches(name):
                    nxt.add(i + 1)
            if not nxt:
                return nxt
            states = self._closure(nxt)
        return states

    def matches(self, path: str) -> bool:
        return len(self.segments) in self._run(path.split("/"))

    def may_match_below(self, directory: str) -> bool:
        """Whether some path strictly below ``directory`` can match."""
        parts = [p for p in directory.strip("/").split("/") if p]
        return any(i < len(self.segments) for i in self._run(parts))


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> Glob:
    return Glob(
        tuple(None if seg == "**" else SegmentPattern.parse(seg) for seg in pattern.strip("/").split("/"))
    )


def glob_matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).matches(path)


def glob_may_match_below(pattern: str, directory: str) -> bool:
    """True when ``pattern`` can match some path strictly below ``directory``."""
    return compile_glob(pattern).may_match_below(directory)


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
