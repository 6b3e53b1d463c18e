"""Renderings of a verdict: the contract's JSON, a short text summary, markdown.

Markdown comes from the jinja2 templates packaged as ``oracle_gate.templates``.
Everything a pull request controls (paths, marker lines, details) goes through
:func:`md_escape` or :func:`md_code`, so a change cannot inject markup or
mention people through the gate's own comment.
"""

from __future__ import annotations

import json
import posixpath
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import lru_cache
from typing import Any
from typing import Protocol as TypingProtocol

import jinja2

from oracle_gate import escape, guidance
from oracle_gate.errors import StoredVerdictError
from oracle_gate.judge.freeze import ISO_DATE, LOGIN
from oracle_gate.judge.triage import EXPIRED, NO_OWNER, TriageEntry
from oracle_gate.judge.verdict import (
    ORACLE_INPUTS,
    REASONS,
    Outcome,
    Provenance,
    Reason,
    ReasonCode,
    Verdict,
    line_count,
    line_ranges,
    range_text,
    ranges_text,
)

#: Undocumented; GitHub answers 422 "Body is too long (maximum is 65536 characters)".
MAX_COMMENT_BODY = 65536
STICKY_MARKER = "<!-- oracle-gate:sticky -->"
ICONS = {Outcome.PASS_CLEAN: "✅", Outcome.FAIL: "❌", Outcome.UNSCORED: "⚠️"}
MEANINGS = {
    Outcome.PASS_CLEAN: "The oracle is intact and no touched line depends on frozen tests alone.",
    Outcome.FAIL: "The change edits the oracle or how it runs: it must not be scored.",
    Outcome.UNSCORED: "The change cannot be scored as it stands: a green test run would prove nothing here.",
}


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


def from_json(doc: object, source: str = "verdict.json") -> Verdict:
    """Rebuild a verdict from its JSON (for publishing a stored ``verdict.json``).

    Raises :class:`StoredVerdictError` naming ``source`` for every way ``doc`` is not one: not an
    object, a key of the wrong type, an unknown verdict word or reason code. A missing key other
    than ``verdict`` takes its empty value.
    """
    try:
        return _verdict_from(_object(doc, "the document"))
    except ValueError as exc:
        raise StoredVerdictError(source, str(exc)) from exc


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


def format_verdict(v: Verdict, fmt: str) -> str:
    """The verdict in one of the CLI's formats: ``json`` (the contract), ``markdown``, ``text``."""
    if fmt == "json":
        return json.dumps(to_json(v), indent=2) + "\n"
    if fmt == "markdown":
        return to_markdown(v)
    return to_text(v)


def to_text(v: Verdict) -> str:
    """A few lines for a terminal or a log."""
    codes = ", ".join(v.codes)
    lines = [
        f"oracle-gate: {v.verdict} ({codes})",
        f"  parent {v.parent[:12]}  head {v.head[:12]}",
        f"  {MEANINGS[v.verdict]}",
    ]
    lines += [f"  - {r.code}: {r.detail}" for r in v.reasons]
    if v.overlap:
        lines.append(
            f"  overlap: {v.overlap_count} of {v.touched_count} touched line(s), ratio {v.overlap_ratio}"
        )
        lines += [
            f"    {path}: {ranges_text(numbers)}" for path, numbers in sorted(v.overlap.items()) if numbers
        ]
    if v.edited_only:
        lines.append(f"  observed only by tests this change edits: {line_count(v.edited_only)} line(s)")
        lines += [f"    {path}: {ranges_text(numbers)}" for path, numbers in sorted(v.edited_only.items())]
    if v.triage:  # v3.7: listed only, never a reason
        lines.append(f"  freeze entries needing triage: {len(v.triage)}")
        lines += [f"    {t.nodeid}: {', '.join(t.why)}" for t in v.triage]
    return "\n".join(lines) + "\n"


def overlap_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    return {path: line_ranges(lines) for path, lines in sorted(v.overlap.items()) if lines}


def md_escape(text: object) -> str:
    """Escape markdown and HTML so text from a pull request renders as itself (:func:`escape.md_text`)."""
    return escape.md_text(text)


def md_code(text: object) -> str:
    """An inline code span that no backtick, ``|`` or line break in ``text`` can close early."""
    return escape.md_code(text)


def code_block(text: object) -> str:
    """A fenced code block whose fence is longer than any run of backticks in ``text``."""
    return escape.md_code_block(text)


def replay_command(v: Verdict) -> str:
    """The ``oracle-gate check`` command that replays ``v``: its commits and every option that
    ``protocol.options`` records (``--protect``, ``--allow-failing-parent``), each shell-quoted.

    ``--protect=GLOB`` is one word so that a glob starting with ``-`` is not read as an option.
    ``MAP`` is a placeholder: the map's path is the reader's, its digest is in the protocol.
    """
    words = ["oracle-gate", "check", "--repo", ".", "--base", v.parent, "--head", v.head]
    words += ["--coverage", "MAP", "--coverage-sha", v.parent]
    words += [f"--protect={glob}" for glob in v.protocol.extra_protected]
    if v.protocol.allow_failing_parent:
        words.append("--allow-failing-parent")
    return " ".join(shlex.quote(word) for word in words)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    # Markdown, not HTML: autoescaping would mangle it; untrusted text goes through md/code.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("oracle_gate.templates", "."),
        autoescape=False,  # noqa: S701
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        md=md_escape,
        code=md_code,
        code_block=code_block,
        range_text=lambda r: range_text(*r),
        short=lambda sha: str(sha)[:12],
    )
    return env


def frozen_observers(v: Verdict) -> dict[str, list[str]]:
    """Per overlapping file, the frozen tests that observe its overlap lines."""
    return {
        path: sorted({t for tests in lines.values() for t in tests})
        for path, lines in sorted(v.overlap_observers.items())
    }


def inherited_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    """v2: overlap lines no test runs, whose observers are those of the function around them."""
    return {path: line_ranges(lines) for path, lines in sorted(v.inherited.items()) if lines}


def edited_ranges(v: Verdict) -> dict[str, list[tuple[int, int]]]:
    return {path: line_ranges(lines) for path, lines in sorted(v.edited_only.items()) if lines}


def edited_by_file(v: Verdict) -> dict[str, list[str]]:
    """Per edited_only file, the edited tests that were the only observers of its lines."""
    return {
        path: sorted({t for tests in lines.values() for t in tests})
        for path, lines in sorted(v.edited_observers.items())
    }


def edited_only_tests(v: Verdict) -> dict[str, str]:
    """The edited tests that are the only observers of some touched line, each with how it was edited."""
    only = {t for tests in edited_by_file(v).values() for t in tests}
    return {t: how for t, how in sorted(v.edited_tests.items()) if t in only}


def template_context(v: Verdict) -> dict[str, Any]:
    return {
        "inherited_ranges": inherited_ranges(v),
        "edited_ranges": edited_ranges(v),
        "edited_by_file": edited_by_file(v),
        "edited_only_tests": edited_only_tests(v),
        "edited_count": line_count(v.edited_only),
        "frozen_observers": frozen_observers(v),
        "v": v,
        "icon": ICONS[v.verdict],
        "meaning": MEANINGS[v.verdict],
        "codes": v.codes,
        "marker": STICKY_MARKER,
        "overlap_ranges": overlap_ranges(v),
        "overlap_count": v.overlap_count,
        "touched_count": v.touched_count,
        "replay_command": replay_command(v),
        "guide": guidance.guidance(v),
        "triage": v.triage,
    }


def render(template: str, v: Verdict, **extra: Any) -> str:
    return environment().get_template(template).render(**template_context(v), **extra)


def to_markdown(v: Verdict) -> str:
    """The report the sticky PR comment carries (with its hidden marker)."""
    text = render("comment.md.j2", v)
    if STICKY_MARKER not in text:
        raise RuntimeError("comment.md.j2 lost the sticky marker: the comment could not be found again")
    return text


# -- check runs: title, summary, annotations, and fitting GitHub's size limits ---------------------

OVERLAP_TITLE = "Observed only by frozen tests"
INCOMPLETE_TITLE = "Oracle input unusable (oracle_incomplete)"
FAIL_TITLES = {
    ReasonCode.ORACLE_EDIT_FORBIDDEN: "Protected oracle path changed",
    ReasonCode.FIXTURE_LOCK_BROKEN: "Locked fixture changed",
    ReasonCode.RUNNER_CONFIG_CHANGED: "Test-runner configuration changed",
    ReasonCode.SKIP_MARKER_ADDED: "Skip or xfail marker added",
    ReasonCode.SEED_REWRITTEN: "Append-only seed corpus rewritten",
}
ERROR_TITLE = "Oracle Gate could not run"
_OBSERVERS_NAMED = 20


class AnnotationLevel(StrEnum):
    """A check-run annotation's ``annotation_level`` (the Checks API's words)."""

    NOTICE = "notice"
    WARNING = "warning"
    FAILURE = "failure"


@dataclass(frozen=True)
class Annotation:
    """One check-run annotation; ``to_api`` is the Checks API's shape."""

    path: str
    start_line: int
    end_line: int
    level: AnnotationLevel
    title: str
    message: str

    def to_api(self) -> dict[str, str | int]:
        return {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level,
            "title": self.title,
            "message": self.message,
        }


def check_annotations(v: Verdict) -> list[Annotation]:
    """Failures on the files that caused them, a warning on each malformed oracle file, then one
    warning per run of overlap lines.

    Overlap lines are parent coordinates (on the parent's path), and each
    message says so: GitHub draws annotations on the head, where the same
    numbers may now point at other lines.
    """
    return [
        *_failure_annotations(v),
        *_incomplete_annotations(v),
        *_overlap_annotations(v),
        *_edited_annotations(v),
    ]


def _failure_annotations(v: Verdict) -> list[Annotation]:
    return [
        Annotation(
            path=r.path,
            start_line=r.line or 1,
            end_line=r.line or 1,
            level=AnnotationLevel.FAILURE,
            title=escape.annotation_title(f"{FAIL_TITLES.get(r.code, r.code)} ({r.code})"),
            message=escape.annotation_message(r.detail),
        )
        for r in v.reasons
        if r.path and REASONS.get(r.code) == Outcome.FAIL
    ]


def _incomplete_annotations(v: Verdict) -> list[Annotation]:
    """A warning on the oracle file each ``oracle_incomplete`` reason names.

    Only a repository path is annotated: a coverage map given by an absolute path on the runner (or
    outside the checkout) is no file of the repository for GitHub to draw on.
    """
    return [
        Annotation(
            path=r.path,
            start_line=1,
            end_line=1,
            level=AnnotationLevel.WARNING,
            title=INCOMPLETE_TITLE,
            message=escape.annotation_message(r.detail),
        )
        for r in v.reasons
        if r.code == ReasonCode.ORACLE_INCOMPLETE and r.path and _is_repo_path(r.path)
    ]


def _is_repo_path(path: str) -> bool:
    norm = posixpath.normpath(path)
    return norm == path and not path.startswith("/") and norm != ".." and not norm.startswith("../")


def _overlap_annotations(v: Verdict) -> list[Annotation]:
    out = []
    for path, ranges in overlap_ranges(v).items():
        by_line = v.overlap_observers.get(path, {})
        for a, b in ranges:
            tests = sorted({t for n in range(a, b + 1) for t in by_line.get(n, [])})
            out.append(
                Annotation(
                    path, a, b, AnnotationLevel.WARNING, OVERLAP_TITLE, _overlap_message(v, a, b, tests, path)
                )
            )
    return out


def _overlap_message(v: Verdict, a: int, b: int, tests: list[str], path: str = "") -> str:
    lines, are = ("line", "is") if a == b else ("lines", "are")
    text = (
        f"Parent {lines} {range_text(a, b)} (numbered in the parent commit {v.parent[:12]}, "
        f"not in the head) {are} touched by this change and observed only by frozen tests: "
        "no live test checks them, so a green run proves nothing here."
    )
    inherited = set(v.inherited.get(path, ()))
    if inherited and inherited & set(range(a, b + 1)):
        text += " No test runs this line; the function around it is observed only by frozen tests."
    if tests:
        named = ", ".join(tests[:_OBSERVERS_NAMED])
        more = f" and {len(tests) - _OBSERVERS_NAMED} more" if len(tests) > _OBSERVERS_NAMED else ""
        text += f" Frozen tests observing them: {named}{more}."
    return escape.annotation_message(text)


EDITED_TITLE = "Observed only by tests this change edits (observer_edited)"
EDITED_TEST_TITLE = "Test edited by this change (observer_edited)"


def _edited_annotations(v: Verdict) -> list[Annotation]:
    """v2: a warning on each run of edited_only lines naming the edited tests, and one on each of
    those tests (at its parent ``def`` line, or line 1 when the gate could not place it)."""
    out = []
    for path, ranges in edited_ranges(v).items():
        by_line = v.edited_observers.get(path, {})
        for a, b in ranges:
            tests = sorted({t for n in range(a, b + 1) for t in by_line.get(n, [])})
            lines, are = ("line", "is") if a == b else ("lines", "are")
            text = (
                f"Parent {lines} {range_text(a, b)} (numbered in the parent commit {v.parent[:12]}) "
                f"{are} touched by this change, and the only tests that observe these lines are tests this "
                f"change edits: a green run proves nothing about them. Edited tests: {', '.join(tests)}."
            )
            out.append(
                Annotation(
                    path,
                    a,
                    b,
                    AnnotationLevel.WARNING,
                    EDITED_TITLE,
                    escape.annotation_message(text),
                )
            )
    for test, how in edited_only_tests(v).items():
        line = v.edited_test_lines.get(test, 1)
        text = (
            f"{test}: {how}. It was the only observer of lines this change touches, so it does not count "
            "as a live observer of them: a green run of it proves nothing about them."
        )
        out.append(
            Annotation(
                test.split("::", 1)[0],
                line,
                line,
                AnnotationLevel.WARNING,
                EDITED_TEST_TITLE,
                escape.annotation_message(text),
            )
        )
    return out


def check_title(v: Verdict) -> str:
    """One line for the check run's title (plain text)."""
    return escape.check_title(render("check_title.txt.j2", v).strip())


def check_summary(v: Verdict) -> str:
    """The check run's markdown summary, before any truncation (see :func:`truncate_markdown`)."""
    return render("check_summary.md.j2", v)


def error_summary(why: str) -> str:
    """The summary of a check posted when the gate itself failed and there is no verdict."""
    return environment().get_template("check_error.md.j2").render(why=why)


# -- the Action's job summary ----------------------------------------------------------------------


class Unposted(TypingProtocol):
    """Something the Action did not post, and why (``oracle_gate.github.publisher.NotPosted`` has
    this shape)."""

    @property
    def what(self) -> str: ...

    @property
    def why(self) -> str: ...


def action_summary(
    v: Verdict, posted: Sequence[str], not_posted: Sequence[Unposted] = (), permission_hint: str = ""
) -> str:
    """The job summary of a judged pull request: the comment's report, then what was posted where.

    ``posted`` are markdown lines the Action wrote (they may hold code spans); ``not_posted`` is
    escaped here, since a refusal's message quotes GitHub's answer.
    """
    return render(
        "action_summary.md.j2",
        v,
        report_md=to_markdown(v),
        posted=posted,
        not_posted=not_posted,
        permission_hint=permission_hint,
    )


def action_error_summary(
    why: str, *, check_line: str | None = None, failure: Unposted | None = None, head_known: bool = True
) -> str:
    """The job summary when the gate could not run: why, and whether a failure check was posted
    (``check_line``), could not be (``failure``) or had no commit to go on (not ``head_known``)."""
    return (
        environment()
        .get_template("action_error.md.j2")
        .render(why=why, check=check_line, failure=failure, head_known=head_known)
    )


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis when longer."""
    return escape.plain_line(text, limit)


_NOTE_ROOM = 700  # characters kept free for the closing tags and the note


def truncate_markdown(text: str, limit: int, hint: str = "") -> tuple[str, bool]:
    """Fit markdown in ``limit`` characters, cutting whole lines from the end and saying so.

    The head of the text is kept (a sticky comment's marker is its first
    line), an open code fence or ``<details>`` is closed, and a note names how
    many lines and characters were cut, then ``hint`` (where to find the rest).
    Returns the text and whether it was cut.
    """
    return _truncate(text, limit, hint, size=len, prefix=lambda t, n: t[:n], unit="character")


def truncate_markdown_bytes(text: str, limit: int, hint: str = "") -> tuple[str, bool]:
    """As :func:`truncate_markdown`, but ``limit`` counts UTF-8 bytes: GitHub's check-run
    ``output.summary`` and ``output.text`` limits are bytes (a fail verdict with CJK paths was
    78,664 bytes in 65,535 characters)."""
    return _truncate(text, limit, hint, size=_utf8_size, prefix=_utf8_prefix, unit="byte")


def _utf8_size(text: str) -> int:
    return len(text.encode())


def _utf8_prefix(text: str, size: int) -> str:
    """The longest head of ``text`` whose UTF-8 encoding fits in ``size`` bytes."""
    return text.encode()[:size].decode("utf-8", "ignore")


def _truncate(
    text: str,
    limit: int,
    hint: str,
    *,
    size: Callable[[str], int],
    prefix: Callable[[str, int], str],
    unit: str,
) -> tuple[str, bool]:
    """:func:`truncate_markdown` with ``size`` measuring text in ``unit`` and ``prefix`` cutting it."""
    if size(text) <= limit:
        return text, False
    if size(hint) > _NOTE_ROOM // 2 or limit <= _NOTE_ROOM:
        raise ValueError("the truncation note would not fit")
    head = prefix(text, limit - _NOTE_ROOM)
    cut = head.rfind("\n")
    kept = head[:cut] if cut > 0 else head
    dropped = text[len(kept) :]
    cut_lines = dropped.strip("\n").count("\n") + 1
    note = (
        f"\n\n> ✂️ **Truncated:** the last {cut_lines} line(s) "
        f"({size(dropped)} {unit}s) of this report were cut to fit GitHub's {limit}-{unit} limit."
    )
    result = kept + _closers(kept) + note + (f" {hint}" if hint else "") + "\n"
    if size(result) > limit:
        raise RuntimeError("the truncation note outgrew its room")
    return result, True


def _closers(kept: str) -> str:
    """Markup that closes what ``kept`` left open: a code fence, ``<details>`` blocks."""
    lines = kept.split("\n")
    closers = "\n```" if sum(1 for line in lines if line.startswith("```")) % 2 else ""
    open_details = kept.count("<details>") - kept.count("</details>")
    return closers + "\n\n</details>" * max(0, open_details)


# -- /oracle-gate explain: the full overlap listing ----------------------------------------------


@dataclass(frozen=True)
class OverlapRange:
    start: int
    end: int
    tests: tuple[str, ...]

    @property
    def text(self) -> str:
        return range_text(self.start, self.end)


def overlap_listing(v: Verdict) -> dict[str, list[OverlapRange]]:
    """Every overlap range per file (parent coordinates) with every frozen test observing it."""
    listing: dict[str, list[OverlapRange]] = {}
    for path, ranges in overlap_ranges(v).items():
        by_line = v.overlap_observers.get(path, {})
        listing[path] = [
            OverlapRange(a, b, tuple(sorted({t for n in range(a, b + 1) for t in by_line.get(n, ())})))
            for a, b in ranges
        ]
    return listing


def explain_markdown(v: Verdict, limit: int = MAX_COMMENT_BODY) -> tuple[str, bool]:
    """The ``/oracle-gate explain`` reply: every reason and the full overlap listing, cut below
    ``limit`` characters with a note saying where the rest is."""
    text = render("explain.md.j2", v, listing=overlap_listing(v))
    return truncate_markdown(
        text, limit, "The workflow run's job summary and verdict.json have the whole listing."
    )


def explain_error_reply(why: object) -> str:
    """The ``/oracle-gate explain`` reply when the verdict could not be computed."""
    return f"**Oracle Gate could not compute the verdict:** {md_escape(why)}"


def explain_job_summary(v: Verdict, pr_number: int, *, replied: bool, truncated: bool) -> str:
    """The job summary of an explain run: whether the reply was posted (and cut), then the whole
    listing, which the job summary always has room for."""
    full, _ = explain_markdown(v, limit=sys.maxsize)
    note = "Replied" if replied else "**Could not reply**"
    cut = " (cut to GitHub's comment size; the whole listing is below)" if truncated else ""
    return f"{note} on #{pr_number}{cut}.\n\n{full}"
