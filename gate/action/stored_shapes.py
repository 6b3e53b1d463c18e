"""The contract's shapes, checked on a stored ``verdict.json`` before ``oracle-gate publish`` posts it.

The stored verdict comes from a run the pull request could influence, so every field is held to the
shape the gate itself would have written (hex SHAs and digests, a version word, repository-relative
paths, positive line numbers, a ratio in [0, 1]) and the verdict word must be the one its reason
codes force. Anything else rejects the whole file (:class:`StoredVerdictError`): a forged field is
never rendered, however well it is escaped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping

from oracle_gate.errors import StoredVerdictError
from oracle_gate.github.defaults import FULL_SHA
from oracle_gate.judge.verdict import REASONS, SEVERITY, Outcome, Verdict

_DIGEST = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+!_-]{0,63}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_PATH_CHARS = 4096
MAX_DETAIL_CHARS = 64 * 1024
MAX_LINE = 10**9


def derived_word(v: Verdict) -> Outcome:
    """The verdict word the reason codes force (a code this gate does not decide counts as unscored)."""
    return min((REASONS.get(r.code, Outcome.UNSCORED) for r in v.reasons), key=SEVERITY.index)


def shape_problems(v: Verdict) -> Iterable[str]:
    """Every way ``v`` differs from what the gate writes, one line each (lazily, first first)."""
    for name, sha in (("parent", v.parent), ("head", v.head)):
        if not FULL_SHA.fullmatch(sha):
            yield f"{name!r} is not a full hex commit SHA"
    p = v.protocol
    for name, digest in (
        ("policy_sha256", p.policy_sha256),
        ("freeze_sha256", p.freeze_sha256),
        ("lock_sha256", p.lock_sha256),
        ("coverage_sha256", p.coverage_sha256),
    ):
        if digest is not None and not _DIGEST.fullmatch(digest):
            yield f"'protocol.{name}' is not a hex sha256"
    if not _VERSION.fullmatch(p.gate_version):
        yield "'protocol.gate_version' is not a version"
    if any(not glob or len(glob) > MAX_PATH_CHARS or _CONTROL.search(glob) for glob in p.extra_protected):
        yield "'protocol.options.extra_protected' holds a glob no option could have given"
    if not 0.0 <= v.overlap_ratio <= 1.0:
        yield "'overlap_ratio' is outside [0, 1]"
    yield from _reason_problems(v)
    yield from _lines_problems(v.overlap, "overlap")
    yield from _lines_problems(v.touched, "touched")
    yield from _guidance_problems(v)
    if v.reasons and v.verdict != derived_word(v):
        yield f"'verdict' is {v.verdict} but its reason codes make it {derived_word(v)}"


def _reason_problems(v: Verdict) -> Iterable[str]:
    if not v.reasons:
        yield "'reasons' is empty (every verdict carries at least one reason)"
    for i, r in enumerate(v.reasons):
        if r.path is not None and not is_repo_path(r.path):
            yield f"reason {i}: 'path' is not a repository-relative path"
        if r.line is not None and not 1 <= r.line <= MAX_LINE:
            yield f"reason {i}: 'line' is not a line number"
        if len(r.detail) > MAX_DETAIL_CHARS:  # any character: it quotes paths, and rendering escapes
            yield f"reason {i}: 'detail' is longer than {MAX_DETAIL_CHARS} characters"


def _lines_problems(by_path: Mapping[str, list[int]], what: str) -> Iterable[str]:
    for path, lines in by_path.items():
        if not is_repo_path(path):
            yield f"{what!r} names a path that is not repository-relative"
        if any(not 1 <= n <= MAX_LINE for n in lines):
            yield f"{what!r} holds a line number out of range"


#: A login (v3.7's shape) or an org/team slug, with the optional ``@`` of the policy's ``oracle``.
_APPROVER = re.compile(r"@?[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}(\[bot\]|/[A-Za-z0-9_.-]{1,100})?")


def _guidance_problems(v: Verdict) -> Iterable[str]:
    """Issue 18's additive keys: frozen observers only of overlap lines, approvers shaped as logins."""
    for path, by_line in v.overlap_observers.items():
        if not set(by_line) <= set(v.overlap.get(path, ())):
            yield "'overlap_observers' names a line that is not in 'overlap'"
        tests = [t for ts in by_line.values() for t in ts]
        if any(not t or len(t) > MAX_PATH_CHARS or _CONTROL.search(t) for t in tests):
            yield "'overlap_observers' holds a test id no map could have given"
    if any(not _APPROVER.fullmatch(a) for a in v.approvers):
        yield "'approvers' holds an entry that is neither a login nor an org/team slug"


def is_repo_path(path: str) -> bool:
    """A path git could list in the repository: relative, normalised, no NUL, no ``..``, not ``.git``."""
    if not path or len(path) > MAX_PATH_CHARS or "\x00" in path or path.startswith("/"):
        return False
    parts = path.split("/")
    return posixpath.normpath(path) == path and ".." not in parts and parts[0] != ".git"


def check_stored_shapes(v: Verdict, source: str) -> Verdict:
    """``v`` when it has the contract's shapes; :class:`StoredVerdictError` naming the first problem."""
    for problem in shape_problems(v):
        raise StoredVerdictError(source, problem)
    return v
