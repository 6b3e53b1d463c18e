"""The verdict as the contract's JSON (``verdict.json``), and the one reader of a stored one.

:func:`to_json` writes the contract's Output section. :func:`from_json` is the only validator of a
stored ``verdict.json`` (``oracle-gate publish`` posts one from a run the pull request could
influence): it reads every key with its JSON type and closed vocabulary, then holds the verdict to
the shapes the gate itself writes (hex SHAs and digests, a version word, repository-relative paths,
positive line numbers, a ratio in [0, 1], the verdict word its reason codes force). Anything else
rejects the whole file with one :class:`StoredVerdictError`: a forged field is never rendered,
however well it is escaped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from oracle_gate.errors import StoredVerdictError
from oracle_gate.judge.freeze import ISO_DATE, LOGIN
from oracle_gate.judge.triage import EXPIRED, NO_OWNER, TriageEntry
from oracle_gate.judge.verdict import (
    FULL_SHA,
    ORACLE_INPUTS,
    REASONS,
    SEVERITY,
    Outcome,
    Provenance,
    Reason,
    ReasonCode,
    Verdict,
)

_DIGEST = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+!_-]{0,63}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_PATH_CHARS = 4096
MAX_DETAIL_CHARS = 64 * 1024
MAX_LINE = 10**9


# -- writing -----------------------------------------------------------------------------------------


def to_json(v: Verdict) -> dict[str, Any]:
    """The verdict as the contract's Output section (plus ``path``/``line`` on file reasons)."""
    doc: dict[str, Any] = {
        "verdict": v.verdict,
        "reasons": [_reason_json(r) for r in v.reasons],
        "overlap": {p: sorted(lines) for p, lines in sorted(v.overlap.items()) if lines},
        "touched": {p: sorted(lines) for p, lines in sorted(v.touched.items()) if lines},
        "edited_only": {p: sorted(lines) for p, lines in sorted(v.edited_only.items()) if lines},
        "overlap_ratio": v.overlap_ratio,
        "parent": v.parent,
        "head": v.head,
        "protocol": {
            "policy_sha256": v.protocol.policy_sha256,
            "freeze_sha256": v.protocol.freeze_sha256,
            "lock_sha256": v.protocol.lock_sha256,
            "coverage_sha256": v.protocol.coverage_sha256,
            "gate_version": v.protocol.gate_version,
            "options": {
                "extra_protected": list(v.protocol.extra_protected),
                "allow_failing_parent": v.protocol.allow_failing_parent,
            },
        },
        **_additive_json(v),
    }
    if v.triage:  # v3.7: freeze entries past their expiry or without an owner
        doc["triage"] = [entry.to_json() for entry in v.triage]
    return doc


def _additive_json(v: Verdict) -> dict[str, Any]:
    """Keys beyond the contract's Output section, present only when they hold something (issue 18):
    ``overlap_observers`` (per overlap file, each frozen test observing its overlap lines, with those
    lines) and ``approvers`` (the policy's ``[approvals]`` entries)."""
    out: dict[str, Any] = {}
    observers = overlap_observers_json(v.overlap_observers)
    if observers:
        out["overlap_observers"] = observers
    if v.approvers:
        out["approvers"] = list(v.approvers)
    return out


def overlap_observers_json(
    by_line: Mapping[str, Mapping[int, Sequence[str]]],
) -> dict[str, dict[str, list[int]]]:
    """``{path: {line: [tests]}}`` turned around as ``{path: {test: [lines]}}``, sorted."""
    out: dict[str, dict[str, list[int]]] = {}
    for path, lines in sorted(by_line.items()):
        per_test: dict[str, list[int]] = {}
        for line, tests in sorted(lines.items()):
            for test in tests:
                per_test.setdefault(test, []).append(line)
        if per_test:
            out[path] = dict(sorted(per_test.items()))
    return out


def _reason_json(r: Reason) -> dict[str, Any]:
    out: dict[str, Any] = {"code": r.code, "detail": r.detail}
    if r.path is not None:
        out["path"] = r.path
    if r.line is not None:
        out["line"] = r.line
    if r.oracle_input is not None:
        out["oracle_input"] = r.oracle_input
    return out


# -- reading a stored verdict: types and vocabularies, then the gate's own shapes ---------------------


def from_json(doc: object, source: str = "verdict.json") -> Verdict:
    """Rebuild a stored verdict from its JSON, or raise :class:`StoredVerdictError` naming ``source``.

    Every way ``doc`` is not one the gate could have written rejects it: not an object, a key of the
    wrong type, an unknown verdict word or reason code, then the first of :func:`shape_problems`. A
    missing key other than ``verdict`` takes its empty value (and must then pass the shape checks).
    """
    try:
        verdict = _verdict_from(_object(doc, "the document"))
    except ValueError as exc:
        raise StoredVerdictError(source, str(exc)) from exc
    for problem in shape_problems(verdict):
        raise StoredVerdictError(source, problem)
    return verdict


def _verdict_from(doc: Mapping[str, Any]) -> Verdict:
    word = doc.get("verdict")
    if not isinstance(word, str) or word not in set(Outcome):
        raise ValueError(f"'verdict' must be one of {sorted(o.value for o in Outcome)}, got {word!r}")
    protocol = _object(_or_empty(doc, "protocol"), "'protocol'")
    options = _object(_or_empty(protocol, "options"), "'protocol.options'")
    return Verdict(
        verdict=Outcome(word),
        reasons=tuple(_reason_from(r) for r in _typed(doc, "reasons", list, [])),
        overlap=_lines_by_path(_or_empty(doc, "overlap"), "'overlap'"),
        touched=_lines_by_path(_or_empty(doc, "touched"), "'touched'"),
        edited_only=_lines_by_path(_or_empty(doc, "edited_only"), "'edited_only'"),
        overlap_ratio=float(_typed(doc, "overlap_ratio", (int, float), 0.0)),
        parent=_typed(doc, "parent", str, ""),
        head=_typed(doc, "head", str, ""),
        protocol=Provenance(
            _optional_str(protocol, "policy_sha256"),
            _optional_str(protocol, "freeze_sha256"),
            _optional_str(protocol, "lock_sha256"),
            _optional_str(protocol, "coverage_sha256"),
            _typed(protocol, "gate_version", str, ""),
            tuple(_strings(_typed(options, "extra_protected", list, []), "'extra_protected'")),
            _typed(options, "allow_failing_parent", bool, False),
        ),
        overlap_observers=_observers_from(_or_empty(doc, "overlap_observers")),
        approvers=tuple(_strings(_typed(doc, "approvers", list, []), "'approvers'")),
        triage=tuple(_triage_from(t) for t in _typed(doc, "triage", list, [])),
    )


def _observers_from(value: object) -> dict[str, dict[int, list[str]]]:
    """``overlap_observers`` read back into ``{path: {line: [tests]}}``."""
    out: dict[str, dict[int, list[str]]] = {}
    for path, per_test in _object(value, "'overlap_observers'").items():
        for test, lines in _lines_by_path(per_test, "'overlap_observers'").items():
            for line in lines:
                out.setdefault(str(path), {}).setdefault(line, []).append(test)
    return {path: {n: sorted(ts) for n, ts in sorted(by.items())} for path, by in out.items()}


def _triage_from(raw: object) -> TriageEntry:
    """v3.7: one stored triage entry, held to the shape the gate writes (it reaches the summary)."""
    entry = _object(raw, "a triage entry")
    nodeid, owner, expires, why = (entry.get(k) for k in ("nodeid", "owner", "expires", "why"))
    if not isinstance(nodeid, str) or not nodeid:
        raise ValueError("a triage entry's 'nodeid' must be a non-empty string")
    if owner is not None and not (isinstance(owner, str) and LOGIN.fullmatch(owner)):
        raise ValueError("a triage entry's 'owner' must be a login or null")
    if expires is not None and not (isinstance(expires, str) and ISO_DATE.fullmatch(expires)):
        raise ValueError("a triage entry's 'expires' must be a date YYYY-MM-DD or null")
    if not isinstance(why, list) or not why or not set(why) <= {EXPIRED, NO_OWNER}:
        raise ValueError(f"a triage entry's 'why' must list {EXPIRED!r} and/or {NO_OWNER!r}")
    try:
        when = date.fromisoformat(expires) if expires is not None else None
    except ValueError as exc:
        raise ValueError("a triage entry's 'expires' is not a real date") from exc
    return TriageEntry(nodeid, owner, when, tuple(str(w) for w in why))


def _reason_from(raw: object) -> Reason:
    reason = _object(raw, "a reason")
    code = reason.get("code")
    if not isinstance(code, str) or code not in set(ReasonCode):
        raise ValueError(f"unknown reason code {code!r}")
    line = reason.get("line")
    if line is not None and (isinstance(line, bool) or not isinstance(line, int)):
        raise ValueError(f"a reason's 'line' must be an integer, got {_kind(line)}")
    oracle_input = _optional_str(reason, "oracle_input")
    if oracle_input is not None and oracle_input not in ORACLE_INPUTS:
        raise ValueError(f"unknown oracle_input {oracle_input!r}")
    detail = _typed(reason, "detail", str, "")
    return Reason(ReasonCode(code), detail, _optional_str(reason, "path"), line, oracle_input)


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {_kind(value)}")
    return value


def _or_empty(doc: Mapping[str, Any], key: str) -> object:
    """``doc[key]``, with an absent key or null read as an empty object."""
    value = doc.get(key)
    return {} if value is None else value


def _typed(doc: Mapping[str, Any], key: str, kind: type[Any] | tuple[type[Any], ...], default: Any) -> Any:
    """``doc[key]`` when it is a ``kind`` (never a bool standing for a number), ``default`` when absent."""
    value = doc.get(key, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{key!r} has the wrong type ({_kind(value)})")
    return value


def _optional_str(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string or null, got {_kind(value)}")
    return value


def _strings(values: list[Any], what: str) -> list[str]:
    if not all(isinstance(v, str) for v in values):
        raise ValueError(f"{what} must be a list of strings")
    return values


def _lines_by_path(value: object, what: str) -> dict[str, list[int]]:
    by_path = _object(value, what)
    for lines in by_path.values():
        if not isinstance(lines, list) or any(isinstance(n, bool) or not isinstance(n, int) for n in lines):
            raise ValueError(f"{what} must map each path to a list of line numbers")
    return {str(path): list(lines) for path, lines in by_path.items()}


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


# -- the shapes the gate itself writes ---------------------------------------------------------------


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
