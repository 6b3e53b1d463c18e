"""The one event parser as the adversary reads it (oracle_gate.review.events; issue 17).

Every field of every payload replaced by a value of the wrong shape must give an event, an
:class:`Ignored` with a reason, or the one :class:`EventError` naming the input and the field, never
another exception; bytes that are not a JSON object are the same error.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from oracle_gate.review import events as ev
from oracle_gate.review.events import EventError, parse_event, payload_of
from tests.support.webhooks import load
from tests.unit.test_review_events import EVENT_TYPES, SHA, SOURCE, command_comment, variants


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
