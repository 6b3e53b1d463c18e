"""On start the bot asks GitHub (as the App, with its JWT) for recent failed deliveries and has each one
it never received sent again, once; delivered, received, old or later-succeeded ones are left alone."""

from __future__ import annotations

import time

from tests.bot.harness import BotFactory, Origin, pull_request_event
from tests.bot.test_judging import open_pull
from tests.github_fake.server import FakeGitHub

HOUR = 3600.0


def wait_for_redelivery(github: FakeGitHub, listings_before: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = github.log("GET", "/app/hook/deliveries")
        if len(listed) > listings_before and listed[-1].status:
            time.sleep(0.5)  # the POSTs follow the listing at once
            return
        time.sleep(0.05)
    raise AssertionError("the bot never listed its deliveries")


def test_failed_deliveries_never_received_are_redelivered_once(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory()
    head = open_pull(github, origin, 1, "one")
    assert bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main), delivery="got-it")
    bot.wait_idle()
    bot.stop()
    # While it was down (as GitHub lists them, newest last here, newest first in the answer):
    lost = github.add_hook_delivery("lost", "pull_request", 502, action="opened", age=600)
    github.add_hook_delivery("lost", "pull_request", 0, action="opened", age=300)  # a newer failed try
    github.add_hook_delivery("got-it", "pull_request", 502, age=400)  # failed for GitHub, yet received
    github.add_hook_delivery("fine", "pull_request", 202, age=200)
    github.add_hook_delivery("healed", "check_run", 502, age=500)
    github.add_hook_delivery("healed", "check_run", 202, age=100)  # a later attempt succeeded
    github.add_hook_delivery("ancient", "pull_request", 502, age=30 * HOUR)  # beyond the 24 h window
    newest_lost = max(d.id for d in github.state.hook_deliveries if d.guid == "lost")
    listings = len(github.log("GET", "/app/hook/deliveries"))
    bot_factory(state=bot.state)
    wait_for_redelivery(github, listings)
    assert github.state.redelivered == [newest_lost]
    assert lost.id != newest_lost
    for request in github.log(None, "/app/hook/deliveries*"):
        assert (request.authorization or "").startswith("Bearer ey")  # the App's JWT
    assert github.violations == []


def test_nothing_is_asked_when_redelivery_is_off(bot_factory: BotFactory, github: FakeGitHub) -> None:
    github.add_hook_delivery("lost", "pull_request", 502, age=60)
    bot = bot_factory(env={"ORACLE_GATE_REDELIVER_HOURS": "0"})
    time.sleep(1.0)
    assert bot.health()["status"] == "ok"
    assert github.log("GET", "/app/hook/deliveries") == []
    assert github.state.redelivered == []
