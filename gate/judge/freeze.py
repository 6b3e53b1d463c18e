"""The flake freeze (schema 1): which test ids are taken out of the run.

An entry with a problem (no reason, a ``bound_sha`` that is not the parent or
one of its ancestors) still freezes its tests: freezing more can only make the
verdict stricter, and the problem itself is reported as ``oracle_incomplete``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from typing import Any

from oracle_gate.judge.paths import path_problem
from oracle_gate.judge.problems import Problem

BOUND_SHA = re.compile(r"[0-9a-fA-F]{4,64}")
#: v3.7: a login: letters, digits, '-', '_' and '.', not starting with '-' or '.', optionally '[bot]'.
LOGIN = re.compile(r"(?=.{1,100}\Z)[A-Za-z0-9_][A-Za-z0-9_.\-]*(\[bot\])?", re.ASCII)
ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


@dataclass(frozen=True)
class FreezeEntry:
    index: int
    nodeid: str
    reason: str | None
    bound_sha: str | None
    owner: str | None = None  # v3.7: a well-formed login, else None
    expires: date | None = None  # v3.7: a well-formed date, else None

    def label(self) -> str:
        return f"freeze entry {self.index} ({self.nodeid!r})"


@dataclass(frozen=True)
class Freeze:
    entries: tuple[FreezeEntry, ...] = ()
    source: str = "freeze.json"
    problems: tuple[Problem, ...] = ()
    _memo: dict[str, str | None] = field(default_factory=dict, init=False, compare=False, repr=False)

    @cached_property
    def nodeids(self) -> frozenset[str]:
        return frozenset(e.nodeid for e in self.entries)

    def frozen_by(self, test_id: str) -> str | None:
        """The manifest nodeid that freezes ``test_id``, if any.

        A nodeid matches exactly, or as a prefix ending where ``test_id`` has a
        ``::`` or ``[`` boundary.
        """
        if test_id in self._memo:
            return self._memo[test_id]
        ids = self.nodeids
        found = test_id if test_id in ids else None
        if found is None:
            for i, ch in enumerate(test_id):
                if (ch == "[" or test_id.startswith("::", i)) and test_id[:i] in ids:
                    found = test_id[:i]
                    break
        self._memo[test_id] = found
        return found

    def is_frozen(self, test_id: str) -> bool:
        return self.frozen_by(test_id) is not None


def parse_freeze(data: bytes | None, source: str = "freeze.json") -> Freeze:
    """The manifest from the parent's bytes; None (no file) freezes nothing."""
    if data is None:
        return Freeze(source=source)
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Freeze(source=source, problems=(Problem(source, f"not valid JSON ({exc})"),))
    except RecursionError:  # v2 hostile input
        return Freeze(source=source, problems=(Problem(source, "nested too deeply to parse"),))
    if not isinstance(doc, dict):
        return Freeze(
            source=source, problems=(Problem(source, f"expected a JSON object, got {type(doc).__name__}"),)
        )
    problems: list[Problem] = []
    if doc.get("schema") != 1:
        problems.append(Problem(source, f"'schema' must be 1, got {doc.get('schema')!r}"))
    frozen = doc.get("frozen")
    if not isinstance(frozen, list):
        problems.append(Problem(source, "'frozen' must be a list"))
        frozen = []
    entries = []
    for index, raw in enumerate(frozen):
        entry, entry_problems = _parse_entry(index, raw)
        problems += [Problem(source, p) for p in entry_problems]
        if entry is not None:
            entries.append(entry)
    return Freeze(tuple(entries), source, tuple(problems))


def _parse_entry(index: int, raw: Any) -> tuple[FreezeEntry | None, list[str]]:
    if not isinstance(raw, dict):
        return None, [f"freeze entry {index}: expected an object"]
    nodeid = raw.get("nodeid")
    if not isinstance(nodeid, str) or not nodeid.strip():
        return None, [f"freeze entry {index}: 'nodeid' missing or not a non-empty string"]
    entry = FreezeEntry(
        index,
        nodeid,
        raw.get("reason") if isinstance(raw.get("reason"), str) else None,
        raw.get("bound_sha") if isinstance(raw.get("bound_sha"), str) else None,
    )
    owner, owner_problem = _owner(raw)
    expires, expires_problem = _expires(raw)
    entry = replace(entry, owner=owner, expires=expires)
    problems = nodeid_path_problems(entry)
    problems += [f"{entry.label()}: {p}" for p in (owner_problem, expires_problem) if p]
    if entry.reason is None or not entry.reason.strip():
        problems.append(f"{entry.label()}: 'reason' missing or empty")
    if entry.bound_sha is None:
        problems.append(f"{entry.label()}: 'bound_sha' missing or not a string")
    elif not BOUND_SHA.fullmatch(entry.bound_sha):
        problems.append(
            f"{entry.label()}: bound_sha {entry.bound_sha!r} is not a hex commit id of at least 4 digits"
        )
    return entry, problems


def _owner(raw: dict[str, Any]) -> tuple[str | None, str | None]:
    """v3.7: the entry's ``owner`` (None when absent), or what is wrong with it."""
    if "owner" not in raw:
        return None, None
    value = raw["owner"]
    if isinstance(value, str) and LOGIN.fullmatch(value):
        return value, None
    return None, f"'owner' must be a login (letters, digits, '-', '_', '.'; at most 100), got {value!r:.60}"


def _expires(raw: dict[str, Any]) -> tuple[date | None, str | None]:
    """v3.7: the entry's ``expires`` date (None when absent), or what is wrong with it."""
    if "expires" not in raw:
        return None, None
    value = raw["expires"]
    if isinstance(value, str) and ISO_DATE.fullmatch(value):
        try:
            return date.fromisoformat(value), None
        except ValueError:
            pass
    return None, f"'expires' must be a date YYYY-MM-DD, got {value!r:.60}"


def check_bindings(freeze: Freeze, binding_problem: Callable[[str], str | None]) -> Freeze:
    """Add a problem for every entry whose ``bound_sha`` is not the parent or its ancestor.

    ``binding_problem(sha)`` answers for one lower-case hex prefix (the read side asks git); it is
    asked once per distinct prefix.
    """
    problems = list(freeze.problems)
    verdicts: dict[str, str | None] = {}
    for entry in freeze.entries:
        sha = entry.bound_sha
        if sha is None or not BOUND_SHA.fullmatch(sha):
            continue
        key = sha.lower()
        if key not in verdicts:
            verdicts[key] = binding_problem(key)
        if verdicts[key]:
            # The entry's label names the place; the text has never repeated the file's name.
            problems.append(
                Problem(freeze.source, f"{entry.label()}: bound_sha {sha} {verdicts[key]}", prefixed=False)
            )
    return replace(freeze, problems=tuple(problems))


def nodeid_matches(nodeid: str, test_id: str) -> bool:
    """Whether a freeze entry's ``nodeid`` matches ``test_id``: exactly, or as a prefix that ends at a
    ``::`` or ``[`` boundary of ``test_id`` (the rule :meth:`Freeze.frozen_by` applies)."""
    if not test_id.startswith(nodeid):
        return False
    rest = test_id[len(nodeid) :]
    return rest == "" or rest.startswith(("::", "["))


def nodeid_path_problems(entry: FreezeEntry) -> list[str]:
    """v2: the nodeid's path part (before the first ``::``) must be a normal repo-relative path.

    The entry still freezes what it matches as written; the problem makes the verdict
    ``oracle_incomplete``, so a ``./tests/...`` nodeid can no longer hide an overlap silently.
    """
    path = entry.nodeid.split("::", 1)[0]
    problem = path_problem(path)
    return (
        [f"{entry.label()}: path {path!r} is not a normal repo-relative path: {problem}"] if problem else []
    )
