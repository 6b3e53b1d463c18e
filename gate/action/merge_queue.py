"""``merge_group``: a merge queue's merge commit judged against the queue's base (TRUST.md invariant 6).

GitHub requires every required check to report on ``merge_group`` too, or the queue never merges.
The queue builds its own merge commit (``merge_group.head_sha``, on ``head_ref``) on top of the base
tip it will land on (``base_sha``): that is exactly the (parent, head) pair the verdict is about, so
a verdict from the queue never outlives its parent. The check is posted on ``head_sha``, the commit
the queue waits on. Only git objects are fetched; nothing is checked out. v3.9.2: the group carries
the approvals of each of its pull requests, on that pull request's own head
(:mod:`oracle_gate.review.merge_group`).
"""

from __future__ import annotations

from oracle_gate.action.context import Context
from oracle_gate.action.events import MergeGroup
from oracle_gate.action.judging import judge_commits
from oracle_gate.action.merge_commit import Commits, MergeFinder, MergeUnavailable
from oracle_gate.action.outcome import cannot_run, publish_verdict
from oracle_gate.errors import GateError
from oracle_gate.exit_status import ExitStatus
from oracle_gate.review.approvals import ApprovalsRead, parent_rules
from oracle_gate.review.bases import allowed_bases, check_name_for_base
from oracle_gate.review.merge_group import QueuedPull, group_approvals

QUEUE_REF = "refs/oracle-gate/merge-group"
QUEUED_HEAD_REF = "refs/oracle-gate/merge-group-pull"  # v3.9.2: the group's pull request's head
BRANCH_PREFIX = "refs/heads/"


def judge_merge_group(ctx: Context, group: MergeGroup) -> ExitStatus:
    """Judge the queue's merge commit against its base and post the check on the merge commit."""
    ctx.state.head_sha = group.head_sha
    base = group.base_ref.removeprefix(BRANCH_PREFIX)
    allowed = allowed_bases(ctx.config.allowed_bases, ctx.default_branch)
    ctx.publisher.check_name = check_name_for_base(ctx.config.check_name, base, allowed)
    try:
        commits = queue_commits(ctx, group)
        ctx.log.line(
            f"oracle-gate: judging the merge queue's commit {commits.merge[:12]} against its base "
            f"{commits.parent[:12]} ({base})"
        )
        verdict = judge_commits(ctx, commits, queue_approvals(ctx, group, commits))
    except GateError as exc:
        return cannot_run(ctx, str(exc), head_sha=group.head_sha)
    return publish_verdict(ctx, verdict, None, group.head_sha)


def queue_approvals(ctx: Context, group: MergeGroup, commits: Commits) -> ApprovalsRead | None:
    """v3.9.2: the approvals of each pull request of the group, on its own head
    (:mod:`oracle_gate.review.merge_group`)."""

    def pull(number: int) -> QueuedPull:
        info = ctx.publisher.pull_request(number)
        return QueuedPull(info.head_sha, info.author, info.base_ref)

    def fetch_head(number: int) -> None:
        source, env = MergeFinder(ctx.config, ctx.git, ctx.log, ctx.sleep).fetch_source()
        ctx.git.fetch(source, [f"+refs/pull/{number}/head:{QUEUED_HEAD_REF}"], extra_env=env)

    read = group_approvals(
        ctx.git,
        ctx.publisher.review_reader(),
        parent_rules(ctx.git, commits.parent),
        head_ref=group.head_ref,
        base_sha=commits.parent,
        head_sha=commits.merge,
        pull=pull,
        fetch_head=fetch_head,
    )
    if read is not None and read.seen.unreadable:
        ctx.log.line(f"oracle-gate: the merge group carries no approvals: {read.seen.unreadable}")
    return read


def queue_commits(ctx: Context, group: MergeGroup) -> Commits:
    """The queue's merge commit and its base, fetched (with their whole history) when not here."""
    git = ctx.git
    if not git.has_commit(group.head_sha) or git.is_shallow():
        source, env = MergeFinder(ctx.config, git, ctx.log, ctx.sleep).fetch_source()
        try:
            git.fetch(source, [f"+{group.head_ref}:{QUEUE_REF}"], unshallow=git.is_shallow(), extra_env=env)
        except GateError as exc:
            raise MergeUnavailable(f"cannot fetch the merge queue's {group.head_ref}: {exc}") from exc
    for sha, what in ((group.head_sha, "merge commit"), (group.base_sha, "base")):
        if not git.has_commit(sha):
            raise MergeUnavailable(
                f"the merge queue's {what} {sha[:12]} is not in the repository after a fetch"
            )
    head, parent = git.commit(group.head_sha), git.commit(group.base_sha)
    if not git.is_ancestor(parent, head):
        raise MergeUnavailable(
            f"the merge queue's base {parent[:12]} is not an ancestor of its merge commit {head[:12]}"
        )
    return Commits(merge=head, parent=parent, head=head)
