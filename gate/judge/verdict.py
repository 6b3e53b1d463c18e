"""The verdict: a pure function of values (``evaluate``).

Each reason code is decided in exactly one function below, named for it, so
"why was this unscored?" has one place to look. Every reason that applies is
reported; the verdict is the most severe one present
(``fail`` > ``unscored`` > ``pass_clean``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum

from oracle_gate.exit_status import ExitStatus
from oracle_gate.judge.approvals import (
    BY_THE_AUTHOR,
    Approval,
    ApprovalRules,
    ApprovalsSeen,
    Approver,
    QueuedApprovals,
    counting_approvers,
    queue_approvers,
    queue_makers,
)
from oracle_gate.judge.changes import ChangeSet, FileChange, FileStatus, Kind
from oracle_gate.judge.freeze import Freeze
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.lock import FixtureLock, lock_breaks
from oracle_gate.judge.measurement import GATE_IMPORT_PACKAGE
from oracle_gate.judge.modules import ModuleIndex
from oracle_gate.judge.observer_rules import (
    ParsedFiles,
    TouchedObservers,
    edited_tests,
    observers_of_touched,
    parse_parent_files,
)
from oracle_gate.judge.observers import ParentCoverage, without_unstable
from oracle_gate.judge.paths import normalize_path
from oracle_gate.judge.policy import Policy
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.rebinding import dynamic_rebinding_sites
from oracle_gate.judge.runner_config import runner_config_changes
from oracle_gate.judge.seeds import seed_rewrites
from oracle_gate.judge.skip_markers import added_skip_markers, addopts_words
from oracle_gate.judge.symlinks import LinkResolution, resolve_link
from oracle_gate.judge.triage import TriageEntry, needs_triage


class Outcome(StrEnum):
    """The verdict's word: three states, and nothing else."""

    PASS_CLEAN = "pass_clean"  # noqa: S105 -- a verdict word, not a password
    FAIL = "fail"
    UNSCORED = "unscored"


class ReasonCode(StrEnum):
    """Every reason code the contract names."""

    ORACLE_EDIT_FORBIDDEN = "oracle_edit_forbidden"
    FIXTURE_LOCK_BROKEN = "fixture_lock_broken"
    RUNNER_CONFIG_CHANGED = "runner_config_changed"
    SKIP_MARKER_ADDED = "skip_marker_added"
    ORACLE_INCOMPLETE = "oracle_incomplete"
    NO_ADDED_LINES = "no_added_lines"
    FREEZE_OVERLAP = "freeze_overlap"
    OBSERVER_EDITED = "observer_edited"  # contract v2
    LIVE_SURFACE_COVERS_DIFF = "live_surface_covers_diff"
    SEED_REWRITTEN = "seed_rewritten"  # contract v3.6
    DYNAMIC_REBINDING = "dynamic_rebinding"  # contract v3.2
    ORACLE_CHANGE_APPROVED = "oracle_change_approved"  # contract v3.5 (informational)


#: Which oracle input an ``oracle_incomplete`` reason is about (``Reason.oracle_input``).
ORACLE_INPUT_POLICY = "policy"
ORACLE_INPUT_FREEZE = "freeze"
ORACLE_INPUT_LOCK = "lock"
ORACLE_INPUT_MAP = "map"
ORACLE_INPUTS = (ORACLE_INPUT_POLICY, ORACLE_INPUT_FREEZE, ORACLE_INPUT_LOCK, ORACLE_INPUT_MAP)

EXIT_STATUS = {
    Outcome.PASS_CLEAN: ExitStatus.OK,
    Outcome.FAIL: ExitStatus.FAILED,
    Outcome.UNSCORED: ExitStatus.UNSCORED,
}
SEVERITY = (Outcome.FAIL, Outcome.UNSCORED, Outcome.PASS_CLEAN)  # most severe first
#: A whole commit id (SHA-1 or SHA-256), lower case: the shape of a verdict's ``parent`` and ``head``.
FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

# code -> the verdict it forces; dict order is the order reasons are reported in.
REASONS = {
    ReasonCode.ORACLE_EDIT_FORBIDDEN: Outcome.FAIL,
    ReasonCode.FIXTURE_LOCK_BROKEN: Outcome.FAIL,
    ReasonCode.RUNNER_CONFIG_CHANGED: Outcome.FAIL,
    ReasonCode.SKIP_MARKER_ADDED: Outcome.FAIL,
    ReasonCode.SEED_REWRITTEN: Outcome.FAIL,
    ReasonCode.ORACLE_INCOMPLETE: Outcome.UNSCORED,
    ReasonCode.NO_ADDED_LINES: Outcome.UNSCORED,
    ReasonCode.FREEZE_OVERLAP: Outcome.UNSCORED,
    ReasonCode.OBSERVER_EDITED: Outcome.UNSCORED,
    ReasonCode.DYNAMIC_REBINDING: Outcome.UNSCORED,
    ReasonCode.ORACLE_CHANGE_APPROVED: Outcome.PASS_CLEAN,
    ReasonCode.LIVE_SURFACE_COVERS_DIFF: Outcome.PASS_CLEAN,
}
#: v3.5: the reasons enough approvers replace (every other reason still applies).
APPROVABLE = frozenset(
    {
        ReasonCode.ORACLE_EDIT_FORBIDDEN,
        ReasonCode.FIXTURE_LOCK_BROKEN,
        ReasonCode.RUNNER_CONFIG_CHANGED,
        ReasonCode.SKIP_MARKER_ADDED,
        ReasonCode.DYNAMIC_REBINDING,
    }
)
#: Reasons that only inform: a verdict with nothing else is pass_clean.
INFORMATIONAL = frozenset({ReasonCode.ORACLE_CHANGE_APPROVED, ReasonCode.LIVE_SURFACE_COVERS_DIFF})


@dataclass(frozen=True)
class Reason:
    code: ReasonCode
    detail: str
    path: str | None = None
    line: int | None = None
    #: ``oracle_incomplete`` only: which oracle input the problem is in ("policy", "freeze", "lock",
    #: "map"), so a report can say how to fix it (issue 18; an additive key of the JSON).
    oracle_input: str | None = None


@dataclass(frozen=True)
class Provenance:
    """What a verdict was made with: digests of the exact oracle bytes used, the gate's version and
    its options, so the verdict can be replayed anywhere (the JSON's ``protocol`` object)."""

    policy_sha256: str | None = None
    freeze_sha256: str | None = None
    lock_sha256: str | None = None
    coverage_sha256: str | None = None
    gate_version: str = ""
    extra_protected: tuple[str, ...] = ()
    allow_failing_parent: bool = False


@dataclass(frozen=True)
class Verdict:
    verdict: Outcome
    reasons: tuple[Reason, ...]
    overlap: dict[str, list[int]]
    touched: dict[str, list[int]]
    overlap_ratio: float
    parent: str
    head: str
    protocol: Provenance
    # Not part of the JSON contract: the frozen tests behind each overlap line.
    overlap_observers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    # v2: touched lines of non-test files observed only by tests this change edits (in the JSON).
    edited_only: dict[str, list[int]] = field(default_factory=dict)
    # Not in the JSON: the edited tests behind each edited_only line, and how each test was edited.
    edited_observers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    edited_tests: dict[str, str] = field(default_factory=dict)
    edited_test_lines: dict[str, int] = field(default_factory=dict)  # test id -> its parent def line
    # Not in the JSON: overlap lines no test runs, whose observers are those of the function around them.
    inherited: dict[str, list[int]] = field(default_factory=dict)
    #: v3.5: the policy's ``[approvals]`` ``oracle`` entries (logins, org/team slugs), empty when the
    #: policy names none, so a report can say who may approve an oracle change (additive in the JSON).
    approvers: tuple[str, ...] = ()
    # v3.7 (in the JSON as "triage"): freeze entries past their expiry or without an owner.
    triage: tuple[TriageEntry, ...] = ()
    # Not in the JSON: v3.5 approvals a front door read but did not count (stale ones), or could not read.
    approvals_seen: ApprovalsSeen | None = None

    @property
    def codes(self) -> list[ReasonCode]:
        return list(dict.fromkeys(r.code for r in self.reasons))

    @property
    def exit_status(self) -> ExitStatus:
        return EXIT_STATUS[self.verdict]

    @property
    def overlap_count(self) -> int:
        """How many touched lines are observed only by frozen tests."""
        return line_count(self.overlap)

    @property
    def touched_count(self) -> int:
        return line_count(self.touched)


@dataclass(frozen=True)
class Evidence:
    """Everything the verdict depends on, already read."""

    changes: ChangeSet
    policy: Policy
    freeze: Freeze
    lock: FixtureLock
    locked_blobs: Mapping[str, bytes | None]
    coverage: ParentCoverage
    protocol: Provenance
    #: v2: the parsed parent side of the changed ``.py`` files (None: parse them from the change set).
    parents: ParsedFiles | None = None
    # v2: the parent's pytest ``addopts`` (read side: oracle_gate.check.read_addopts); its words name marks.
    addopts: str = ""
    # v2: where each added or re-pointed symlink leads through head's links (oracle_gate.check.read_links);
    # a link missing here is resolved textually.
    links: Mapping[str, LinkResolution] = field(default_factory=dict)
    # v3.2/v3.3: the parent tree's .py files (oracle_gate.check.read_module_index), to resolve module names.
    modules: ModuleIndex = field(default_factory=ModuleIndex)
    # v3.5: the approving reviews (None: none were looked up), the pull request's author and the
    # head SHA an approval must name (None: the change's head).
    approvals: tuple[Approval, ...] | None = None
    author: str | None = None
    approved_head: str | None = None
    # v3.9.1: when the pull request's base branch last changed (None: never, or not known to change);
    # v3.9.3: the author's permission on the repository now (None: not asked).
    base_changed_at: datetime | None = None
    author_permission: str | None = None
    # v3.9.2: a merge group of several pull requests, each with its own approvals (None: not one).
    queued: tuple[QueuedApprovals, ...] | None = None
    # v3.7: the UTC date of the run, for freeze expiry (None: expiry is not checked).
    today: date | None = None


@dataclass(frozen=True)
class Surfaces:
    """The v2 surfaces over the touched lines: ``overlap`` and ``edited_only``, with their observers."""

    overlap: dict[str, list[int]] = field(default_factory=dict)
    overlap_observers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    edited_only: dict[str, list[int]] = field(default_factory=dict)
    edited_observers: dict[str, dict[int, list[str]]] = field(default_factory=dict)
    edited_tests: dict[str, str] = field(default_factory=dict)
    edited_test_lines: dict[str, int] = field(default_factory=dict)
    inherited: dict[str, list[int]] = field(default_factory=dict)


def evaluate(ev: Evidence) -> Verdict:
    protected = ev.policy.protected_globs(ev.lock.named_paths)
    surfaces = compute_surfaces(ev)
    overlap = surfaces.overlap
    reasons = [
        *oracle_edit_forbidden(ev.changes, protected, ev.links),
        *fixture_lock_broken(ev.lock, ev.locked_blobs),
        *runner_config_changed(ev.changes, ev.policy, ev.modules),
        *skip_marker_added(ev.changes, ev.policy, ev.addopts),
        *oracle_incomplete(ev.policy, ev.freeze, ev.lock, ev.coverage),
        *no_added_lines(ev.changes, ev.policy),
        *freeze_overlap(overlap, ev.coverage),
        *observer_edited(surfaces, ev.coverage),
        *dynamic_rebinding(ev.changes, ev.policy, ev.modules),
        *seed_rewritten(ev.changes, ev.policy),
    ]
    reasons = oracle_change_approved(reasons, ev)
    if all(r.code in INFORMATIONAL for r in reasons):
        reasons.append(live_surface_covers_diff(ev.changes))
    reasons.sort(key=lambda r: list(REASONS).index(r.code))
    verdict = min((REASONS[r.code] for r in reasons), key=SEVERITY.index)
    touched = ev.changes.touched()
    return Verdict(
        verdict=verdict,
        reasons=tuple(reasons),
        overlap=overlap,
        touched=touched,
        overlap_ratio=overlap_ratio(overlap, touched, ev.policy.ignored()),
        parent=ev.changes.parent,
        head=ev.changes.head,
        protocol=ev.protocol,
        overlap_observers=surfaces.overlap_observers,
        edited_only=surfaces.edited_only,
        edited_observers=surfaces.edited_observers,
        edited_tests=surfaces.edited_tests,
        edited_test_lines=surfaces.edited_test_lines,
        inherited=surfaces.inherited,
        triage=needs_triage(ev.freeze, ev.today),
        approvers=ev.policy.approvals.oracle if ev.policy.approvals is not None else (),
    )


def oracle_edit_forbidden(
    changes: ChangeSet, protected: GlobSet, links: Mapping[str, LinkResolution] | None = None
) -> list[Reason]:
    """Any file-level change to a protected path, or a symlink made to point into one.

    v2: a new or re-pointed link is followed through head's links (``links``, from the read side);
    one that is absolute, leaves the repository or loops cannot be judged and counts too.
    """
    reasons = []
    for change in changes.files:
        for path in change.paths:
            glob = protected.match(path)
            if glob:
                reasons.append(
                    Reason(
                        ReasonCode.ORACLE_EDIT_FORBIDDEN,
                        f"{path}: {_what_happened(change, path)} (protected by '{glob}')",
                        path=path,
                    )
                )
        link = link_resolution(change, links or {})
        if link is not None and not any(r.path == change.new_path for r in reasons):
            reasons += _link_reasons(link, protected)
    return reasons


def link_resolution(change: FileChange, links: Mapping[str, LinkResolution]) -> LinkResolution | None:
    """Where a new or re-pointed symlink leads (None for anything else)."""
    raw = changed_link_target(change)
    if raw is None or change.new_path is None:
        return None
    return links.get(change.new_path) or resolve_link(change.new_path, raw)


def _link_reasons(link: LinkResolution, protected: GlobSet) -> list[Reason]:
    if link.path is None:
        detail = f"{link.link}: symlink whose target {link.escape} (it cannot be judged as a repository path)"
        return [Reason(ReasonCode.ORACLE_EDIT_FORBIDDEN, detail, path=link.link)]
    if not link.path:  # the repository root itself: not a path *in* a protected one (README choices)
        return []
    glob = protected.match(link.path) or protected.may_match_below(link.path)
    if not glob:
        return []
    detail = f"{link.link}: symlink into protected '{link.path}' (protected by '{glob}')"
    return [Reason(ReasonCode.ORACLE_EDIT_FORBIDDEN, detail, path=link.link)]


def changed_link_target(change: FileChange) -> str | None:
    """The target text of a symlink the change adds, re-points, renames or makes (None otherwise)."""
    if change.new_kind != Kind.SYMLINK or change.new_blob is None or change.new_path is None:
        return None
    if (
        change.old_kind == Kind.SYMLINK
        and change.old_blob == change.new_blob
        and change.status != FileStatus.RENAMED
    ):
        return None
    return change.new_blob.decode("utf-8", "surrogateescape")


def _what_happened(change: FileChange, path: str) -> str:
    if change.status == FileStatus.RENAMED:
        if path == change.old_path:
            return f"renamed to {change.new_path}"
        return f"renamed from {change.old_path}"
    if change.mode_only:
        return f"mode changed {change.old_mode} -> {change.new_mode}"
    names = {
        FileStatus.ADDED: "added",
        FileStatus.DELETED: "deleted",
        FileStatus.TYPE_CHANGED: "type changed",
    }
    return names.get(change.status, "edited")


def fixture_lock_broken(lock: FixtureLock, locked_blobs: Mapping[str, bytes | None]) -> list[Reason]:
    return [
        Reason(ReasonCode.FIXTURE_LOCK_BROKEN, f"{path}: {problem}", path=path)
        for path, problem in lock_breaks(lock, locked_blobs)
    ]


def runner_config_changed(
    changes: ChangeSet, policy: Policy, modules: ModuleIndex | None = None
) -> list[Reason]:
    if not policy.protect_runner_config:
        return []
    own = [GATE_IMPORT_PACKAGE] if modules is not None and modules.has_top_level(GATE_IMPORT_PACKAGE) else []
    return [
        Reason(ReasonCode.RUNNER_CONFIG_CHANGED, f"{path}: {what}", path=path)
        for change in changes.files
        for path, what in runner_config_changes(change, own)
    ]


def dynamic_rebinding(changes: ChangeSet, policy: Policy, modules: ModuleIndex) -> list[Reason]:
    """v3.2: added lines of non-test files that rebind code the gate cannot name (v3.8: not in files
    the policy's ``ignore`` matches)."""
    return [
        Reason(
            ReasonCode.DYNAMIC_REBINDING,
            f"{path}:{line}: {what}: the gate cannot see what this replaces",
            path=path,
            line=line,
        )
        for path, line, what in dynamic_rebinding_sites(
            changes, policy.test_files(), modules, policy.ignored()
        )
    ]


def skip_marker_added(changes: ChangeSet, policy: Policy, addopts: str = "") -> list[Reason]:
    if not policy.forbid_skip_markers:
        return []
    tests = policy.test_files()
    deselected = addopts_words(addopts)
    return [
        Reason(
            ReasonCode.SKIP_MARKER_ADDED,
            f"{m.path}:{m.line}: adds '{m.marker}': {m.text[:120]}",
            path=m.path,
            line=m.line,
        )
        for change in changes.files
        for m in added_skip_markers(change, tests, deselected)
    ]


def seed_rewritten(changes: ChangeSet, policy: Policy) -> list[Reason]:
    """v3.6: an append-only file deleted, renamed or edited other than by appending."""
    append_only = policy.append_only_files()
    return [
        Reason(ReasonCode.SEED_REWRITTEN, f"{path}: {what}", path=path)
        for change in changes.files
        for path, what in seed_rewrites(change, append_only)
    ]


def oracle_change_approved(reasons: list[Reason], ev: Evidence) -> list[Reason]:
    """v3.5: with enough approvers, every approvable reason is replaced by one informational reason
    per approver; otherwise (or with nothing to replace) ``reasons`` unchanged. v3.9.2: in a merge
    group of several pull requests, every pull request that makes an oracle change needs its own."""
    rules = ev.policy.approvals
    approvable = [r for r in reasons if r.code in APPROVABLE]
    if rules is None or not approvable:
        return reasons
    if ev.queued is not None:
        approvers = queue_approvers(rules, queue_makers(ev.queued, (r.path for r in approvable)))
    else:
        approvers = pull_approvers(rules, ev)
    if approvers is None or len(approvers) < rules.count:
        return reasons
    kept = [r for r in reasons if r.code not in APPROVABLE]
    return kept + [Reason(ReasonCode.ORACLE_CHANGE_APPROVED, approved_detail(a)) for a in approvers]


def pull_approvers(rules: ApprovalRules, ev: Evidence) -> list[Approver] | None:
    """The approvers that count for one pull request (None: no approvals were looked up)."""
    if ev.author is None or (ev.approvals is None and ev.author_permission is None):
        return None
    return counting_approvers(
        rules,
        ev.approvals or (),
        author=ev.author,
        head_sha=ev.approved_head or ev.changes.head,
        base_changed_at=ev.base_changed_at,
        author_permission=ev.author_permission,
    )


def approved_detail(approver: Approver) -> str:
    """``oracle_change_approved``'s detail: who approved which SHA (v3.9.3: or that it is the author's
    own pull request)."""
    detail = f"approved by {approver.login} at {approver.commit}"
    return f"{detail} ({BY_THE_AUTHOR})" if approver.by_author else detail


def oracle_incomplete(
    policy: Policy, freeze: Freeze, lock: FixtureLock, coverage: ParentCoverage
) -> list[Reason]:
    groups = (
        (ORACLE_INPUT_POLICY, policy.problems),
        (ORACLE_INPUT_FREEZE, freeze.problems),
        (ORACLE_INPUT_LOCK, lock.problems),
        (ORACLE_INPUT_MAP, coverage.problems),
        (ORACLE_INPUT_FREEZE, freeze_visibility_problems(freeze, coverage)),
    )
    return [
        Reason(ReasonCode.ORACLE_INCOMPLETE, str(p), path=_repository_path(p.source), oracle_input=kind)
        for kind, problems in groups
        for p in problems
    ]


_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


def _repository_path(source: str | None) -> str | None:
    """A problem's file as a reason's ``path``, which the JSON and the annotations read as a path of
    the repository: a file outside it (a coverage map elsewhere on the machine) has none, and is
    named by the reason's text alone (issue 28)."""
    if source is None or source.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(source):
        return None
    return source if normalize_path(source) is not None else None


def no_added_lines(changes: ChangeSet, policy: Policy) -> list[Reason]:
    ignored = policy.ignored()
    if any(f.added for f in changes.files if f.new_path and f.new_path not in ignored):
        return []
    return [Reason(ReasonCode.NO_ADDED_LINES, "the change adds no line to any scored file")]


def freeze_overlap(overlap: Mapping[str, list[int]], coverage: ParentCoverage) -> list[Reason]:
    if not coverage.usable or not overlap:
        return []
    return [
        Reason(
            ReasonCode.FREEZE_OVERLAP,
            f"{path}: {len(lines)} touched line(s) observed only by frozen tests: {ranges_text(lines)}",
            path=path,
        )
        for path, lines in overlap.items()
    ]


def freeze_visibility_problems(freeze: Freeze, coverage: ParentCoverage) -> list[Problem]:
    """v2: every freeze entry must match a test id the map knows ran (checked with a usable map only)."""
    if not coverage.usable or coverage.unseen_frozen is None:
        return []
    return [
        Problem(
            freeze.source,
            f"{entry.label()} matches no test the coverage map saw run: the map was built without "
            "the frozen test, or the entry names nothing, so its overlap cannot be seen",
        )
        for entry in freeze.entries
        if entry.nodeid in coverage.unseen_frozen
    ]


def observer_edited(surfaces: Surfaces, coverage: ParentCoverage) -> list[Reason]:
    """v2: touched lines whose only observers are live tests this change edits."""
    if not coverage.usable:
        return []
    reasons = []
    for path, lines in surfaces.edited_only.items():
        tests = sorted({t for line in lines for t in surfaces.edited_observers[path][line]})
        named = ", ".join(tests[:5]) + (f" and {len(tests) - 5} more" if len(tests) > 5 else "")
        reasons.append(
            Reason(
                ReasonCode.OBSERVER_EDITED,
                f"{path}: {len(lines)} touched line(s) observed only by tests this change edits "
                f"({named}): {ranges_text(lines)}",
                path=path,
                line=lines[0],
            )
        )
    return reasons


def live_surface_covers_diff(changes: ChangeSet) -> Reason:
    touched = changes.touched()
    return Reason(
        ReasonCode.LIVE_SURFACE_COVERS_DIFF,
        f"{line_count(touched)} touched parent line(s) in {len(touched)} file(s); "
        "none is observed by frozen tests alone",
    )


def compute_surfaces(ev: Evidence) -> Surfaces:
    """``overlap`` and ``edited_only`` over the scored touched lines, with v2's observers: a line no
    test observes in a parsed ``.py`` file takes its function's observers, and an edited live test
    is neither live nor frozen (unless the policy says ``edited_observers = "live"``)."""
    if not ev.coverage.usable:
        return Surfaces()
    parents = ev.parents if ev.parents is not None else parse_parent_files(ev.changes)
    ignored, tests = ev.policy.ignored(), ev.policy.test_files()
    scored = {path: lines for path, lines in ev.changes.touched().items() if path not in ignored}
    observers = without_unstable(ev.coverage.observers, ev.coverage.unstable, ev.freeze.is_frozen)
    seen = observers_of_touched(scored, observers, parents)
    candidates = {t for lines in seen.by_line.values() for ts in lines.values() for t in ts}
    live_candidates = {t for t in candidates if not ev.freeze.is_frozen(t)}
    edited: dict[str, str] = {}
    if not ev.policy.edited_tests_count:
        edited = edited_tests(sorted(live_candidates), ev.changes, parents, observers, tests)
    return _surfaces(seen, ev.freeze, edited, tests, _test_lines(edited, parents))


def _test_lines(edited: Mapping[str, str], parents: ParsedFiles) -> dict[str, int]:
    """Where each edited test's function starts in the parent (for the annotations)."""
    lines = {}
    for test in edited:
        parsed = parents.get(test.split("::", 1)[0])
        spans = parsed.test_functions(test) if parsed is not None else []
        if spans:
            lines[test] = spans[0].start
    return lines


def _surfaces(
    seen: TouchedObservers,
    freeze: Freeze,
    edited: Mapping[str, str],
    tests: GlobSet,
    test_lines: Mapping[str, int],
) -> Surfaces:
    out = Surfaces(
        edited_tests={t: edited[t] for t in sorted(edited)},
        edited_test_lines={t: test_lines[t] for t in sorted(test_lines)},
    )
    for path, by_line in seen.by_line.items():
        for line in sorted(by_line):
            observers = by_line[line]
            counting = [t for t in observers if t not in edited]
            if counting and all(freeze.is_frozen(t) for t in counting):
                out.overlap.setdefault(path, []).append(line)
                out.overlap_observers.setdefault(path, {})[line] = sorted(counting)
                if line in seen.inherited.get(path, ()):
                    out.inherited.setdefault(path, []).append(line)
            elif not counting and path not in tests:
                out.edited_only.setdefault(path, []).append(line)
                out.edited_observers.setdefault(path, {})[line] = sorted(observers)
    return out


def overlap_ratio(
    overlap: Mapping[str, list[int]], touched: Mapping[str, list[int]], ignored: GlobSet
) -> float:
    scored = line_count({path: lines for path, lines in touched.items() if path not in ignored})
    if not scored:
        return 0.0
    return round(line_count(overlap) / scored, 4)


def line_count(lines_by_path: Mapping[str, Collection[int]]) -> int:
    """How many lines a path -> lines mapping holds (the overlap count, the touched count)."""
    return sum(len(lines) for lines in lines_by_path.values())


def line_ranges(lines: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted lines as inclusive (start, end) runs."""
    runs: list[tuple[int, int]] = []
    for n in sorted(lines):
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def range_text(start: int, end: int) -> str:
    """One inclusive run of lines as text: ``7`` or ``7-9``."""
    return str(start) if start == end else f"{start}-{end}"


def ranges_text(lines: Iterable[int]) -> str:
    """Lines as comma-separated runs: ``3, 7-9``."""
    return ", ".join(range_text(a, b) for a, b in line_ranges(lines))
