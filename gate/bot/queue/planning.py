"""A stored delivery turned into jobs, by a worker (TRUST.md invariant 8).

The webhook handler verifies the signature, checks the body is JSON, stores the raw delivery as one
:data:`PLAN` job and answers: nothing a pull request wrote is walked on the server's event loop. A
worker then parses the delivery (:func:`oracle_gate.review.events.parse_event`), plans its jobs here
(:func:`oracle_gate.bot.queue.delivery_jobs.jobs_for`) and queues them. Plan jobs
share one key, so deliveries are planned one at a time in the order they were received (a newer
event's job is queued after an older one's, as if planned on arrival).
"""

from __future__ import annotations

from oracle_gate.bot.queue import delivery_jobs
from oracle_gate.bot.queue.delivery_jobs import Job
from oracle_gate.bot.queue.store import DONE, FAILED, ClaimedJob, Store
from oracle_gate.review.events import Event, EventError, PullRequestChanged, payload_of

PLAN = "plan"
PLAN_KEY = "!plan"


def delivery_job(event: str, body: bytes) -> Job:
    """The one job a verified delivery is stored as: its event name and raw JSON text."""
    return Job(PLAN, "", 0, PLAN_KEY, event=event, payload=body.decode("utf-8", errors="replace"))


def plan_delivery(
    store: Store, claimed: ClaimedJob, map_workflow: str, review_interval: float = 0.0
) -> tuple[str, str]:
    """Queue the jobs of the stored delivery; (state, detail) of the plan job itself."""
    job = claimed.job
    event = job.event or ""
    source = f"delivery {claimed.delivery}"
    try:
        parsed = delivery_jobs.parsed(
            event, payload_of((job.payload or "").encode(), source), source, map_workflow=map_workflow
        )
        # the one parse of the delivery, for both answers below
        planned = delivery_jobs.jobs_for(parsed, review_interval=review_interval)
    except EventError as exc:
        return FAILED, f"not a {event} payload: {exc}"
    _note_base_change(store, parsed)
    installation = delivery_jobs.installation_change(parsed)
    jobs = [] if isinstance(planned, delivery_jobs.Ignored) else planned
    queued = store.enqueue(claimed.delivery, jobs, installation)
    if isinstance(planned, delivery_jobs.Ignored):
        return DONE, f"ignored: {planned.why}"
    if queued < len(jobs):
        return DONE, f"queued {queued} job(s); {len(jobs) - queued} taken by a judgement already queued"
    return DONE, f"queued {queued} job(s)"


def _note_base_change(store: Store, event: Event) -> None:
    """v3.9.1: a retarget is kept per pull request before its job is queued (a later delivery may
    supersede the job; the approvals given before the retarget stay stale all the same)."""
    if isinstance(event, PullRequestChanged) and event.base_changed_at is not None and event.origin.repo:
        store.note_base_change(event.origin.repo, event.number, event.base_changed_at)
