"""The policy: which paths are the oracle, read from the parent's ``oracle-gate.toml``.

Parsing never weakens protection: a key with a wrong type falls back to its
default (for ``protected``, the defaults *plus* whatever strings the key did
hold), and every problem is kept so the verdict reports ``oracle_incomplete``.

``oracle-gate map`` reads the policy only to find the freeze manifest (issue 19: its start-up on
Python 3.11 is part of its cost against pytest-cov's), so what only a policy file, an
``[approvals]`` table or a glob match needs is imported where it is used: ``tomllib`` (about 6 ms)
and :mod:`~oracle_gate.judge.approvals` and :mod:`~oracle_gate.judge.globs` (their classes, some 8 ms).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from oracle_gate.judge.mutation_policy import MutationPolicy
from oracle_gate.judge.problems import Problem

if TYPE_CHECKING:
    from oracle_gate.judge.approvals import ApprovalRules
    from oracle_gate.judge.globs import GlobSet

POLICY_PATH = "oracle-gate.toml"
DEFAULT_PROTECTED = ("seeds/**", "fixtures/**", "harness/**", "freeze.json", "fixture_lock.json")
DEFAULT_APPEND_ONLY = ("seeds/**",)  # v3.6
DEFAULT_TESTS = ("tests/**", "**/test_*.py", "**/*_test.py")
ALWAYS_PROTECTED = (POLICY_PATH, ".github/workflows/**")
DEFAULT_HARNESS = ("harness/**",)  # SCORING.md: test files whose tests the scoring run runs first


@dataclass(frozen=True)
class Policy:
    protected: tuple[str, ...] = DEFAULT_PROTECTED
    freeze: str = "freeze.json"
    fixture_lock: str = "fixture_lock.json"
    ignore: tuple[str, ...] = ()
    tests: tuple[str, ...] = DEFAULT_TESTS
    forbid_skip_markers: bool = True
    protect_runner_config: bool = True
    edited_observers: str = "unscored"  # v2: or "live", to let a test the change edits still count
    extra_protected: tuple[str, ...] = ()
    append_only: tuple[str, ...] = DEFAULT_APPEND_ONLY  # v3.6: files that may only grow
    approvals: ApprovalRules | None = None  # v3.5: None without a (well-formed) [approvals] table
    harness: tuple[str, ...] = DEFAULT_HARNESS
    mutation: MutationPolicy = field(default_factory=MutationPolicy)  # SCORING.md 2.4: the [mutation] table
    problems: tuple[Problem, ...] = field(default=())

    def with_extra_protected(self, globs: Iterable[str]) -> Policy:
        """Add globs from the CLI or the action's inputs: they can only add."""
        extra = tuple(g for g in dict.fromkeys(globs) if g.strip())
        return replace(self, extra_protected=self.extra_protected + extra)

    def protected_globs(self, lock_paths: Iterable[str] = ()) -> GlobSet:
        """Everything protected: the policy's globs, the always-protected set and the locked paths."""
        return _globs(
            (
                *self.protected,
                *ALWAYS_PROTECTED,
                self.freeze,
                self.fixture_lock,
                *self.extra_protected,
                *_literal_globs(lock_paths),
            )
        )

    def ignored(self) -> GlobSet:
        return _globs(self.ignore)

    def test_files(self) -> GlobSet:
        return _globs(self.tests)

    def append_only_files(self) -> GlobSet:
        return _globs(self.append_only)

    @property
    def edited_tests_count(self) -> bool:
        """Whether a live test the change edits still counts as a live observer (v2)."""
        return self.edited_observers == "live"


def _globs(patterns: Iterable[str]) -> GlobSet:
    from oracle_gate.judge.globs import GlobSet

    return GlobSet(patterns)


def _literal_globs(paths: Iterable[str]) -> list[str]:
    """Lock paths are literal paths: escape glob characters in them."""
    return ["".join(f"[{c}]" if c in "*?[" else c for c in p) for p in paths]


_LISTS = {
    "protected": DEFAULT_PROTECTED,
    "ignore": (),
    "tests": DEFAULT_TESTS,
    "append_only": DEFAULT_APPEND_ONLY,
    "harness": DEFAULT_HARNESS,
}
_PATHS = {"freeze": "freeze.json", "fixture_lock": "fixture_lock.json"}
_FLAGS = {"forbid_skip_markers": True, "protect_runner_config": True}
_CHOICES = {"edited_observers": ("unscored", "live")}  # v2; a bad value keeps the first (the safe one)


def parse_policy(data: bytes | None, source: str = POLICY_PATH) -> Policy:
    """Policy from the parent's bytes of the policy file (None: no file, all defaults)."""
    if data is None:
        return Policy()
    import tomllib

    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Policy(problems=(Problem(source, f"not valid TOML ({exc}); defaults apply"),))
    except RecursionError:  # v2 hostile input: nesting too deep for the parser is a problem, not a crash
        return Policy(problems=(Problem(source, "nested too deeply to parse; defaults apply"),))
    problems: list[Problem] = []
    values: dict[str, Any] = {}
    for key, value in table.items():
        problem = _apply_key(key, value, values)
        if problem:
            problems.append(Problem(source, problem))
    return Policy(**values, problems=tuple(problems))


def _apply_key(key: str, value: object, values: dict[str, Any]) -> str | None:
    """Store a well-formed key in ``values``; describe what is wrong with a bad one."""
    if key in _LISTS:
        return _apply_list(key, value, values)
    if key == "approvals":  # v3.5: a malformed table approves nothing (and is a problem)
        from oracle_gate.judge.approvals import parse_approvals

        rules, problems = parse_approvals(value)
        values[key] = rules
        return "; ".join(problems) or None
    if key == "mutation":  # SCORING.md 2.4
        from oracle_gate.judge.mutation_policy import parse_mutation

        values[key], problems = parse_mutation(value)
        return "; ".join(problems) or None
    if key in _PATHS:
        ok = isinstance(value, str) and _is_repo_path(value)
        problem = f"'{key}' must be a repo-relative path, got {_describe(value)}"
    elif key in _CHOICES:
        ok = value in _CHOICES[key]
        problem = f"'{key}' must be one of {', '.join(map(repr, _CHOICES[key]))}, got {_describe(value)}"
    elif key in _FLAGS:
        ok = isinstance(value, bool)
        problem = f"'{key}' must be true or false, got {_describe(value)}"
    else:
        return f"unknown key {key!r}"  # repr: a quoted TOML key may hold a newline
    if ok:
        values[key] = value
        return None
    return problem


def _apply_list(key: str, value: object, values: dict[str, Any]) -> str | None:
    strings = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    if isinstance(value, list) and len(strings) == len(value):
        values[key] = tuple(strings)
        return None
    if key in (
        "protected",
        "tests",
        "append_only",
    ):  # keep the defaults and add what the key held: never weaker
        values[key] = tuple(dict.fromkeys((*_LISTS[key], *strings)))
    return f"'{key}' must be a list of strings, got {_describe(value)}"


def _is_repo_path(path: str) -> bool:
    norm = posixpath.normpath(path)
    return bool(path) and not path.startswith("/") and norm == path and not norm.startswith("..")


def _describe(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"
