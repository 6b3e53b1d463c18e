"""``oracle-gate publish``: post a stored verdict.json from a workflow the pull request cannot change.

The stored verdict comes from a run the pull request may have influenced (stage 1 of the fork-safe
two-stage pattern runs the pull request's own workflow files), so it is checked against the API
first: the pull request's head must be the commit the verdict is for, and a pull request that
changes ``.github/workflows`` gets ``fail`` whatever verdict it brought.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from oracle_gate import __version__, files
from oracle_gate.errors import GateError, StoredVerdictError
from oracle_gate.github import content
from oracle_gate.github.client import PublishError
from oracle_gate.github.defaults import CommentMode
from oracle_gate.github.pulls import PullFile
from oracle_gate.github.repository import GitHubRepo
from oracle_gate.github.values import CheckTarget, PublishResult
from oracle_gate.judge.verdict import Verdict
from oracle_gate.judge.withheld import stored_verdict_distrusted
from oracle_gate.judgement.github_ports import PostedChecks, PostedComments
from oracle_gate.render.verdict_json import from_json

WORKFLOWS_DIR = ".github/workflows/"


def workflow_edits(files: Iterable[PullFile]) -> list[str]:
    """The workflow files a pull request adds, edits, deletes or renames (either side of a rename)."""
    return sorted({path for f in files for path in f.paths if path.startswith(WORKFLOWS_DIR)})


def lineage_problem(stored: Verdict, head_sha: str, parents: Sequence[str]) -> str | None:
    """Why the stored verdict's commits are not GitHub's test merge of ``head_sha``, or None.

    The stored ``head`` must be a merge commit whose parents GitHub reports as exactly (stored
    ``parent``, the pull request's head): otherwise the verdict judged some other pair of commits (a
    merge the change built itself, against a parent of its choosing) and says nothing about this one.
    """
    expected = (stored.parent, head_sha)
    if tuple(parents) == expected:
        return None
    shown = ", ".join(p[:12] for p in parents) or "none"
    return (
        f"the stored verdict judged {stored.head[:12]}, whose parents on GitHub are ({shown}), not "
        f"(its parent {stored.parent[:12]}, the pull request's head {head_sha[:12]}): it is not the test "
        "merge of this pull request, so the stored verdict is not trusted"
    )


def read_stored_verdict(path: Path) -> Verdict:
    """A ``verdict.json`` from an earlier run; :class:`StoredVerdictError` (one line) when it is not one
    (unreadable, not JSON, or refused by :func:`oracle_gate.render.verdict_json.from_json`, the one
    validator of a stored verdict)."""
    try:
        doc = json.loads(files.read_bounded(path, files.MAX_STORED_VERDICT_BYTES).decode("utf-8"))
    except OSError as exc:
        raise StoredVerdictError(str(path), f"cannot read it ({exc.strerror or exc})") from exc
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise StoredVerdictError(str(path), f"not JSON ({exc})") from exc
    return from_json(doc, str(path))


def reject_unless_test_merge(
    github: GitHubRepo, stored: Verdict, target: CheckTarget, say: Callable[[str], None]
) -> None:
    """Ask GitHub for the parents of the stored ``head``; on a mismatch (or when GitHub cannot say)
    post a failure check saying why and raise :class:`GateError`."""
    try:
        why = lineage_problem(stored, target.head_sha, github.pulls.commit_parents(stored.head))
    except PublishError as exc:
        why = (
            f"cannot read the stored verdict's commit {stored.head[:12]} from GitHub ({exc}), so it cannot "
            "be verified to be the test merge of this pull request; the stored verdict is not trusted"
        )
    if why is None:
        return
    refuse(github, why, target, say)


def refuse(github: GitHubRepo, why: str, target: CheckTarget, say: Callable[[str], None]) -> None:
    """Post a failure check saying ``why`` the stored verdict is not trusted, and raise :class:`GateError`."""
    try:
        github.checks.publish(content.error_check(why), target)
    except PublishError as exc:
        say(f"the failure check was not posted either: {exc}")
    raise GateError(why)


def publish_stored(
    github: GitHubRepo,
    stored: Verdict,
    *,
    pr_number: int,
    head_sha: str,
    check_name: str,
    comment_mode: CommentMode,
    say: Callable[[str], None],
) -> tuple[Verdict, PublishResult]:
    """Check the stored verdict against the API, then post it (or the ``fail`` that replaces it).

    Raises :class:`GateError` when the pull request's head is not ``head_sha`` (the verdict is for
    another commit), when the stored ``head`` is not a commit whose parents GitHub reports as (stored
    ``parent``, ``head_sha``), or when the pull request's files cannot all be listed (the last two
    after posting a failure check saying so). Then the check, then the sticky comment; what could not
    be posted is in the result.
    """
    target = CheckTarget(head_sha, check_name)
    try:
        pull = github.pulls.pull_request(pr_number)
        if pull.head_sha != head_sha:
            raise GateError(
                f"refusing to publish: the head of pull request #{pr_number} is {pull.head_sha}, "
                f"not {head_sha}; the stored verdict is for another commit"
            )
        files = github.pulls.pull_request_files(pr_number)
    except PublishError as exc:
        raise GateError(str(exc)) from exc
    reject_unless_test_merge(github, stored, target, say)
    if pull.changed_files is not None and len(files) < pull.changed_files:
        why = (
            f"GitHub lists {len(files)} of the {pull.changed_files} files of pull request #{pr_number}, "
            "so it cannot be verified that the change leaves .github/workflows alone; "
            "the stored verdict is not trusted"
        )
        refuse(github, why, target, say)
    edits = workflow_edits(files)
    verdict = stored_verdict_distrusted(stored, edits, __version__)
    if verdict is not stored:
        say(
            f"pull request #{pr_number} changes {edits[0]}: "
            f"publishing fail instead of the stored {stored.verdict}"
        )
    check = PostedChecks(github.checks).publish(content.check_content(verdict), target)
    comment = PostedComments(github.comments).sticky(pr_number, content.sticky_comment(verdict, comment_mode))
    return verdict, PublishResult(check, comment)
