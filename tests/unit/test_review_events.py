"""The one event parser behind both front doors (oracle_gate.review.events, pure; issue 17).

Over the real webhook payloads the suite keeps (tests/data/github/webhooks, copied from
@octokit/webhooks-examples) and the variants GitHub's examples lack; then as the adversary: every
field of every payload replaced by a value of the wrong shape must give an event, an
:class:`Ignored` with a reason, or the one :class:`EventError` naming the input and the field, never
another exception.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, get_args

import pytest

from oracle_gate.review import events as ev
from oracle_gate.review.commands import Command
from oracle_gate.review.events import parse_event
from tests.support.webhooks import WEBHOOKS, as_base_edit, as_fork, load, on_pull_request

SOURCE = "delivery 72d3162e"
STORED = sorted(path.stem for path in WEBHOOKS.glob("*.json") if path.stem != "manifest")
SHA = "c" * 40
EVENT_TYPES = get_args(ev.Event)


def parsed(name: str, payload: dict[str, Any]) -> ev.Event:
    return parse_event(name.partition(".")[0], payload, SOURCE)


#: What each stored example is (the examples of check_run, check_suite.requested, issue_comment and
#: push name no pull request, are on an issue, or push a tag: GitHub sends such deliveries too).
KINDS: dict[str, type] = {
    "check_run.rerequested": ev.Ignored,
    "check_suite.requested": ev.Ignored,
    "check_suite.rerequested": ev.ChecksRerequested,
    "installation.created": ev.InstallationChanged,
    "installation.deleted": ev.InstallationChanged,
    "installation_repositories.added": ev.InstallationChanged,
    "installation_repositories.removed": ev.InstallationChanged,
    "issue_comment.created": ev.Ignored,
    "member.added": ev.AccessChanged,
    "member.edited": ev.AccessChanged,
    "membership.added": ev.AccessChanged,
    "membership.removed": ev.AccessChanged,
    "merge_group.checks_requested": ev.MergeGroupQueued,
    "ping": ev.Ignored,
    "pull_request.labeled": ev.Ignored,
    "pull_request.opened": ev.PullRequestChanged,
    "pull_request.reopened": ev.PullRequestChanged,
    "pull_request.synchronize": ev.PullRequestChanged,
    "pull_request_review.dismissed": ev.ReviewChanged,
    "pull_request_review.submitted": ev.ReviewChanged,
    "push": ev.Ignored,
    "team.edited": ev.AccessChanged,
    "team.removed_from_repository": ev.AccessChanged,
    "workflow_run.completed": ev.Ignored,
}


def test_the_table_covers_every_stored_payload() -> None:
    assert sorted(KINDS) == STORED


@pytest.mark.parametrize("name", STORED)
def test_every_stored_payload_is_its_kind_of_event(name: str) -> None:
    event = parsed(name, load(name))
    assert type(event) is KINDS[name]
    if isinstance(event, ev.Ignored):
        assert event.why
    else:
        assert event.origin.source == SOURCE
        assert event.origin.event == name.partition(".")[0]


def test_an_access_change_names_whose_access_changed_and_where() -> None:
    """Issue 29: a collaborator's permission (``member``), a team's member (``membership``), a team's
    repositories or permission (``team``: any of its members). A new team, or a delivery about
    something else, changes no one's access."""
    edited = parsed("member.edited", load("member.edited"))
    assert isinstance(edited, ev.AccessChanged)
    assert (edited.login, edited.team, edited.origin.repo) == ("octocat", None, "Codertocat/Hello-World")
    removed = parsed("membership.removed", load("membership.removed"))
    assert isinstance(removed, ev.AccessChanged)
    assert (removed.login, removed.team, removed.origin.repo) == ("Codertocat", "Octocoders/github", None)
    assert removed.origin.installation == 1
    team = parsed("team.removed_from_repository", load("team.removed_from_repository"))
    assert isinstance(team, ev.AccessChanged)
    assert (team.login, team.team, team.origin.repo) == (None, "Octocoders/github", "Octocoders/Hello-World")
    created = parsed("team.edited", dict(load("team.edited"), action="created"))
    assert isinstance(created, ev.Ignored)
    assert "team created" in created.why
    gone = dict(load("membership.removed"), member=None)  # a deleted account: any member
    assert parsed("membership.removed", gone) == ev.AccessChanged(removed.origin, None, "Octocoders/github")
    with pytest.raises(ev.EventError, match=r"member\.login"):
        parsed("member.edited", dict(load("member.edited"), member={"login": 7}))


def test_a_pull_request_event_carries_its_number_head_base_and_repository() -> None:
    payload = load("pull_request.opened")
    event = parsed("pull_request", payload)
    assert isinstance(event, ev.PullRequestChanged)
    pull = payload["pull_request"]
    assert (event.number, event.head_sha, event.base_ref, event.from_fork) == (
        pull["number"],
        pull["head"]["sha"],
        pull["base"]["ref"],
        False,
    )
    assert event.origin.app_delivery() == (payload["repository"]["full_name"], payload["installation"]["id"])
    assert event.origin.default_branch == payload["repository"]["default_branch"]
    fork = parsed("pull_request", as_fork(payload))
    assert isinstance(fork, ev.PullRequestChanged)
    assert fork.from_fork


def test_pull_request_target_is_the_same_event_under_its_own_name() -> None:
    event = parse_event("pull_request_target", load("pull_request.synchronize"), SOURCE)
    assert isinstance(event, ev.PullRequestChanged)
    assert event.origin.event == "pull_request_target"


def test_a_base_change_is_judged_and_a_title_edit_is_not() -> None:
    opened = load("pull_request.opened")
    assert isinstance(parsed("pull_request", as_base_edit(opened, "develop", SHA)), ev.PullRequestChanged)
    retitled = dict(opened, action="edited", changes={"title": {"from": "x"}})
    assert isinstance(parsed("pull_request", retitled), ev.Ignored)


def test_a_base_change_carries_when_it_was_made() -> None:
    """v3.9.1: the edited event's ``pull_request.updated_at`` is when the base changed; the other
    actions carry no base change, and a time that is not one is refused, never ignored."""
    edit = as_base_edit(load("pull_request.opened"), "develop", SHA)
    edit["pull_request"]["updated_at"] = "2026-11-30T12:05:00Z"
    event = parsed("pull_request", edit)
    assert isinstance(event, ev.PullRequestChanged)
    assert event.base_changed_at == datetime(2026, 11, 30, 12, 5, tzinfo=UTC)
    pushed = parsed("pull_request", load("pull_request.synchronize"))
    assert isinstance(pushed, ev.PullRequestChanged)
    assert pushed.base_changed_at is None
    edit["pull_request"]["updated_at"] = "yesterday"
    with pytest.raises(ev.EventError, match="updated_at is not an ISO time"):
        parsed("pull_request", edit)


@pytest.mark.parametrize(
    ("body", "command"),
    [
        ("/oracle-gate rerun", Command.RERUN),
        ("\n  /Oracle-Gate EXPLAIN \t\nand more", Command.EXPLAIN),
        ("please /oracle-gate rerun", None),
        ("> /oracle-gate rerun", None),
        ("LGTM\n/oracle-gate rerun", None),
        ("\n" * 100_000 + "/oracle-gate rerun x", None),
    ],
)
def test_a_comment_is_a_command_only_by_the_one_grammar(body: str, command: Command | None) -> None:
    payload = on_pull_request(load("issue_comment.created"), body, login="alice")
    event = parsed("issue_comment", payload)
    if command is None:
        assert isinstance(event, ev.Ignored)
        return
    assert isinstance(event, ev.CommandGiven)
    assert (event.command, event.user, event.comment_id, event.number) == (
        command,
        "alice",
        payload["comment"]["id"],
        payload["issue"]["number"],
    )


def test_a_bots_command_and_a_command_on_an_issue_are_ignored() -> None:
    plain = load("issue_comment.created")
    plain["comment"]["body"] = "/oracle-gate rerun"
    assert isinstance(parsed("issue_comment", plain), ev.Ignored)
    bot = on_pull_request(plain, "/oracle-gate rerun", user_type="Bot")
    assert isinstance(parsed("issue_comment", bot), ev.Ignored)


def with_pulls(name: str, holder: str, pulls: list[Any]) -> dict[str, Any]:
    payload = load(name)
    payload[holder]["pull_requests"] = pulls
    return payload


def test_a_rerequested_check_names_its_pull_requests_and_head() -> None:
    payload = with_pulls("check_run.rerequested", "check_run", [{"number": 7, "base": {"ref": "main"}}])
    event = parsed("check_run", payload)
    assert isinstance(event, ev.ChecksRerequested)
    assert (event.holder, event.check_name, event.head_sha) == (
        "check_run",
        payload["check_run"]["name"],
        payload["check_run"]["head_sha"],
    )
    assert event.pulls == (ev.PullRef(7, "main"),)


def test_a_merge_group_carries_the_queues_commit_and_base() -> None:
    payload = load("merge_group.checks_requested")
    event = parsed("merge_group", payload)
    assert isinstance(event, ev.MergeGroupQueued)
    group = payload["merge_group"]
    assert (event.head_sha, event.base_sha, event.head_ref, event.base_ref) == (
        group["head_sha"],
        group["base_sha"],
        group["head_ref"],
        group["base_ref"],
    )
    assert event.base_branch == group["base_ref"].removeprefix("refs/heads/")


def workflow_run(**run: Any) -> dict[str, Any]:
    payload = load("workflow_run.completed")
    payload["installation"] = {"id": 7}
    payload["workflow_run"].update(run)
    return payload


def test_a_completed_review_run_relays_its_pull_requests() -> None:
    pulls = [{"number": 4, "base": {"ref": "main"}}, {"number": 5}]
    event = parsed("workflow_run", workflow_run(event="pull_request_review", pull_requests=pulls))
    assert isinstance(event, ev.ReviewRelayed)
    assert event.pulls == (ev.PullRef(4, "main"), ev.PullRef(5, None))
    fork = parsed("workflow_run", workflow_run(event="pull_request_review", pull_requests=[]))
    assert isinstance(fork, ev.Ignored)
    assert "fork" in fork.why


def test_the_map_workflows_successful_default_branch_push_run_brings_a_map() -> None:
    good = {"event": "push", "path": ev.DEFAULT_MAP_WORKFLOW, "conclusion": "success", "head_branch": "main"}
    payload = workflow_run(**good)
    payload["repository"]["default_branch"] = "main"
    event = parsed("workflow_run", payload)
    assert isinstance(event, ev.MapRunSucceeded)
    assert event.head_sha == payload["workflow_run"]["head_sha"]
    other = parse_event("workflow_run", payload, SOURCE, map_workflow=".github/workflows/other.yml")
    assert isinstance(other, ev.Ignored)


def test_a_push_to_the_default_branch_moves_the_base() -> None:
    payload = load("push")
    default = payload["repository"]["default_branch"]
    moved = parsed("push", dict(payload, ref=f"refs/heads/{default}", after=SHA))
    assert isinstance(moved, ev.BaseMoved)
    assert (moved.branch, moved.after) == (default, SHA)
    deleted = parsed("push", dict(payload, ref=f"refs/heads/{default}", after="0" * 40))
    assert isinstance(deleted, ev.Ignored)


def test_an_installation_event_tells_the_installations_state() -> None:
    created = parsed("installation.created", load("installation.created"))
    deleted = parsed("installation.deleted", load("installation.deleted"))
    assert isinstance(created, ev.InstallationChanged)
    assert isinstance(deleted, ev.InstallationChanged)
    assert (created.state, deleted.state) == ("active", "deleted")


def command_comment() -> dict[str, Any]:
    return on_pull_request(load("issue_comment.created"), "/oracle-gate rerun")


def variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """Payloads that reach every kind of event (the stored ones and those derived from them)."""
    found = {name: (name.partition(".")[0], load(name)) for name in STORED}
    found["comment"] = ("issue_comment", command_comment())
    ours = with_pulls("check_run.rerequested", "check_run", [{"number": 7, "base": {"ref": "main"}}])
    ours["check_run"]["name"] = "Oracle Gate"
    found["check_run"] = ("check_run", ours)
    found["review_run"] = (
        "workflow_run",
        workflow_run(event="pull_request_review", pull_requests=[{"number": 4}]),
    )
    map_run = workflow_run(
        event="push", path=ev.DEFAULT_MAP_WORKFLOW, conclusion="success", head_branch="main"
    )
    map_run["repository"]["default_branch"] = "main"
    found["map_run"] = ("workflow_run", map_run)
    push = load("push")
    found["push_default"] = (
        "push",
        dict(push, ref=f"refs/heads/{push['repository']['default_branch']}", after=SHA),
    )
    return found


def test_a_parsed_event_cannot_be_changed_afterwards() -> None:
    """Frozen: what one door reads is what the other reads."""
    event = parsed("pull_request", load("pull_request.opened"))
    with pytest.raises(AttributeError):
        event.number = 1  # type: ignore[misc,union-attr]
