"""The status page and /metrics of a real ``oracle-gate serve``: closed unless a setting opens them,
refused without the token, served with it; the page rendered by a real headless Chromium (a
screenshot that is not blank and shows the chart's colours, and the DOM holding the counts)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
import requests

from oracle_gate.bot.queue.store import Store
from oracle_gate.bot.web import chart
from tests.bot.harness import INSTALLATION, Bot, BotFactory, Origin, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.github_fake.server import FakeGitHub
from tests.support.exposition import at, parse_exposition
from tests.support.png import read_png

TOKEN = "status-token-for-the-bot-tier"  # noqa: S105 - a test's token
HOSTILE_REPO = 'evil/<script>alert("x")</script>'
# (day, verdict) per repository: W47 4 verdicts (1 fail, 2 unscored), W48 5 (2 fail, 1 no_map), W49 3.
SEEDED = {
    "octo/seeded": [
        ("2026-11-16", "pass_clean"),
        ("2026-11-17", "fail"),
        ("2026-11-18", "unscored"),
        ("2026-11-19", "unscored"),
        ("2026-11-23", "fail"),
        ("2026-11-24", "fail"),
        ("2026-11-25", "no_map"),
        ("2026-11-26", "pass_clean"),
        ("2026-11-27", "pass_clean"),
        ("2026-11-30", "pass_clean"),
        ("2026-12-01", "unscored"),
        ("2026-12-01", "pass_clean"),
    ],
    HOSTILE_REPO: [("2026-12-01", "fail")],
}
TRIAGE = '[{"nodeid": "tests/test_flaky.py::test_<b>net</b>", "why": "no owner"}]'


def seed(state: Path) -> None:
    """Verdicts as an earlier run of the bot recorded them (the schema made by the Store itself)."""
    Store(state / "oracle-gate.sqlite3").close()
    with sqlite3.connect(state / "oracle-gate.sqlite3") as db:
        for repo, rows in SEEDED.items():
            for n, (day, verdict) in enumerate(rows):
                db.execute(
                    "INSERT INTO verdicts (repo, pr, parent, head, verdict, check_run_id, installation, at, "
                    "seconds, triage, surface_share) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)",
                    (
                        repo,
                        n + 1,
                        "a" * 40,
                        f"{n:040x}",
                        verdict,
                        INSTALLATION,
                        at(day),
                        1.5 * n,
                        TRIAGE,
                        0.25,
                    ),
                )


def get(bot: Bot, path: str, **headers: str) -> requests.Response:
    return requests.get(f"{bot.url}{path}", headers=headers, timeout=10)


def opened(bot_factory: BotFactory, tmp_path: Path, **env: str) -> Bot:
    state = tmp_path / "state"
    seed(state)
    return bot_factory(state=state, env=env)


PATHS = ("/status", "/status/octo/seeded", "/metrics")


def test_the_page_and_metrics_do_not_exist_by_default(bot_factory: BotFactory, tmp_path: Path) -> None:
    bot = opened(bot_factory, tmp_path)
    for path in PATHS:
        assert get(bot, path).status_code == 404, path
        assert get(bot, f"{path}?token={TOKEN}", Authorization=f"Bearer {TOKEN}").status_code == 404


def test_without_the_token_they_are_refused_with_it_served(bot_factory: BotFactory, tmp_path: Path) -> None:
    bot = opened(bot_factory, tmp_path, ORACLE_GATE_STATUS_TOKEN=TOKEN)
    for path in PATHS:
        refused = get(bot, path)
        assert refused.status_code == 401, path
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert get(bot, path, Authorization="Bearer wrong-token-wrong-token").status_code == 403
        assert get(bot, path + "?token=wrong").status_code == 403
        assert get(bot, path, Authorization=f"Basic {TOKEN}").status_code == 401
        assert get(bot, path, Authorization=f"Bearer {TOKEN}").status_code == 200, path
        assert get(bot, f"{path}?token={TOKEN}").status_code == 200, path
    page = get(bot, "/status/octo/seeded", Authorization=f"Bearer {TOKEN}")
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert "script-src" not in page.headers["content-security-policy"]
    assert ">2026-W48</td><td>5</td><td>2</td><td>2</td><td>1</td><td>40%</td><td>20%</td>" in page.text
    assert "tests/test_flaky.py::test_&lt;b&gt;net&lt;/b&gt;" in page.text
    assert "25.0%" in page.text
    assert get(bot, "/status/octo/unknown", Authorization=f"Bearer {TOKEN}").status_code == 404


def test_the_links_carry_no_token_and_every_click_after_the_first_is_served(
    bot_factory: BotFactory, tmp_path: Path
) -> None:
    """Issue 31's papercut: opened with ``?token=``, the index's links lead somewhere a browser is let
    in (a cookie holding a digest of the token, ``HttpOnly``, ``SameSite=Strict``), and no link puts
    the token in an address (history, logs). A request with neither cookie nor token is still 401."""
    bot = opened(bot_factory, tmp_path, ORACLE_GATE_STATUS_TOKEN=TOKEN)
    browser = requests.Session()
    first = browser.get(f"{bot.url}/status?token={TOKEN}", timeout=10)
    assert first.status_code == 200
    assert "token=" not in first.text
    assert TOKEN not in first.headers["set-cookie"]
    assert "HttpOnly" in first.headers["set-cookie"]
    assert "SameSite=strict" in first.headers["set-cookie"]
    links = re.findall(r'href="([^"]+)"', first.text)
    assert "/status/octo/seeded" in links
    assert browser.get(f"{bot.url}/status/octo/seeded", timeout=10).status_code == 200
    for link in links:  # the hostile name's link holds a '/': no repository's page, but let in
        assert browser.get(f"{bot.url}{link}", timeout=10).status_code in (200, 404), link
    assert get(bot, "/status/octo/seeded").status_code == 401
    network = opened(bot_factory, tmp_path / "network", ORACLE_GATE_STATUS_NETWORKS="127.0.0.0/8")
    assert "set-cookie" not in get(network, "/status").headers  # no token given: no cookie to give


def test_a_hostile_repository_name_is_text(bot_factory: BotFactory, tmp_path: Path) -> None:
    bot = opened(bot_factory, tmp_path, ORACLE_GATE_STATUS_TOKEN=TOKEN)
    index = get(bot, "/status", Authorization=f"Bearer {TOKEN}").text
    assert "<script>" not in index
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in index
    page = get(bot, "/status/evil/%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E", Authorization=f"Bearer {TOKEN}")
    assert page.status_code == 404  # a name with a slash in it is not one repository's page
    page = get(bot, '/status/evil/<script>alert("x")<', Authorization=f"Bearer {TOKEN}")
    assert "<script>" not in page.text


def test_a_listed_network_needs_no_token(bot_factory: BotFactory, tmp_path: Path) -> None:
    bot = opened(bot_factory, tmp_path, ORACLE_GATE_STATUS_NETWORKS="127.0.0.0/8")
    assert get(bot, "/status/octo/seeded").status_code == 200
    assert get(bot, "/metrics").status_code == 200
    other = opened(bot_factory, tmp_path / "other", ORACLE_GATE_STATUS_NETWORKS="10.0.0.0/8")
    assert get(other, "/metrics").status_code == 401


def test_a_forwarded_address_is_believed_only_from_a_named_proxy(
    bot_factory: BotFactory, tmp_path: Path
) -> None:
    """TRUST.md 16: with 10.0.0.0/8 open, a request from loopback claiming ``X-Forwarded-For:
    10.1.2.3`` is still a request from loopback (uvicorn's default believed it from 127.0.0.1);
    once the operator names loopback as a proxy, the address it forwards is the client's."""
    forwarded = {"X-Forwarded-For": "10.1.2.3"}
    bot = opened(bot_factory, tmp_path, ORACLE_GATE_STATUS_NETWORKS="10.0.0.0/8")
    for path in PATHS:
        assert get(bot, path, **forwarded).status_code == 401, path
    proxied = opened(
        bot_factory,
        tmp_path / "proxied",
        ORACLE_GATE_STATUS_NETWORKS="10.0.0.0/8",
        ORACLE_GATE_FORWARDED_ALLOW_IPS="127.0.0.1",
    )
    for path in PATHS:
        assert get(proxied, path, **forwarded).status_code == 200, path
    assert get(proxied, "/metrics", **{"X-Forwarded-For": "192.0.2.7"}).status_code == 401
    assert get(proxied, "/metrics").status_code == 401  # the proxy itself is not in 10.0.0.0/8


def test_metrics_count_deliveries_jobs_verdicts_and_judging_time(
    bot_factory: BotFactory, tmp_path: Path, github: FakeGitHub, origin: Origin
) -> None:
    origin.repo.write(
        "freeze.json",
        '{"schema": 1, "frozen": [{"nodeid": "tests/test_a.py::t", '
        f'"reason": "flaky", "bound_sha": "{origin.main}"}}]}}',
    )
    origin.repo.git("add", "freeze.json")
    origin.repo.git("commit", "-q", "-m", "freeze")
    origin.main = origin.repo.git("rev-parse", "HEAD")
    head = origin.pull(1, "one")
    github.add_pull("octo/repo", 1, head_sha=head, base_sha=origin.main)
    bot = bot_factory(env={"ORACLE_GATE_STATUS_TOKEN": TOKEN})
    assert bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main)).status_code == 202
    bot.wait_idle()
    text = get(bot, "/metrics", Authorization=f"Bearer {TOKEN}")
    assert text.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = {(n, labels): v for _, s in parse_exposition(text.text).values() for n, labels, v in s}
    assert samples[("oracle_gate_deliveries_received_total", '{event="pull_request"}')] == 1
    assert samples[("oracle_gate_jobs", '{state="done"}')] == 1
    assert samples[("oracle_gate_queue_depth", "")] == 0
    assert samples[("oracle_gate_verdicts_total", '{outcome="no_map"}')] == 1  # no map: unscored
    assert samples[("oracle_gate_judging_seconds_count", "")] == 1
    page = get(bot, "/status/octo/repo", Authorization=f"Bearer {TOKEN}").text
    assert "tests/test_a.py::t</code></td><td>no owner" in page  # the parent's freeze, noted when judged
    assert "src/app.py" not in page
    assert "def f()" not in page


def pull_to_own_branch(github: FakeGitHub, origin: Origin, number: int, freeze: str) -> str:
    """A pull request to ``mine``, a branch of the author's own whose freeze is ``freeze``: its head."""
    r = origin.repo
    r.git("checkout", "-q", "--detach", origin.main)
    r.write("freeze.json", freeze)
    r.git("commit", "-q", "-am", "the author's own freeze")
    mine = r.git("rev-parse", "HEAD")
    r.git("update-ref", "refs/heads/mine", mine)
    r.write("src/app.py", "def f():\n    return 'mine'\n")
    r.git("commit", "-q", "-am", "the author's change")
    head = r.git("rev-parse", "HEAD")
    r.git("checkout", "-q", "--detach", mine)
    r.git("merge", "-q", "--no-ff", "-m", "merge", head)
    r.git("update-ref", f"refs/pull/{number}/head", head)
    r.git("update-ref", f"refs/pull/{number}/merge", r.git("rev-parse", "HEAD"))
    r.git("checkout", "-q", "main")
    github.add_pull("octo/repo", number, head_sha=head, base_sha=mine, base_ref="mine")
    return head


def test_verdicts_on_a_base_that_is_not_allowed_are_counted_apart(
    bot_factory: BotFactory, tmp_path: Path, github: FakeGitHub, origin: Origin
) -> None:
    """Issue 29: the agent's pull requests to a branch of its own (posted as ``Oracle Gate (base:
    mine)``) neither add to the required check's trend and ``/metrics`` counters nor put their own
    freeze's entries on the triage list; they are shown apart."""
    owned = {"nodeid": "tests/test_a.py::t", "reason": "flaky", "bound_sha": origin.main, "owner": "alice"}
    origin.repo.write("freeze.json", json.dumps({"schema": 1, "frozen": [owned]}))
    origin.repo.git("add", "freeze.json")
    origin.repo.git("commit", "-q", "-m", "freeze")
    origin.main = origin.repo.git("rev-parse", "HEAD")
    head = origin.pull(1, "one")
    github.add_pull("octo/repo", 1, head_sha=head, base_sha=origin.main)
    bot = bot_factory(env={"ORACLE_GATE_STATUS_TOKEN": TOKEN})
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    planted = {"nodeid": "tests/test_a.py::planted", "reason": "x", "bound_sha": origin.main}
    for number in (2, 3):
        other = pull_to_own_branch(
            github, origin, number, json.dumps({"schema": 1, "frozen": [owned, planted]})
        )
        bot.deliver("pull_request", pull_request_event("opened", number, other, origin.main))
        bot.wait_idle()
    names = sorted(r.name for r in github.check_runs("octo/repo"))
    assert names == ["Oracle Gate", "Oracle Gate (base: mine)", "Oracle Gate (base: mine)"]
    text = get(bot, "/metrics", Authorization=f"Bearer {TOKEN}").text
    samples = {(n, labels): v for _, s in parse_exposition(text).values() for n, labels, v in s}
    counted = {k: v for k, v in samples.items() if k[0] == "oracle_gate_verdicts_total"}
    assert counted == {("oracle_gate_verdicts_total", '{outcome="no_map"}'): 1}
    assert samples[("oracle_gate_other_base_verdicts_total", '{outcome="no_map"}')] == 2
    page = get(bot, "/status/octo/repo", Authorization=f"Bearer {TOKEN}").text
    assert '<td id="total">1</td>' in page
    assert "Not counted above: 2 verdicts" in page
    assert "planted" not in page
    assert 'id="triage-none"' in page


# -- a real browser ----------------------------------------------------------------------------------

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


def browser() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name) or (
            f"/usr/lib/chromium/{name}" if Path(f"/usr/lib/chromium/{name}").exists() else None
        )
        if found:
            return found
    return None


def run_browser(exe: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    flags = ["--headless", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars"]
    if os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=120, check=False)


def test_the_page_renders_in_a_real_headless_browser(bot_factory: BotFactory, tmp_path: Path) -> None:
    exe = browser()
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no Chromium: .ci/run installs chromium-headless-shell from Debian's packages")
        pytest.skip("no Chromium (apt-get install chromium-headless-shell) and CI is not set")
    bot = opened(bot_factory, tmp_path, ORACLE_GATE_STATUS_TOKEN=TOKEN)
    url = f"{bot.url}/status/octo/seeded?token={TOKEN}"
    shot = tmp_path / "status.png"
    ran = run_browser(exe, tmp_path, f"--screenshot={shot}", "--window-size=1200,900", url)
    assert shot.exists(), f"no screenshot: {ran.stderr[-2000:]}"
    image = read_png(shot)
    assert (image.width, image.height) == (1200, 900)
    colours = image.colours()
    background = max(colours.values())
    assert background < 0.98 * image.width * image.height, "the screenshot is (almost) one colour"
    for bar in (chart.FAIL_COLOUR, chart.UNSCORED_COLOUR):  # the chart's bars were drawn
        rgb = (int(bar[1:3], 16), int(bar[3:5], 16), int(bar[5:7], 16))
        assert colours.get(rgb, 0) > 100, f"no {bar} bar in the screenshot"
    keep = os.environ.get("ORACLE_GATE_STATUS_SCREENSHOT")
    if keep:
        shutil.copyfile(shot, keep)
    dom = run_browser(exe, tmp_path, "--dump-dom", url).stdout
    assert 'Oracle Gate status: <span class="repo">octo/seeded</span>' in dom
    assert "<td>2026-W48</td><td>5</td><td>2</td><td>2</td><td>1</td><td>40%</td><td>20%</td>" in dom
    assert '<td id="total">12</td>' in dom
    assert "<script" not in dom


def test_the_surface_share_of_a_trusted_map_is_on_the_page(
    bot_factory: BotFactory, tmp_path: Path, github: FakeGitHub, origin: Origin
) -> None:
    """Of the four lines the map saw tests run, two are observed only by the frozen test: 50%."""
    frozen = "tests/test_app.py::test_flaky"
    origin.repo.write(
        "freeze.json",
        json.dumps(
            {
                "schema": 1,
                "frozen": [{"nodeid": frozen, "reason": "flaky", "bound_sha": origin.main, "owner": "alice"}],
            }
        ),
    )
    origin.repo.write("src/other.py", "A = 1\nB = 2\n")
    origin.repo.git("add", "freeze.json", "src/other.py")
    origin.repo.git("commit", "-q", "-m", "freeze")
    origin.main = origin.repo.git("rev-parse", "HEAD")
    data = {
        "tests/test_app.py::test_f": {"src/app.py": [1, 2]},
        frozen: {"src/app.py": [1], "src/other.py": [1, 2]},
    }
    run = github.add_workflow_run("octo/repo", WORKFLOW, origin.main)
    github.add_artifact(
        run, ARTIFACT, map_artifact("octo/repo", origin.main, run.id, data=json.dumps(data).encode())
    )
    head = origin.pull(1, "one")
    github.add_pull("octo/repo", 1, head_sha=head, base_sha=origin.main)
    bot = bot_factory(env={"ORACLE_GATE_STATUS_TOKEN": TOKEN})
    assert bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main)).status_code == 202
    bot.wait_idle()
    page = get(bot, "/status/octo/repo", Authorization=f"Bearer {TOKEN}").text
    assert f"<code>{origin.main[:12]}</code>" in page
    assert "50.0%" in page, page
    assert 'id="triage-none"' in page  # the one entry has an owner and no expiry
