"""The one event parser behind both front doors (oracle_gate.review.events, pure; issue 17).

Over the real webhook payloads the suite keeps (tests/data/github/webhooks, copied from
@octokit/webhooks-examples) and the variants GitHub's examples lack; then as the adversary: every
field of every payload replaced by a value of the wrong shape must give an event, an
:class:`Ignored` with a reason, or the one :class:`EventError` naming the input and the field, never
another exception.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, get_args

import pytest

from oracle_gate.review import events as ev
from oracle_gate.review.commands import Command
from oracle_gate.review.events import EventError, parse_event, payload_of
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
    "merge_group.checks_requested": ev.MergeGroupQueued,
    "ping": ev.Ignored,
    "pull_request.labeled": ev.Ignored,
    "pull_request.opened": ev.PullRequestChanged,
    "pull_request.reopened": ev.PullRequestChanged,
    "pull_request.synchronize": ev.PullRequestChanged,
    "pull_request_review.dismissed": ev.ReviewChanged,
    "pull_request_review.submitted": ev.ReviewChanged,
    "push": ev.Ignored,
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


# -- the adversary -----------------------------------------------------------------------------------------


def command_comment() -> dict[str, Any]:
    return on_pull_request(load("issue_comment.created"), "/oracle-gate rerun")


def set_at(payload: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(payload)
    node = out
    *parents, last = path.split(".")
    for name in parents:
        node = node[name]
    node[last] = value
    return out


MISSHAPEN = [
    ("pull_request", load("pull_request.opened"), "pull_request.number", "7", "pull_request.number"),
    ("pull_request", load("pull_request.opened"), "pull_request.number", True, "pull_request.number"),
    ("pull_request", load("pull_request.opened"), "pull_request.number", 0, "pull_request.number"),
    ("pull_request", load("pull_request.opened"), "pull_request.number", 2.5, "pull_request.number"),
    ("pull_request", load("pull_request.opened"), "pull_request", None, "pull_request.number is missing"),
    ("pull_request", load("pull_request.opened"), "pull_request.head", None, "pull_request.head.sha"),
    ("pull_request", load("pull_request.opened"), "pull_request.head.sha", "HEAD", "pull_request.head.sha"),
    ("pull_request", load("pull_request.opened"), "pull_request.head.sha", "A" * 40, "pull_request.head.sha"),
    ("pull_request", load("pull_request.opened"), "pull_request.head.sha", "g" * 40, "pull_request.head.sha"),
    ("pull_request", load("pull_request.opened"), "pull_request.head.sha", "a" * 41, "pull_request.head.sha"),
    ("pull_request", load("pull_request.opened"), "repository.full_name", "../etc", "repository.full_name"),
    ("pull_request", load("pull_request.opened"), "repository.full_name", "octo/..", "repository.full_name"),
    ("pull_request", load("pull_request.opened"), "repository.full_name", "a b/c", "repository.full_name"),
    ("pull_request", load("pull_request.opened"), "repository.full_name", None, "repository.full_name"),
    ("pull_request", load("pull_request.opened"), "installation.id", "1", "installation.id"),
    ("issue_comment", command_comment(), "comment.id", "9", "comment.id"),
    ("issue_comment", command_comment(), "comment.user", None, "comment.user.login"),
    ("issue_comment", command_comment(), "issue.number", -3, "issue.number"),
    ("check_run", load("check_run.rerequested"), "check_run.pull_requests", "7", "check_run.pull_requests"),
    (
        "check_run",
        load("check_run.rerequested"),
        "check_run.pull_requests",
        [{"number": "7"}],
        "check_run.pull_requests[0].number",
    ),
    (
        "check_suite",
        load("check_suite.rerequested"),
        "check_suite.head_sha",
        "deadbeef",
        "check_suite.head_sha",
    ),
    (
        "merge_group",
        load("merge_group.checks_requested"),
        "merge_group.head_ref",
        "refs/heads/main",
        "head_ref",
    ),
    ("merge_group", load("merge_group.checks_requested"), "merge_group.base_ref", "main", "base_ref"),
    ("merge_group", load("merge_group.checks_requested"), "merge_group.base_sha", SHA[:12], "base_sha"),
    ("merge_group", load("merge_group.checks_requested"), "merge_group", None, "merge_group.head_ref"),
    ("push", load("push"), "ref", None, "ref is missing"),
    ("installation", load("installation.created"), "installation.id", None, "installation.id"),
]


@pytest.mark.parametrize(
    ("event", "payload", "path", "value", "named"),
    MISSHAPEN,
    ids=[f"{row[0]}:{row[2]}={row[3]!r}"[:60] for row in MISSHAPEN],
)
def test_a_misshapen_field_is_one_line_naming_the_input_and_the_field(
    event: str, payload: dict[str, Any], path: str, value: Any, named: str
) -> None:
    with pytest.raises(EventError) as caught:
        parse_event(event, set_at(payload, path, value), SOURCE)
    message = str(caught.value)
    assert message.startswith(f"{SOURCE}: the {event} payload's ")
    assert named in message
    assert "\n" not in message
    assert len(message) < 300


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request", dict(load("pull_request.opened"), action="frobnicated")),
        ("pull_request", {k: v for k, v in load("pull_request.opened").items() if k != "action"}),
        ("pull_request", dict(load("pull_request.opened"), action=["opened"])),
        ("pull_request_review", dict(load("pull_request_review.submitted"), action="requested")),
        ("issue_comment", set_at(command_comment(), "issue.pull_request", None)),
        ("issue_comment", set_at(command_comment(), "comment.body", None)),
        ("issue_comment", set_at(command_comment(), "comment.body", 5)),
        ("merge_group", dict(load("merge_group.checks_requested"), action="destroyed")),
        ("workflow_run", dict(load("workflow_run.completed"), workflow_run=None)),
        ("installation", dict(load("installation.created"), action="frobnicated")),
        ("marketplace_purchase", {"action": "purchased"}),
        ("pull_request", dict(load("pull_request.opened"), action="x" * 1_000_000)),
        ("pull_request", dict(load("pull_request.opened"), action=list(range(100_000)))),
    ],
)
def test_what_asks_for_nothing_is_ignored_with_a_reason(event: str, payload: dict[str, Any]) -> None:
    result = parse_event(event, payload, SOURCE)
    assert isinstance(result, ev.Ignored)
    assert 0 < len(result.why) < 300


@pytest.mark.parametrize(
    "data",
    [
        b"{not json",
        b"\xff\xfe",
        b"[1, 2]",
        b"null",
        b"[" * 200_000,
        b'{"a": ' * 200_000,
        b'{"n": ' + b"9" * 5000 + b"}",
    ],
)
def test_bytes_that_are_not_a_json_object_are_one_event_error(data: bytes) -> None:
    with pytest.raises(EventError) as caught:
        payload_of(data, "/github/workflow/event.json")
    assert str(caught.value).startswith("/github/workflow/event.json: the event payload is not")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("payload", [None, [], "x", 7])
def test_a_payload_that_is_not_an_object_is_an_event_error(payload: Any) -> None:
    with pytest.raises(EventError, match=f"^{SOURCE}: the pull_request payload is not a JSON object"):
        parse_event("pull_request", payload, SOURCE)


def leaves(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value in the payload (a list's first item stands for all of them)."""
    if path:
        yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, (*path, key))
    elif isinstance(node, list) and node:
        yield from leaves(node[0], (*path, 0))


WRONG_VALUES: list[Any] = [None, "7", 7, True, [], {}, "a" * 40]


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


@pytest.mark.parametrize("variant", sorted(variants()))
def test_any_field_of_the_wrong_shape_gives_an_event_or_the_one_error_never_a_traceback(variant: str) -> None:
    """The adversary's sweep: each field in turn replaced by a null, a string of digits, a number, a
    bool, a list, an object, a SHA."""
    event, payload = variants()[variant]
    outcomes: set[str] = set()
    errors: list[str] = []
    for path in leaves(payload):
        for value in WRONG_VALUES:
            try:
                result = parse_event(event, set_path(payload, path, value), SOURCE)
            except EventError as exc:
                errors.append(str(exc))
                outcomes.add("error")
            else:
                assert isinstance(result, EVENT_TYPES), result
                outcomes.add(type(result).__name__)
    assert all(e.startswith(f"{SOURCE}: the {event} payload") and "\n" not in e for e in errors), errors
    assert outcomes  # the sweep ran


def set_path(payload: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A copy of the payload with the value at ``path`` replaced (the rest shared, not copied)."""
    out = dict(payload)
    node: Any = out
    for key in path[:-1]:
        child = node[key]
        child = dict(child) if isinstance(child, dict) else list(child)
        node[key] = child
        node = child
    node[path[-1]] = value
    return out


def test_a_parsed_event_cannot_be_changed_afterwards() -> None:
    """Frozen: what one door reads is what the other reads."""
    event = parsed("pull_request", load("pull_request.opened"))
    with pytest.raises(AttributeError):
        event.number = 1  # type: ignore[misc,union-attr]
