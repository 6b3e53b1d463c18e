"""The verdict of a pull request: its test merge judged against its first parent with the parent's map.

The map is ``coverage-file`` (used only when :mod:`oracle_gate.action.map_trust` finds nothing the pull
request could have fed; otherwise the verdict is ``oracle_incomplete`` saying why), else one built
with ``coverage-command`` on the parent by this run, else none (the core then reports
``oracle_incomplete``).
"""

from __future__ import annotations

import shlex
import tempfile
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from oracle_gate import __version__
from oracle_gate.action.context import Context
from oracle_gate.action.events import PullRequestRef
from oracle_gate.action.map_trust import map_trust_problems, same_run_map_trusted, trusted_source
from oracle_gate.action.merge_commit import Commits, MergeFinder
from oracle_gate.check import CheckRequest, gather
from oracle_gate.errors import PublishError, UsageError
from oracle_gate.judge.observers import ParentCoverage
from oracle_gate.judge.problems import Problem
from oracle_gate.judge.verdict import Verdict, evaluate
from oracle_gate.judge.withheld import change_too_large
from oracle_gate.review.approvals import (
    ApprovalsRead,
    parent_rules,
    read_approvals,
    request_fields,
    unreadable,
)
from oracle_gate.review.budget import changed_bytes


def judge_pull_request(ctx: Context, pr: PullRequestRef, head_sha: str, *, use_event_sha: bool) -> Verdict:
    """The verdict of the test-merge commit against its first parent. Raises GateError."""
    finder = MergeFinder(ctx.config, ctx.git, ctx.log, ctx.sleep, ctx.publisher)
    commits = finder.commits(pr, head_sha, use_event_sha=use_event_sha)
    ctx.log.line(
        f"oracle-gate: judging pull request #{pr.number}: test merge {commits.merge[:12]} against its "
        f"first parent {commits.parent[:12]} (head {head_sha[:12]})"
    )
    approvals = approvals_of(ctx, commits, pr.number, head_sha, base_changed_at=pr.base_changed_at)
    return judge_commits(ctx, commits, approvals)


def approvals_of(
    ctx: Context, commits: Commits, number: int, head_sha: str, *, base_changed_at: datetime | None = None
) -> ApprovalsRead | None:
    """v3.5: the pull request's approvals through the API, when the parent's policy names approvers;
    ``base_changed_at``: v3.9.1, the base change this run's own event made (the API may lag behind)."""
    rules = parent_rules(ctx.git, commits.parent)
    if rules is None:
        return None
    try:
        author = ctx.publisher.pull_request(number).author
    except PublishError as exc:  # never "no approvals", silently: judged without them, and said so
        read = unreadable(head_sha, str(exc))
    else:
        read = read_approvals(
            ctx.publisher.review_reader(),
            rules,
            number=number,
            author=author,
            head=head_sha,
            base_changed_at=base_changed_at,
        )
    if read.seen.unreadable:
        ctx.log.line(f"oracle-gate: the approvals could not be read: {read.seen.unreadable}")
    return read


def judge_commits(ctx: Context, commits: Commits, approvals: ApprovalsRead | None = None) -> Verdict:
    """The verdict of ``commits.merge`` against ``commits.parent`` with the parent's map; a change
    over ``max-changed-bytes`` is not read, nor any map built for it (as in the bot)."""
    size = changed_bytes(ctx.git, commits.parent, commits.merge)
    if size > ctx.config.max_changed_bytes:
        ctx.log.line(f"oracle-gate: the change is {size} bytes, over max-changed-bytes: not read")
        return change_too_large(
            commits.parent, commits.merge, size, ctx.config.max_changed_bytes, __version__
        )
    with tempfile.TemporaryDirectory(prefix="oracle-gate-action-") as tmp:
        coverage = parent_map(ctx, commits, Path(tmp))
        refused = given_map_problems(ctx) if ctx.config.coverage_file else []
        request = CheckRequest(
            repo=ctx.config.repo_dir,
            base=commits.parent,
            head=commits.merge,
            coverage=None if refused else coverage,
            coverage_sha=ctx.config.coverage_sha if ctx.config.coverage_file else None,
            extra_protected=ctx.config.protected,
            allow_failing_parent=ctx.config.allow_failing_parent,
            **request_fields(approvals, pr_head=False),
        )
        evidence = gather(ctx.git, request)
        if refused:
            evidence = replace(evidence, coverage=ParentCoverage(problems=tuple(refused)))
        if approvals is not None:  # the head may be absent from a shallow checkout: not resolved by git
            evidence = replace(evidence, approved_head=approvals.head)
        return evaluate(evidence)


def given_map_problems(ctx: Context) -> list[Problem]:
    """Why the ``coverage-file`` may not be used (:mod:`oracle_gate.action.map_trust`); empty when it may."""
    config = ctx.config
    same_run = same_run_map_trusted(config.event_name, trust_same_run_map=config.trust_same_run_map)
    source = trusted_source(config.repository, ctx.default_branch, config.run_id, same_run_trusted=same_run)
    problems = map_trust_problems(
        config.repo_dir / (config.coverage_file or ""), repo_dir=config.repo_dir, source=source
    )
    for problem in problems:
        ctx.log.line(f"oracle-gate: the coverage-file is refused: {problem}")
    return problems


def parent_map(ctx: Context, commits: Commits, scratch: Path) -> Path | None:
    """The parent's map: ``coverage-file``, else one built with ``coverage-command``, else none."""
    config = ctx.config
    if config.coverage_file:
        return config.repo_dir / config.coverage_file
    if config.coverage_command:
        try:
            argv = shlex.split(config.coverage_command)
        except ValueError as exc:
            raise UsageError(f"input 'coverage-command' cannot be split into words: {exc}") from exc
        ctx.log.line(f"oracle-gate: building the parent's map with: {shlex.join(argv)}")
        result = ctx.map_builder(ctx.git, commits.parent, scratch / "parent.coverage", argv)
        ctx.log.line(
            f"oracle-gate: mapped {result.tests} test(s) of {commits.parent[:12]} in {result.seconds:.1f}s"
        )
        return result.manifest
    return None
