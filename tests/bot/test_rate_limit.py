"""Per-installation rate-limit awareness: when GitHub's answers say an installation's budget is nearly
spent, the next job of that installation waits for the reset instead of spending the rest."""

from __future__ import annotations

from oracle_gate.bot.app.ratelimit import Budgets
from tests.bot.harness import Origin, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub
from tests.support.bot_in_process import InProcessBot
from tests.support.clock import FakeClock


class Requester:
    def __init__(self, remaining: int, reset: float) -> None:
        self.rate_limiting = (remaining, 5000)
        self.rate_limiting_resettime = reset


def test_budgets_pause_only_a_nearly_spent_installation_until_its_reset() -> None:
    now = 1_000_000.0
    budgets = Budgets(floor=100, max_pause=60, clock=FakeClock(now))
    budgets.note(1, Requester(99, now + 30))
    budgets.note(2, Requester(100, now + 30))
    budgets.note(3, Requester(0, now + 3600))
    budgets.note(4, Requester(-1, 0))  # no answer seen yet: nothing known
    assert [budgets.pause_for(i) for i in (1, 2, 3, 4, 5)] == [30, 0, 60, 0, 0]
    budgets.note(1, Requester(5, now - 1))  # the reset has passed
    assert budgets.pause_for(1) == 0


def test_a_job_waits_for_the_reset_of_a_nearly_spent_budget(
    bot: InProcessBot, github: FakeGitHub, origin: Origin
) -> None:
    """The bot's clock is the test's: the wait passes at once, and the test sees what was waited for
    (how long, and whether anything of the second pull request was asked before)."""
    reset = int(bot.clock.now()) + 15
    github.rate_limit_headers = {"X-RateLimit-Remaining": "7", "X-RateLimit-Reset": str(reset)}
    first = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, first, origin.main))
    bot.wait_idle()
    second = open_pull(github, origin, 2, "two")
    left = reset - bot.clock.now()
    assert left > 2  # the budget is still spent when the second pull request arrives
    waits: list[tuple[float, int]] = []  # (seconds, requests about pull request 2 made before)
    bot.clock.on_sleep = lambda seconds: waits.append(
        (seconds, len(github.log("GET", f"/repos/{REPO}/pulls/2")))
    )
    bot.deliver("pull_request", pull_request_event("opened", 2, second, origin.main))
    bot.wait_idle()
    assert len(github.log("GET", f"/repos/{REPO}/pulls/2")) == 1
    # it waited for the reset before asking anything
    assert sum(s for s, asked in waits if asked == 0) >= left - 0.5
    assert len(github.check_runs(REPO)) == 2
