"""Issue 29: when someone's access changes, judge again the pull requests whose verdict rests on approvals.

TRUST.md 12: an approval counts only while its approver holds write access now (and, through a team
the policy names, that team's membership). A verdict carries the access of when it was made: an
approver removed from the repository, given read access, or taken out of the team would otherwise
keep an approved oracle change green until the next event on the pull request. GitHub tells the App
of such changes (``member``, ``membership``, ``team``, parsed by
:mod:`oracle_gate.review.events`); this module turns one into judge jobs for each pull request whose
last verdict rests on approvals (``oracle_change_approved``; :meth:`Store.pulls_resting_on_approvals`):

* of that login, for a collaborator's change (``member``) or a team member's (``membership``);
* of anyone, for a team's own change (its permission, its repositories, the team deleted);
* in the event's repository when it names one, else in every repository of the installation.

A pull request found closed when judged again is forgotten (:meth:`Store.forget_approvals`), so the
set stays the open ones. The Action cannot hear these events: docs/action.md says what to do there.
"""

from __future__ import annotations

from collections.abc import Callable

from oracle_gate.bot.queue.delivery_jobs import ACCESS, JUDGE, Job
from oracle_gate.bot.queue.store import Store


def rejudge_jobs(store: Store, job: Job, default_branch: Callable[[str], str | None]) -> list[Job]:
    """The judge jobs an access change (``job``, of kind :data:`ACCESS`) asks for. Each carries its
    repository's default branch (the allowed base, unless ``allowed-bases`` names others), from the
    delivery when it names that repository, else from ``default_branch`` (one API read per
    repository): without it the required check could not be replaced."""
    pulls = store.pulls_resting_on_approvals(job.installation, job.repo or None, job.approver)
    branches: dict[str, str | None] = {}
    jobs = []
    for repo, number in pulls:
        if repo not in branches:
            given = job.default_branch if repo == job.repo else None
            branches[repo] = given or default_branch(repo)
        jobs.append(
            Job(
                JUDGE,
                repo,
                job.installation,
                f"{repo}#{number}",
                pr=number,
                default_branch=branches[repo],
                event=ACCESS,
            )
        )
    return jobs


def is_access_rejudgement(job: Job) -> bool:
    """A judge job an access change queued (a closed pull request is then forgotten, not judged)."""
    return job.kind == JUDGE and job.event == ACCESS
