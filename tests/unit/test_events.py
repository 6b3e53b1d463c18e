"""What each workflow event asks the Action to do (oracle_gate.action.events over the one parse of
oracle_gate.review.events, pure)."""

from __future__ import annotations

import copy

import pytest

from oracle_gate.action.events import Command, Ignore, Judge
from oracle_gate.review.events import EventError, payload_of
from tests.support.webhooks import action_plan, as_base_edit, as_fork, as_title_edit, load, on_pull_request


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened"])
def test_pull_request_events_are_judged_on_the_test_merge_commit(action: str) -> None:
    """pull_request events judge the PR, using GITHUB_SHA (the test merge) and the PR head for the check."""
    payload = load(f"pull_request.{action}")
    plan = action_plan("pull_request", payload, "Oracle Gate")
    assert isinstance(plan, Judge)
    assert plan.pr.number == payload["pull_request"]["number"]
    assert plan.pr.head_sha == payload["pull_request"]["head"]["sha"]
    assert plan.pr.merge_ref == f"refs/pull/{plan.pr.number}/merge"
    assert plan.use_event_sha
    assert not plan.pr.from_fork


def test_pull_request_target_fetches_the_merge_ref_instead_of_using_github_sha() -> None:
    """Under pull_request_target GITHUB_SHA is the base tip, so the merge ref must be fetched."""
    plan = action_plan("pull_request_target", load("pull_request.opened"), "Oracle Gate")
    assert isinstance(plan, Judge)
    assert not plan.use_event_sha


def test_a_fork_pull_request_is_recognised() -> None:
    """A head repository other than the base repository marks the PR as coming from a fork."""
    plan = action_plan("pull_request", as_fork(load("pull_request.opened")), "Oracle Gate")
    assert isinstance(plan, Judge)
    assert plan.pr.from_fork


def test_a_label_or_a_title_edit_judges_nothing_but_a_base_change_does() -> None:
    """The bot's rule, now the Action's too (one parser): the Action once re-judged on ``labeled``."""
    assert isinstance(action_plan("pull_request", load("pull_request.labeled")), Ignore)
    opened = load("pull_request.opened")
    assert isinstance(action_plan("pull_request_target", as_title_edit(opened, "old")), Ignore)
    plan = action_plan("pull_request_target", as_base_edit(opened, "develop", "0" * 40))
    assert isinstance(plan, Judge)
    assert plan.pr.base_ref == opened["pull_request"]["base"]["ref"]


def test_closed_pull_requests_are_ignored() -> None:
    """A closed PR has nothing left to judge."""
    payload = copy.deepcopy(load("pull_request.opened"))
    payload["action"] = "closed"
    assert isinstance(action_plan("pull_request", payload, "Oracle Gate"), Ignore)


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("/oracle-gate rerun", "rerun"),
        ("  /oracle-gate explain  \nplease", "explain"),
        ("/Oracle-Gate RERUN", "rerun"),
    ],
)
def test_commands_in_pull_request_comments(body: str, name: str) -> None:
    """A comment starting with /oracle-gate rerun|explain on a PR is a command."""
    payload = on_pull_request(load("issue_comment.created"), body, login="alice")
    plan = action_plan("issue_comment", payload, "Oracle Gate")
    assert isinstance(plan, Command)
    assert (plan.name, plan.user) == (name, "alice")
    assert plan.comment_id == payload["comment"]["id"]
    assert plan.pr.number == payload["issue"]["number"]


@pytest.mark.parametrize(
    "body",
    ["please /oracle-gate rerun", "/oracle-gate", "/oracle-gate rerunx", "LGTM", "/oracle-gate rerun please"],
)
def test_other_comments_are_not_commands(body: str) -> None:
    """Only a first line that is exactly the command counts (oracle_gate.review.commands)."""
    payload = on_pull_request(load("issue_comment.created"), body)
    assert isinstance(action_plan("issue_comment", payload, "Oracle Gate"), Ignore)


def test_comments_on_plain_issues_and_from_bots_are_ignored() -> None:
    """The real example comment is on an issue, not a PR; bots cannot drive the gate."""
    assert isinstance(action_plan("issue_comment", load("issue_comment.created"), "Oracle Gate"), Ignore)
    bot = on_pull_request(load("issue_comment.created"), "/oracle-gate rerun", user_type="Bot")
    assert isinstance(action_plan("issue_comment", bot, "Oracle Gate"), Ignore)


def test_a_rerequested_check_run_of_ours_is_judged_again() -> None:
    """check_run rerequested with our name and a PR re-runs the gate for that PR."""
    payload = copy.deepcopy(load("check_run.rerequested"))
    run = payload["check_run"]
    run["name"] = "Oracle Gate"
    run["pull_requests"] = [
        {
            "number": 7,
            "id": 1,
            "url": "https://api.github.com/repos/o/r/pulls/7",
            "head": {"ref": "b", "sha": run["head_sha"], "repo": {}},
            "base": {"ref": "main", "sha": "0" * 40, "repo": {}},
        }
    ]
    plan = action_plan("check_run", payload, "Oracle Gate")
    assert isinstance(plan, Judge)
    assert (plan.pr.number, plan.pr.head_sha) == (7, run["head_sha"])


def test_a_rerequested_check_run_without_pull_request_or_of_another_name_is_ignored() -> None:
    """GitHub leaves pull_requests empty for forks; other checks are not ours."""
    payload = load("check_run.rerequested")
    assert isinstance(action_plan("check_run", payload, payload["check_run"]["name"]), Ignore)
    assert isinstance(action_plan("check_run", payload, "Oracle Gate"), Ignore)


def test_unknown_events_are_ignored_with_a_reason() -> None:
    """Events the gate does not handle say so instead of failing."""
    plan = action_plan("ping", load("ping"), "Oracle Gate")
    assert isinstance(plan, Ignore)
    assert "ping" in plan.why


def test_a_rerequested_check_run_is_judged_on_the_fetched_merge_ref() -> None:
    """Only pull_request itself has the test merge as GITHUB_SHA."""
    payload = copy.deepcopy(load("check_run.rerequested"))
    payload["check_run"]["pull_requests"] = [{"number": 7}]
    plan = action_plan("check_run", payload, payload["check_run"]["name"])
    assert isinstance(plan, Judge)
    assert (plan.pr.number, plan.use_event_sha) == (7, False)


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request", {"action": "opened", "pull_request": {}}),
        ("pull_request", {"action": "opened", "pull_request": {"number": "seven"}}),
        (
            "issue_comment",
            {
                "action": "created",
                "issue": {"pull_request": {"url": "u"}},
                "comment": {"body": "/oracle-gate rerun"},
            },
        ),
    ],
)
def test_a_payload_lacking_what_its_event_carries_is_an_event_error(
    event: str, payload: dict[str, object]
) -> None:
    with pytest.raises(EventError, match=f"^event.json: the {event} payload's "):
        action_plan(event, payload, "Oracle Gate")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{not json", "is not valid JSON"),
        (b"\xff\xfe", "is not valid JSON"),
        (b"[1, 2]", "is not a JSON object"),
    ],
)
def test_a_payload_that_is_not_a_json_object_is_an_event_error(data: bytes, message: str) -> None:
    with pytest.raises(EventError, match=message):
        payload_of(data, "event.json")
    assert payload_of(b'{"action": "opened"}', "event.json") == {"action": "opened"}
