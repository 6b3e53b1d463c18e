"""Scores in their own pool (issue 30, item 7): a score never holds a judging worker.

Two pull requests whose tests sleep are scored (each score runs head's tests for as long as the
wall limit lets it); a third, ordinary pull request is opened while they run, and its verdict must
come as fast as on an idle bot. Before the score pool, the two scores held both judging workers
and the third verdict waited for one of them: about 53 s in the issue, up to the wall limit here.
"""

from __future__ import annotations

import time

import pytest

from tests.bot.harness import BotFactory, Origin, pull_request_event
from tests.bot.test_crash_posting import wait_for
from tests.bot.test_scoring import CHECK, SCORE_CHECK, SCORING, measured, open_pull, runs_named
from tests.github_fake.server import FakeGitHub

__all__ = ["measured"]  # the fixture, used by name below

SLEEPY = "def f():\n    import time\n    time.sleep(120)\n    return 2\n"
ORDINARY = "def f():\n    return 3\n"

#: Scores and verdicts side by side in the server's two pools.
pytestmark = pytest.mark.server


def test_two_sleeping_scores_do_not_delay_an_ordinary_verdict(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    bot = bot_factory(concurrency=2, env={**SCORING, "ORACLE_GATE_SCORE_WALL_SECONDS": "90"})
    for number in (1, 2):
        head = open_pull(github, measured, number, {"src/app.py": SLEEPY})
        assert (
            bot.deliver("pull_request", pull_request_event("opened", number, head, measured.main)).status_code
            == 202
        )

    def scoring() -> bool:
        verdicts = [r for r in runs_named(github, CHECK) if r.status == "completed"]
        return len(verdicts) == 2 and any(r.status == "in_progress" for r in runs_named(github, SCORE_CHECK))

    wait_for(scoring, "both verdicts posted and a score running", timeout=60)
    time.sleep(2)  # the second score has had its chance to take a worker
    ordinary = open_pull(github, measured, 3, {"src/app.py": ORDINARY})
    started = time.monotonic()
    assert (
        bot.deliver("pull_request", pull_request_event("opened", 3, ordinary, measured.main)).status_code
        == 202
    )

    def judged() -> bool:
        return any(r.head_sha == ordinary and r.status == "completed" for r in runs_named(github, CHECK))

    wait_for(judged, "the ordinary pull request's verdict", timeout=80)
    waited = time.monotonic() - started
    assert waited < 15, f"the ordinary verdict waited {waited:.1f} s behind two sleeping scores"
    # The score pool (one worker by default) runs one score at a time; the other waits its turn.
    assert sum(r.status == "in_progress" for r in runs_named(github, SCORE_CHECK)) <= 1
