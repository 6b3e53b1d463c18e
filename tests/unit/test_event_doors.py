"""Both front doors derive their work from the same parsed event (issue 17: two parsers drifted).

For every stored payload and every variant reaching each kind of event, the event is parsed once,
and the very same object is handed to the Action (:func:`oracle_gate.action.events.plan_for`) and to
the bot (:func:`oracle_gate.bot.queue.delivery_jobs.jobs_for`). Where both act, they act on the same
pull request,
head, base, command and comment; where one door does not serve a kind of event, :data:`ONE_DOOR`
says why.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

from oracle_gate.action import events as action
from oracle_gate.bot.queue import delivery_jobs as bot
from oracle_gate.github.defaults import DEFAULT_CHECK_NAME
from oracle_gate.review import events as ev
from oracle_gate.review.commands import parse_command
from oracle_gate.review.events import parse_event
from tests.unit.test_review_events import SOURCE, variants

#: Kinds of event that only one door acts on, and why the other does not.
ONE_DOOR: dict[type, tuple[str, str]] = {
    ev.ReviewChanged: ("bot", "the Action's review run is the pull request's own workflow: it is relayed"),
    ev.ReviewRelayed: ("action", "the bot hears pull_request_review itself, no relay"),
    ev.MapRunSucceeded: ("bot", "the Action builds or restores its map in its own run"),
    ev.BaseMoved: ("bot", "the Action's push run builds the parent's map; the bot re-judges and marks stale"),
    ev.InstallationChanged: ("neither", "the bot records the installation's state; nothing is judged"),
    ev.AccessChanged: (
        "bot",
        "no workflow runs on member, membership or team: docs/action.md says what to do",
    ),
    ev.Ignored: ("neither", "nothing to do"),
}


def both(variant: str) -> tuple[ev.Event, action.Plan, list[bot.Job] | ev.Ignored]:
    name, payload = variants()[variant]
    event = parse_event(name, payload, SOURCE)
    return event, action.plan_for(event, DEFAULT_CHECK_NAME), bot.jobs_for(event)


def the_pull_request_facts(event: ev.Event, plan: action.Plan, jobs: list[bot.Job]) -> None:
    match event:
        case ev.PullRequestChanged():
            assert isinstance(plan, action.Judge)
            assert [(j.kind, j.pr, j.head) for j in jobs] == [(bot.JUDGE, event.number, event.head_sha)]
            assert (plan.pr.number, plan.pr.head_sha, plan.pr.base_ref) == (
                event.number,
                event.head_sha,
                event.base_ref,
            )
        case ev.CommandGiven():
            assert isinstance(plan, action.Command)
            (job,) = jobs
            assert (plan.pr.number, plan.comment_id, plan.user, plan.name) == (
                job.pr,
                job.comment_id,
                job.commenter,
                parse_command(job.comment or ""),
            )
            assert (job.pr, plan.name) == (event.number, event.command)
        case ev.ChecksRerequested():
            assert isinstance(plan, action.Judge)
            assert (plan.pr.number, plan.pr.head_sha) == (event.pulls[0].number, event.head_sha)
            assert [(j.pr, j.head) for j in jobs] == [(p.number, event.head_sha) for p in event.pulls]
        case ev.MergeGroupQueued():
            assert isinstance(plan, action.MergeGroup)
            (job,) = jobs
            assert (plan.head_sha, plan.base_sha, plan.head_ref) == (job.head, job.base, job.group_ref)
            assert plan.base_ref.removeprefix("refs/heads/") == job.base_ref == event.base_branch
        case _:
            pytest.fail(f"both doors act on a {type(event).__name__}: add it to the table")


@pytest.mark.parametrize("variant", sorted(variants()))
def test_both_doors_take_their_work_from_the_one_event(variant: str) -> None:
    event, plan, jobs = both(variant)
    door = ONE_DOOR.get(type(event), ("both", ""))[0]
    if isinstance(event, ev.ChecksRerequested) and event.holder == "check_suite":
        door = "bot"  # a check suite is GitHub's own request; no workflow of the Action listens to it
    if isinstance(event, ev.AccessChanged) and event.origin.installation is None:
        door = "neither"  # a repository's own webhook (GitHub's examples of these): not the App's
    assert isinstance(plan, action.Ignore) == (door in ("bot", "neither")), (door, plan)
    assert isinstance(jobs, ev.Ignored) == (door in ("action", "neither")), (door, jobs)
    if door == "both":
        assert isinstance(jobs, list)
        the_pull_request_facts(event, plan, jobs)
    if isinstance(event, ev.Ignored):
        assert isinstance(plan, action.Ignore)
        assert plan.why == event.why == getattr(jobs, "why", None)  # the same reason through both doors
    if door == "bot" and isinstance(event, ev.AccessChanged):
        assert isinstance(jobs, list)
        assert [(j.kind, j.repo, j.installation, j.approver) for j in jobs] == [
            (bot.ACCESS, event.origin.repo or "", event.origin.installation, event.login)
        ]
    elif door == "bot":
        assert isinstance(jobs, list)
        for job in jobs:
            assert (job.repo, job.installation) == event.origin.app_delivery()  # type: ignore[union-attr]


def test_every_kind_of_event_is_reached_by_a_variant() -> None:
    reached = {type(both(name)[0]) for name in variants()}
    assert reached == set(get_args(ev.Event))


def test_only_the_action_asks_whose_check_run_was_re_requested() -> None:
    """A workflow hears every app's check_run events; GitHub sends check_run.rerequested to an App only
    for the check runs it created, so the bot needs no name (its own may be '... (base: x)')."""
    _, payload = variants()["check_run"]
    payload["check_run"]["name"] = "CI"
    event = parse_event("check_run", payload, SOURCE)
    assert isinstance(action.plan_for(event, DEFAULT_CHECK_NAME), action.Ignore)
    assert isinstance(bot.jobs_for(event), list)


def test_the_doors_read_the_event_not_the_payload() -> None:
    """Changing the payload after the parse changes nothing either door does."""
    name, payload = variants()["pull_request.opened"]
    event = parse_event(name, payload, SOURCE)
    payload["pull_request"]["number"] = 999
    payload["pull_request"]["head"]["sha"] = "f" * 40
    plan, jobs = action.plan_for(event, DEFAULT_CHECK_NAME), bot.jobs_for(event)
    assert isinstance(plan, action.Judge)
    assert isinstance(jobs, list)
    assert plan.pr.number == jobs[0].pr == event.number != 999  # type: ignore[union-attr]


def test_a_payload_one_door_refused_the_other_refuses_too() -> None:
    """Drifts of old: the Action took a number given as a string and any head SHA; the bot did not."""
    _, payload = variants()["pull_request.opened"]
    for field, value in (("number", "7"), ("head", {"sha": "HEAD"})):
        broken: dict[str, Any] = {**payload, "pull_request": {**payload["pull_request"], field: value}}
        with pytest.raises(ev.EventError):
            action.plan_for(parse_event("pull_request", broken, "event.json"), DEFAULT_CHECK_NAME)
        with pytest.raises(ev.EventError):
            bot.plan("pull_request", broken)
