"""The bot's pure edges: which jobs a payload asks for, the signature check, the config, the manifest.

Each case is a way a pull request's author (or anyone who can reach the webhook URL) could try to
make the bot act on something it should not."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from oracle_gate.bot.app.config import BotConfig, from_environment
from oracle_gate.bot.app.manifest import EVENTS, PERMISSIONS, app_manifest
from oracle_gate.bot.queue import delivery_jobs as events
from oracle_gate.bot.web.signature import is_signed_by, sign
from oracle_gate.errors import UsageError
from oracle_gate.review.events import EventError, parse_event
from tests.support.webhooks import load, on_pull_request

SECRET = b"s3cret"


def test_a_signature_matches_only_its_body_and_secret() -> None:
    body = b'{"action": "opened"}'
    assert is_signed_by(SECRET, body, sign(SECRET, body))
    assert not is_signed_by(SECRET, body + b" ", sign(SECRET, body))
    assert not is_signed_by(b"other", body, sign(SECRET, body))
    assert not is_signed_by(SECRET, body, None)
    assert not is_signed_by(SECRET, body, sign(SECRET, body).removeprefix("sha256="))
    assert not is_signed_by(b"", body, sign(b"", body))  # no secret configured: nothing is signed


def test_an_opened_pull_request_is_one_judge_job_keyed_by_the_pull_request() -> None:
    payload = load("pull_request.opened")
    (job,) = events.plan("pull_request", payload)  # type: ignore[misc]
    assert job.kind == events.JUDGE
    assert job.pr == payload["number"]
    assert job.head == payload["pull_request"]["head"]["sha"]
    assert job.key == f"{payload['repository']['full_name']}#{payload['number']}"
    assert job.installation == payload["installation"]["id"]


def test_a_label_or_a_title_edit_judges_nothing_but_a_base_change_does() -> None:
    assert isinstance(events.plan("pull_request", load("pull_request.labeled")), events.Ignored)
    edited = dict(load("pull_request.opened"), action="edited", changes={"title": {"from": "x"}})
    assert isinstance(events.plan("pull_request", edited), events.Ignored)
    rebased = dict(edited, changes={"base": {"ref": {"from": "dev"}, "sha": {"from": "0" * 40}}})
    assert isinstance(events.plan("pull_request", rebased), list)


def test_a_command_on_a_pull_request_is_a_command_job_under_its_own_key() -> None:
    """Deliveries are planned by a worker (never on the event loop), with the one grammar: chatter
    queues nothing, a command queues a job whose key is its own, so it supersedes no judgement."""
    on_issue = load("issue_comment.created")
    assert isinstance(events.plan("issue_comment", on_issue), events.Ignored)
    chatter = on_pull_request(on_issue, "please /oracle-gate rerun this", login="m")
    assert isinstance(events.plan("issue_comment", chatter), events.Ignored)
    said = on_pull_request(on_issue, "  /Oracle-Gate Rerun \nplease", login="m")
    (job,) = events.plan("issue_comment", said)  # type: ignore[misc]
    assert (job.kind, job.commenter, job.comment) == (events.COMMAND, "m", "/oracle-gate rerun")
    assert job.key == f"{job.repo}#{job.pr}/comment/{job.comment_id}"
    origin = parse_event("issue_comment", said, "d").origin  # type: ignore[union-attr]
    assert job.key != events.judge_pull(origin, job.pr or 0, None).key
    from_a_bot = on_pull_request(on_issue, "/oracle-gate rerun", user_type="Bot")
    assert isinstance(events.plan("issue_comment", from_a_bot), events.Ignored)


def test_planning_a_huge_comment_takes_no_time() -> None:
    """One MiB of the text that made the old regex quadratic (a newline is a line start for every
    position it tried) is planned at once: the grammar looks at one short first line."""
    huge = on_pull_request(load("issue_comment.created"), "\n" * (1 << 20) + "/oracle-gate rerun")
    started = time.perf_counter()
    (job,) = events.plan("issue_comment", huge)  # type: ignore[misc]
    assert time.perf_counter() - started < 0.05
    assert job.kind == events.COMMAND


def test_a_merge_group_is_judged_on_its_own_sha_against_its_base() -> None:
    payload = load("merge_group.checks_requested")
    (job,) = events.plan("merge_group", payload)  # type: ignore[misc]
    assert (job.head, job.base, job.pr) == (
        payload["merge_group"]["head_sha"],
        payload["merge_group"]["base_sha"],
        None,
    )
    forged = json.loads(json.dumps(payload))
    forged["merge_group"]["head_ref"] = "refs/heads/main"
    with pytest.raises(EventError):
        events.plan("merge_group", forged)


def test_a_push_to_another_branch_changes_no_parent() -> None:
    payload = load("push")
    default = payload["repository"]["default_branch"]
    assert isinstance(events.plan("push", dict(payload, ref="refs/heads/not-" + default)), events.Ignored)
    deleted = dict(payload, ref=f"refs/heads/{default}")  # the example deletes: after is 0000...
    assert isinstance(events.plan("push", deleted), events.Ignored)
    on_default = dict(deleted, after="b" * 40)
    (job,) = events.plan("push", on_default)  # type: ignore[misc]
    assert (job.kind, job.base) == (events.DEFAULT_PUSH, "b" * 40)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda p: p["pull_request"]["head"].update(sha="HEAD"),
        lambda p: p["pull_request"]["head"].update(sha="-" * 40),
        lambda p: p.pop("installation"),
        lambda p: p["pull_request"].update(number=True),
        lambda p: p["repository"].update(full_name="../../etc"),
        lambda p: p["repository"].update(full_name="../etc"),
        lambda p: p["repository"].update(full_name="octo/.."),
        lambda p: p["repository"].update(full_name="octo/re po"),
    ],
)
def test_a_payload_github_never_sends_is_refused(mutate: object) -> None:
    payload = load("pull_request.opened")
    mutate(payload)  # type: ignore[operator]
    with pytest.raises(EventError):
        events.plan("pull_request", payload)


def test_a_job_survives_its_json_round_trip() -> None:
    job = events.Job(events.JUDGE, "o/r", 1, "o/r#2", pr=2, head="a" * 40, commenter="x", comment_id=9)
    assert events.Job.from_json(job.to_json()) == job


def test_the_config_keeps_its_secrets_out_of_repr(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    config = from_environment(
        {
            "ORACLE_GATE_APP_ID": "12",
            "ORACLE_GATE_PRIVATE_KEY_FILE": str(key),
            "ORACLE_GATE_WEBHOOK_SECRET": "hunter2",
            "ORACLE_GATE_API_URL": "https://ghe.example/api/v3",
        }
    )
    assert isinstance(config, BotConfig)
    assert "hunter2" not in repr(config)
    assert "AAAA" not in repr(config)
    assert config.clone_url("o/r") == "https://ghe.example/o/r.git"


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({}, "ORACLE_GATE_APP_ID"),
        ({"ORACLE_GATE_APP_ID": "\u00b2"}, "ORACLE_GATE_APP_ID"),  # "²": isdigit(), but not a number
        ({"ORACLE_GATE_APP_ID": "1"}, "ORACLE_GATE_PRIVATE_KEY_FILE"),
        ({"ORACLE_GATE_APP_ID": "1", "ORACLE_GATE_PRIVATE_KEY_FILE": "/nonexistent"}, "cannot read"),
    ],
)
def test_a_missing_setting_is_one_line_naming_it(env: dict[str, str], names: str) -> None:
    with pytest.raises(UsageError, match=names):
        from_environment(env)


def test_the_manifest_asks_for_the_permissions_and_events_the_bot_uses() -> None:
    manifest = json.loads(app_manifest("https://bot.example/webhook"))
    assert manifest["default_permissions"] == PERMISSIONS
    assert manifest["default_permissions"]["checks"] == "write"
    assert manifest["default_permissions"]["contents"] == "read"
    assert set(manifest["default_events"]) == set(EVENTS) <= events.PLANNED_EVENTS
    # issue 29: an approver's access changing re-judges what their approval made pass
    assert {"member", "membership", "team"} <= set(manifest["default_events"])
    assert manifest["hook_attributes"]["url"] == "https://bot.example/webhook"
    with pytest.raises(UsageError):
        app_manifest("javascript:alert(1)")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ORACLE_GATE_MAP_WORKFLOW", "../../etc/map.yml"),
        ("ORACLE_GATE_MAP_WORKFLOW", ".github/workflows/sub/map.yml"),
        ("ORACLE_GATE_MAP_ARTIFACT", "map/../x"),
        ("ORACLE_GATE_PUBLIC_URL", "javascript:alert(1)"),
        ("ORACLE_GATE_PUBLIC_URL", "https://bot.example/?q=1"),
        ("ORACLE_GATE_REDELIVER_HOURS", "73"),
        ("ORACLE_GATE_SHUTDOWN_GRACE", "0"),
    ],
)
def test_a_bad_bot_setting_is_one_line_naming_it(tmp_path: Path, name: str, value: str) -> None:
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    env = {
        "ORACLE_GATE_APP_ID": "1",
        "ORACLE_GATE_PRIVATE_KEY_FILE": str(key),
        "ORACLE_GATE_WEBHOOK_SECRET": "s",
    }
    assert from_environment(env).map_artifact == "oracle-gate-map"
    with pytest.raises(UsageError, match=name) as caught:
        from_environment({**env, name: value})
    assert "\n" not in str(caught.value)


def _workflow_run(**run: object) -> dict[str, object]:
    payload = load("workflow_run.completed")
    payload["installation"] = {"id": 7}  # GitHub adds it to an App's deliveries; the example lacks it
    good = {
        "path": events.DEFAULT_MAP_WORKFLOW,
        "event": "push",
        "conclusion": "success",
        "head_branch": "main",
    }
    payload["workflow_run"].update({**good, **run})
    return dict(payload)


@pytest.mark.parametrize(
    ("run", "why"),
    [
        ({"path": ".github/workflows/ci.yml"}, "not of the map workflow"),
        ({"path": None}, "not of the map workflow"),
        ({"event": "pull_request"}, "neither relays a review nor brings a map"),
        ({"conclusion": "failure"}, "concluded 'failure'"),
        ({"head_branch": "agent"}, "other than the default"),
    ],
)
def test_only_the_map_workflows_successful_default_branch_push_run_brings_a_map(
    run: dict[str, object], why: str
) -> None:
    assert isinstance(events.plan("workflow_run", _workflow_run()), list)
    ignored = events.plan("workflow_run", _workflow_run(**run))
    assert isinstance(ignored, events.Ignored)
    assert why in ignored.why


def test_a_bot_setting_in_non_ascii_digits_is_a_usage_error(tmp_path: Path) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` raises: a setting like that is one clean line."""
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    env = {
        "ORACLE_GATE_APP_ID": "12",
        "ORACLE_GATE_PRIVATE_KEY_FILE": str(key),
        "ORACLE_GATE_WEBHOOK_SECRET": "hunter2",
        "ORACLE_GATE_CONCURRENCY": "\u00b2",
    }
    with pytest.raises(UsageError, match="ORACLE_GATE_CONCURRENCY"):
        from_environment(env)
