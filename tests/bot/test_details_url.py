"""The check's ``details_url``: the server's public URL plus an unguessable token, serving the stored
explanation as escaped text (the explanation quotes paths and test names a pull request chose)."""

from __future__ import annotations

import requests

from oracle_gate.bot.web.server import explanation_page
from tests.bot.harness import BotFactory, Origin, pull_request_event
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub

PUBLIC = "https://oracle-gate.example.org/bot"


def test_the_check_links_its_explanation_served_by_the_bot(
    bot_factory: BotFactory, github: FakeGitHub, origin: Origin
) -> None:
    bot = bot_factory(env={"ORACLE_GATE_PUBLIC_URL": PUBLIC})
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert (run.details_url or "").startswith(PUBLIC + "/explanations/")
    page = requests.get(bot.url + (run.details_url or "")[len(PUBLIC) :], timeout=10)
    assert page.status_code == 200
    assert page.headers["Content-Security-Policy"] == "default-src 'none'"
    assert f"{REPO}#1 at {head[:12]}" in page.text
    assert "no map yet" in page.text  # the verdict's own explanation
    # Unknown or malformed tokens are not found (and never reach the database as anything else).
    for guess in ("x" * 32, "short", "%3Cscript%3E" * 3):
        assert requests.get(f"{bot.url}/explanations/{guess}", timeout=10).status_code == 404


def test_no_public_url_no_details_url(bot_factory: BotFactory, github: FakeGitHub, origin: Origin) -> None:
    bot = bot_factory()
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.details_url is None


def test_the_page_escapes_everything_a_pull_request_wrote() -> None:
    page = explanation_page("o/r", 1, "a" * 40, "`src/<script>alert(1)</script>.py` & <img src=x>")
    assert "<script>" not in page
    assert "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
