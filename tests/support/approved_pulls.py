"""Pull requests on a base whose policy names approvers (contract v3.5, v3.9), made in the project's
shared ``origin`` for one test and undone after it: the parity table's approvals rows and the
front doors' approvals tests build their worlds here.

The base is ``main`` moved to a commit that adds ``oracle-gate.toml`` (so the default branch, the
allowed base, carries the policy); each pull request's head is that commit with ``files`` written,
and its test merge has the moved main as first parent (fresh for both doors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.project import REPO, Project, PullRequest, _commit_files, seed_commit
from tests.support.webhooks import as_base_edit

POLICY = '[approvals]\noracle = ["alice"]\n'
AUTHORS_POLICY = POLICY + 'authors = ["maint"]\n'  # v3.9.3, opt-in
REVIEWED = "2026-11-30T12:00:00Z"
RETARGETED = "2026-11-30T12:05:00Z"
AGENT_BRANCH = "mine"
FIXTURE_REWRITE = {"fixtures/data.json": b'{"answer": 43}\n'}
NUMBERS = (31, 32, 33, 34, 35, 36)  # the pull request numbers made here
SOURCE_EDIT = {"src/queued.py": b"VALUE = 1\n"}
NEW_FIXTURE = {"fixtures/more.json": b'{"more": 1}\n'}


class ApprovalWorld(Protocol):
    """What a test's world holds (the parity table's ``World``): its pull requests go in ``made``."""

    project: Project
    fake: FakeGitHub
    undo: list[Callable[[], object]]
    made: dict[str, PullRequest]


def guarded_main(project: Project, undo: list[Callable[[], object]], policy: str = POLICY) -> str:
    """Move ``main`` to a commit adding the approvals ``policy``; its SHA (``undo`` moves main back)."""
    tip = _commit_files(project, project.main, {"oracle-gate.toml": policy.encode()}, "name approvers")
    project.git("update-ref", "refs/heads/main", tip)
    undo.append(lambda: project.git("update-ref", "refs/heads/main", project.main))
    return tip


def pull_on(
    world: ApprovalWorld, base: str, number: int, files: dict[str, bytes], *, author: str = "agent-bot"
) -> PullRequest:
    """Pull request ``number`` (by ``author``) whose head is ``base`` with ``files``, to ``main``."""
    project, fake = world.project, world.fake
    head = _commit_files(project, base, files, f"pull request {number}")
    tree = project.git("merge-tree", "--write-tree", base, head).splitlines()[0]
    merge = project.git("commit-tree", tree, "-p", base, "-p", head, "-m", "the test merge")
    for ref, sha in ((f"refs/pull/{number}/head", head), (f"refs/pull/{number}/merge", merge)):
        project.git("update-ref", ref, sha)
        world.undo.append(_deleting(project, ref))
    branch = f"pr-{number}"
    fake.add_pull(REPO, number, head_sha=head, base_sha=base, head_ref=branch, author=author)
    for sha in (base, head, merge):
        seed_commit(fake, project, sha)
    pr = PullRequest(number, head, merge, branch, base=base)
    world.made[str(number)] = pr
    return pr


def _deleting(project: Project, ref: str) -> Callable[[], object]:
    return lambda: project.git("update-ref", "-d", ref)


def retargeted_after_approval(world: ApprovalWorld, number: int = 31) -> None:
    """Issue 29's attack: the pull request first targeted the agent's branch ``mine``, which already
    held a fixture rewrite, so its diff showed a one-line seed append; ``alice`` approved head H; the
    agent then retargeted it to ``main`` without pushing (GitHub's issue events say when)."""
    base = guarded_main(world.project, world.undo)
    agent_tip = _commit_files(world.project, base, FIXTURE_REWRITE, "the agent's branch")
    world.project.git("update-ref", f"refs/heads/{AGENT_BRANCH}", agent_tip)
    world.undo.append(lambda: world.project.git("update-ref", "-d", f"refs/heads/{AGENT_BRANCH}"))
    pr = pull_on(world, base, number, {**FIXTURE_REWRITE, "seeds/cases.txt": b"1337\n"})
    world.fake.set_permission(REPO, "alice", "write")
    world.fake.reviews.add_review(
        REPO, number, "alice", state="APPROVED", commit_id=pr.head, submitted_at=REVIEWED
    )
    world.fake.reviews.add_event(REPO, number, "base_ref_changed", created_at=RETARGETED)


def retarget_event(world: ApprovalWorld, number: int = 31) -> dict[str, Any]:
    """``pull_request`` ``edited`` with ``changes.base``: from ``mine`` to ``main``, at RETARGETED."""
    pr = world.made[str(number)]
    payload = as_base_edit(events.pull_request(world.project, pr), AGENT_BRANCH, pr.base or "")
    payload["pull_request"]["updated_at"] = RETARGETED
    return payload


def maintainers_own(world: ApprovalWorld, number: int = 32) -> None:
    """v3.9.3: ``maint`` (named in ``authors``, admin) changes the fixtures in their own pull request."""
    base = guarded_main(world.project, world.undo, AUTHORS_POLICY)
    pull_on(world, base, number, FIXTURE_REWRITE, author="maint")
    world.fake.set_permission(REPO, "maint", "admin")


def opened(world: ApprovalWorld, number: int) -> dict[str, Any]:
    return events.pull_request(world.project, world.made[str(number)], action="opened")


def queue_ref(number: int, parent: str, base: str = "main") -> str:
    """The branch GitHub pushes for pull request ``number``'s merge queue entry on ``parent``."""
    return f"refs/heads/gh-readonly-queue/{base}/pr-{number}-{parent}"


def queued_approved(world: ApprovalWorld, number: int = 33) -> None:
    """v3.9.2: ``alice`` approved pull request ``number`` (a fixture rewrite) on its head; it was
    queued alone: the queue's commit is its head merged onto main (the group's base)."""
    base = guarded_main(world.project, world.undo)
    pr = pull_on(world, base, number, FIXTURE_REWRITE)
    world.fake.set_permission(REPO, "alice", "write")
    world.fake.reviews.add_review(REPO, number, "alice", state="APPROVED", commit_id=pr.head)
    ref = queue_ref(number, base)
    world.project.git("update-ref", ref, pr.merge or "")
    world.undo.append(_deleting(world.project, ref))


def queue_event(world: ApprovalWorld, number: int = 33) -> dict[str, Any]:
    """``merge_group.checks_requested`` for the entry :func:`queued_approved` made."""
    pr = world.made[str(number)]
    payload = events.merge_group(
        world.project, head_sha=pr.merge or "", head_ref=queue_ref(number, pr.base or "")
    )
    payload["merge_group"]["base_sha"] = pr.base
    return payload


def _queue_commit(world: ApprovalWorld, parent: str, pr: PullRequest) -> str:
    """GitHub's queue commit of ``pr`` on ``parent``: its head merged onto the entry ahead."""
    project = world.project
    tree = project.git("merge-tree", "--write-tree", parent, pr.head).splitlines()[0]
    message = f"Merge pull request #{pr.number} from agent/{pr.branch}"
    commit = project.git("commit-tree", tree, "-p", parent, "-p", pr.head, "-m", message)
    seed_commit(world.fake, project, commit)
    return commit


def queued_two(
    world: ApprovalWorld, first: dict[str, bytes], second: dict[str, bytes], approved: tuple[int, ...]
) -> None:
    """v3.9.2: pull requests 35 (``first``) then 36 (``second``) queued in one group; ``alice``
    approved the heads of those in ``approved``. The group's branch names #36 on #35's entry."""
    base = guarded_main(world.project, world.undo)
    pulls = [pull_on(world, base, 35, first), pull_on(world, base, 36, second)]
    world.fake.set_permission(REPO, "alice", "write")
    for pr in pulls:
        if pr.number in approved:
            world.fake.reviews.add_review(REPO, pr.number, "alice", state="APPROVED", commit_id=pr.head)
    entry = _queue_commit(world, base, pulls[0])
    group = _queue_commit(world, entry, pulls[1])
    ref = queue_ref(36, entry)
    world.project.git("update-ref", ref, group)
    world.undo.append(_deleting(world.project, ref))
    world.made["group"] = PullRequest(36, entry, group, ref, base=base)


def queued_two_approved(world: ApprovalWorld) -> None:
    """#35 edits source (unreviewed), #36 rewrites a fixture (approved): the group is approved."""
    queued_two(world, SOURCE_EDIT, FIXTURE_REWRITE, approved=(36,))


def queued_second_unapproved(world: ApprovalWorld) -> None:
    """#35 rewrites a fixture (approved), #36 adds one (not approved): the group is not approved."""
    queued_two(world, FIXTURE_REWRITE, NEW_FIXTURE, approved=(35,))


def group_event(world: ApprovalWorld) -> dict[str, Any]:
    """``merge_group.checks_requested`` for the group :func:`queued_two` made."""
    group = world.made["group"]
    payload = events.merge_group(world.project, head_sha=group.merge or "", head_ref=group.branch)
    payload["merge_group"]["base_sha"] = group.base
    return payload
