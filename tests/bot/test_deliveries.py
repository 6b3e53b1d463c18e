"""What reaches the server and what it makes of it, before any judging: signatures, sizes, events,
redeliveries. Each delivery goes over real HTTP to ``oracle-gate serve`` on loopback."""

from __future__ import annotations

import json

import requests

from oracle_gate.bot.web.signature import sign
from tests.bot.harness import SECRET, Bot, Origin, pull_request_event
from tests.github_fake.server import FakeGitHub
from tests.support.webhooks import load


def test_a_forged_signature_is_refused_and_nothing_is_done(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = origin.pull(1, "forged")
    github.add_pull("octo/repo", 1, head_sha=head, base_sha=origin.main)
    payload = pull_request_event("opened", 1, head, origin.main)
    assert bot.deliver("pull_request", payload, secret=b"not-the-secret").status_code == 401
    assert bot.deliver("pull_request", payload, signed=False).status_code == 401
    body = json.dumps(payload).encode()
    tampered = body.replace(b'"opened"', b'"reopened"')
    answer = requests.post(
        f"{bot.url}/webhook",
        data=tampered,
        headers={
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": "d-1",
            "X-Hub-Signature-256": sign(SECRET, body),
        },
        timeout=10,
    )
    assert answer.status_code == 401
    assert bot.wait_idle()["jobs"] == {}
    assert beyond_startup(github) == []
    assert github.check_runs("octo/repo") == []


def test_an_oversized_body_is_refused_with_413(bot: Bot) -> None:
    big = b"{" + b" " * (26 * 1024 * 1024) + b"}"
    assert bot.deliver("pull_request", big).status_code == 413
    assert bot.health()["jobs"] == {}


def test_unknown_and_informational_events_are_acknowledged_and_ignored(bot: Bot, github: FakeGitHub) -> None:
    for event, payload in [
        ("ping", load("ping")),
        ("installation", load("installation.created")),
        ("star", {"action": "created"}),
        ("pull_request", load("pull_request.labeled")),
    ]:
        answer = bot.deliver(event, payload)
        assert answer.status_code == 202, (event, answer.text)
        assert bot.planned(answer).startswith("ignored"), (event, answer.text)
    assert bot.health()["jobs"] == {}
    assert beyond_startup(github) == []


def test_only_a_non_object_is_answered_400_the_rest_is_planned_by_a_worker(bot: Bot) -> None:
    assert bot.deliver("pull_request", b"not json").status_code == 400
    # JSON of the wrong shape is stored and answered at once; the worker that plans it refuses it.
    answer = bot.deliver("pull_request", {"action": "opened", "pull_request": {}})
    assert answer.status_code == 202
    assert bot.planned(answer).startswith("not a pull_request payload")
    assert bot.health()["jobs"] == {"failed": 1}  # the refused plan; nothing else was queued


def test_healthz_answers_with_the_pool(bot: Bot) -> None:
    health = bot.health()
    assert health["status"] == "ok"
    assert health["pool"]["workers"] == 4


def beyond_startup(github: FakeGitHub) -> list[object]:
    """Every request but the one the bot makes on start (listing failed deliveries, to redeliver)."""
    return [r for r in github.requests if r.operation_id != "apps/list-webhook-deliveries"]
