"""Per-installation rate-limit awareness: when GitHub's answers say an installation's budget is nearly
spent, the next job of that installation waits for the reset instead of spending the rest."""

from __future__ import annotations

import time

from oracle_gate.bot.app.ratelimit import Budgets
from tests.bot.harness import Bot, Origin, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub


class Requester:
    def __init__(self, remaining: int, reset: float) -> None:
        self.rate_limiting = (remaining, 5000)
        self.rate_limiting_resettime = reset


def test_budgets_pause_only_a_nearly_spent_installation_until_its_reset() -> None:
    now = 1_000_000.0
    budgets = Budgets(floor=100, max_pause=60, clock=lambda: now)
    budgets.note(1, Requester(99, now + 30))
    budgets.note(2, Requester(100, now + 30))
    budgets.note(3, Requester(0, now + 3600))
    budgets.note(4, Requester(-1, 0))  # no answer seen yet: nothing known
    assert [budgets.pause_for(i) for i in (1, 2, 3, 4, 5)] == [30, 0, 60, 0, 0]
    budgets.note(1, Requester(5, now - 1))  # the reset has passed
    assert budgets.pause_for(1) == 0


def test_a_job_waits_for_the_reset_of_a_nearly_spent_budget(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    reset = int(time.time()) + 15  # the first judgement may take many seconds on a loaded machine
    github.rate_limit_headers = {"X-RateLimit-Remaining": "7", "X-RateLimit-Reset": str(reset)}
    first = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, first, origin.main))
    bot.wait_idle()
    second = open_pull(github, origin, 2, "two")
    sent, left = time.monotonic(), reset - time.time()
    assert left > 2  # the budget is still spent when the second pull request arrives
    bot.deliver("pull_request", pull_request_event("opened", 2, second, origin.main))
    bot.wait_idle()
    (asked,) = github.log("GET", f"/repos/{REPO}/pulls/2")
    assert asked.at - sent >= left - 0.5  # it waited for the reset before asking anything
    assert len(github.check_runs(REPO)) == 2
