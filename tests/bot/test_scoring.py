"""The bot's sandboxed scoring run (issue 20): ``ORACLE_GATE_SCORE_SANDBOX=bwrap`` makes every
``pass_clean`` verdict be scored by real pytest runs under real bubblewrap, posted as
``Oracle Gate / score``.

The parent's map is a real ``oracle-gate map`` of the origin's main (outcomes, plugin set, Python
version), uploaded as the map workflow's artifact; the bot finds it in the fake Actions API as it
finds any map. Without ``bwrap`` these are skipped with one line; with ``CI=true`` they fail.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from tests.bot.harness import REPO, SECRET, Bot, BotFactory, Origin, pull_request_event
from tests.bot.maps import ARTIFACT, WORKFLOW, producer, zipped
from tests.bot.test_crash_posting import wait_for
from tests.github_fake.server import FakeGitHub
from tests.github_fake.state import CheckRunState
from tests.support.in_process import run_cli
from tests.support.repo import clean_env

if shutil.which("bwrap") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("bwrap (bubblewrap) is required in CI for the bot's scoring tests")
    pytest.skip("bwrap (bubblewrap) is not installed: apt-get install bubblewrap", allow_module_level=True)

SCORING = {"ORACLE_GATE_SCORE_SANDBOX": "bwrap"}
CHECK, SCORE_CHECK = "Oracle Gate", "Oracle Gate / score"
APP = "def f():\n    return 1\n"
TESTS = "from app import f\n\n\ndef test_f():\n    assert f() is not None\n"

#: The scoring sandbox (bubblewrap) runs head's tests: a program of its own (the bot itself runs in
#: this process unless a test is marked ``server``).
pytestmark = pytest.mark.process


@pytest.fixture
def measured(origin: Origin, github: FakeGitHub, tmp_path: Path) -> Origin:
    """The origin's main with a live test of ``f``, its map built by ``oracle-gate map`` as the map
    workflow would (its producer from the run's ``GITHUB_*``) and published as that run's artifact."""
    origin.repo.write("tests/test_app.py", TESTS)
    origin.main = origin.repo.commit("a live test")
    run = github.add_workflow_run(REPO, WORKFLOW, origin.main)
    made = producer(REPO, origin.main, run.id)
    env = clean_env(
        GITHUB_ACTIONS="true",
        GITHUB_REPOSITORY=made["repository"],
        GITHUB_WORKFLOW_REF=made["workflow_ref"],
        GITHUB_RUN_ID=made["run_id"],
        GITHUB_EVENT_NAME=made["event"],
        GITHUB_JOB=made["job"],
        GITHUB_REF=made["ref"],
        GITHUB_SHA=made["sha"],
    )
    out = tmp_path / "map" / "parent.coverage.json"
    done = run_cli("map", "--repo", str(origin.repo.root), "--sha", origin.main, "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    files = {p.name: p.read_bytes() for p in out.parent.iterdir() if p.is_file()}
    github.add_artifact(run, ARTIFACT, zipped(files))
    return origin


def open_pull(github: FakeGitHub, origin: Origin, number: int, files: dict[str, str]) -> str:
    """Push a head changing ``files`` (and its test merge) and open or move the pull request."""
    r = origin.repo
    r.git("checkout", "-q", "--detach", origin.main)
    for path, text in files.items():
        r.write(path, text)
    head = r.commit(f"pull {number}")
    r.git("checkout", "-q", "--detach", origin.main)
    r.git("merge", "-q", "--no-ff", "-m", f"merge {number}", head)
    r.git("update-ref", f"refs/pull/{number}/head", head)
    r.git("update-ref", f"refs/pull/{number}/merge", r.git("rev-parse", "HEAD"))
    r.git("checkout", "-q", "main")
    if (REPO, number) in github.state.pulls:
        github.state.pulls[(REPO, number)].head_sha = head
    else:
        github.add_pull(REPO, number, head_sha=head, base_sha=origin.main)
    return head


def judged(bot: Bot, github: FakeGitHub, origin: Origin, files: dict[str, str], timeout: float = 180) -> str:
    head = open_pull(github, origin, 1, files)
    answer = bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    assert answer.status_code == 202, answer.text
    bot.wait_idle(timeout)
    return head


def runs_named(github: FakeGitHub, name: str) -> list[CheckRunState]:
    return [r for r in github.check_runs(REPO) if r.name == name]


def the_score(github: FakeGitHub, head: str) -> CheckRunState:
    (verdict,) = runs_named(github, CHECK)
    assert (verdict.head_sha, verdict.conclusion) == (head, "success"), verdict.summary
    (score,) = runs_named(github, SCORE_CHECK)
    assert (score.head_sha, score.status, score.app_login) == (head, "completed", "oracle-gate")
    assert github.violations == []
    return score


def test_a_pass_clean_pull_request_is_scored_and_posted_as_a_second_check(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    bot = bot_factory(env=SCORING)
    head = judged(bot, github, measured, {"src/app.py": "def f():\n    return 2\n"})
    score = the_score(github, head)
    assert score.conclusion == "success", score.summary
    assert (score.title or "").startswith("score: pass_clean")
    assert "live_tests_passed" in (score.summary or "")
    # The verdict's check first; the score's created in progress, then completed (one run, updated).
    created = github.log("POST", f"/repos/{REPO}/check-runs")
    assert [c.json["name"] for c in created] == [CHECK, SCORE_CHECK]
    assert created[1].json["status"] == "in_progress"
    assert "conclusion" not in created[1].json
    assert score.updates >= 1


def test_a_live_test_skipped_at_run_time_fails_the_score(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    """A skip no static rule can name (contract v3.1 fails ``getattr(pytest, 'sk' + 'ip')`` and the
    literal imports; a computed module name it cannot resolve): the diff verdict is pass_clean, and
    the run sees what it is: a live test the parent passed did not pass."""
    bot = bot_factory(env=SCORING)
    skipping = "import importlib\n\n\ndef f():\n    importlib.import_module('py' + 'test').skip('no')\n"
    head = judged(bot, github, measured, {"src/app.py": skipping})
    score = the_score(github, head)
    assert score.conclusion == "failure", score.summary
    assert "live_test_skipped" in (score.title or "")
    assert "tests/test\\_app.py::test\\_f" in (score.summary or "") or "test_app.py" in (score.summary or "")


def test_the_wall_clock_limit_makes_the_score_unscored_and_says_so(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    bot = bot_factory(env={**SCORING, "ORACLE_GATE_SCORE_WALL_SECONDS": "10"})  # the least
    sleeping = "def f():\n    import time\n    time.sleep(600)\n    return 2\n"
    head = judged(bot, github, measured, {"src/app.py": sleeping})
    score = the_score(github, head)
    assert score.conclusion == "action_required", score.summary
    assert "scoring_incomplete" in (score.title or "")
    assert "wall" in (score.summary or ""), score.summary


def test_scoring_off_posts_no_score_check(bot: Bot, github: FakeGitHub, measured: Origin) -> None:
    judged(bot, github, measured, {"src/app.py": "def f():\n    return 2\n"})
    assert [r.name for r in github.check_runs(REPO)] == [CHECK]
    assert github.check_runs(REPO)[0].conclusion == "success"


def test_a_diff_verdict_that_fails_runs_no_score(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    bot = bot_factory(env=SCORING)
    # A conftest.py changes how the tests run: the diff verdict fails it, and nothing is run.
    head = judged(bot, github, measured, {"src/app.py": "def f():\n    return 2\n", "conftest.py": "X = 1\n"})
    (verdict,) = github.check_runs(REPO)
    assert (verdict.name, verdict.head_sha, verdict.conclusion) == (CHECK, head, "failure")
    done = bot.health()["jobs"]
    assert done == {"done": 1}, done  # the judgement only: no score job was queued


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A directory outside ``/tmp`` (the sandbox's /tmp is an empty tmpfs: anything under the host's
    /tmp is invisible anyway, so secrets there would prove nothing)."""
    path = Path(tempfile.mkdtemp(prefix="oracle-gate-bot-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_scoring_child_cannot_see_the_key_the_secret_or_the_state_directory(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin, outside_tmp: Path, tmp_path: Path
) -> None:
    """Head's own test asserts it: it passes (the score is pass_clean) only if the App's key, the
    webhook secret's file and the state directory are out of its reach, and no process it can see
    has the secret in its environment."""
    state, key = outside_tmp / "state", outside_tmp / "app.pem"
    shutil.copy(tmp_path / "app.pem", key)
    secret_file = outside_tmp / "webhook-secret"
    secret_file.write_bytes(SECRET)
    probe = f"""\
import os
from pathlib import Path


def test_nothing_of_the_bot_is_reachable():
    # Only the mount points of the mirror and the parent's map it was given, read-only; nothing else.
    kept = sorted(p.name for p in Path({str(state)!r}).iterdir())
    assert kept == ["maps", "mirrors"], kept
    assert not Path({str(state / "oracle-gate.sqlite3")!r}).exists()
    for path in ({str(key)!r}, {str(secret_file)!r}):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        assert "PRIVATE" not in text and {SECRET.decode()!r} not in text
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            assert {SECRET.decode()!r}.encode() not in environ.read_bytes()
        except PermissionError:
            pass
    assert not any("SECRET" in name or "KEY" in name for name in os.environ)
"""
    env = {
        **SCORING,
        "ORACLE_GATE_PRIVATE_KEY_FILE": str(key),
        "ORACLE_GATE_WEBHOOK_SECRET_FILE": str(secret_file),
    }
    env["ORACLE_GATE_WEBHOOK_SECRET"] = ""
    bot = bot_factory(env=env, state=state)
    head = judged(
        bot, github, measured, {"src/app.py": "def f():\n    return 2\n", "tests/test_probe.py": probe}
    )
    score = the_score(github, head)
    assert score.conclusion == "success", score.summary


@pytest.mark.server  # kill -9 of the server, then its recovery
def test_a_kill_while_the_score_is_posted_leaves_one_score_check(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    """The completion lands but its answer never comes: the server is killed, starts again, scores
    again and completes the same run (its external_id is derived from the job)."""
    bot = bot_factory(env=SCORING)
    head = open_pull(github, measured, 1, {"src/app.py": "def f():\n    return 2\n"})
    github.hold_answer_next("PATCH", f"/repos/{REPO}/check-runs/*", 30)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, measured.main))
    wait_for(partial(_score_completed, github), "the score's completion applied", timeout=180)
    assert bot.stop(signal.SIGKILL) == -signal.SIGKILL
    restarted = bot_factory(env=SCORING, state=bot.state)
    assert restarted.wait_idle(180)["jobs"] == {"done": 2}
    score = the_score(github, head)
    assert score.conclusion == "success", score.summary


@pytest.mark.server  # a new head's judgement while the old head's score runs: jobs side by side
def test_a_new_head_stops_the_running_score_of_the_old_one(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    """No stale score: the old head's run is killed when the new head is judged, and its check is
    completed ``cancelled`` (never a score, never left in progress); the new head is scored."""
    bot = bot_factory(env=SCORING)
    sleeping = "def f():\n    import time\n    time.sleep(600)\n    return 2\n"
    old = open_pull(github, measured, 1, {"src/app.py": sleeping})
    bot.deliver("pull_request", pull_request_event("opened", 1, old, measured.main))
    wait_for(partial(_score_posted, github, old), "the old head's score in progress", timeout=120)
    new = open_pull(github, measured, 1, {"src/app.py": "def f():\n    return 3\n"})
    bot.deliver("pull_request", pull_request_event("synchronize", 1, new, measured.main))
    bot.wait_idle(180)
    scores = {r.head_sha: r for r in runs_named(github, SCORE_CHECK)}
    assert set(scores) == {old, new}
    assert (scores[old].status, scores[old].conclusion) == ("completed", "cancelled")
    assert "stopped before it finished" in (scores[old].summary or ""), scores[old].summary
    assert (scores[new].status, scores[new].conclusion) == ("completed", "success")
    assert bot.health()["jobs"] == {"done": 3, "superseded": 1}


@pytest.mark.server  # kill -9 of the server, then its recovery
def test_a_score_that_keeps_stopping_the_server_ends_unscored_on_its_own_check(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    settings = {**SCORING, "ORACLE_GATE_MAX_RECOVERIES": "1"}
    sleeping = "def f():\n    import time\n    time.sleep(600)\n    return 2\n"
    head = open_pull(github, measured, 1, {"src/app.py": sleeping})
    bot = bot_factory(env=settings)
    bot.deliver("pull_request", pull_request_event("opened", 1, head, measured.main))
    for _ in range(2):  # killed while scoring, then once more after its first recovery
        wait_for(partial(_scoring, bot), "the score running", timeout=120)
        bot.stop(signal.SIGKILL)
        bot = bot_factory(env=settings, state=bot.state)
    assert bot.wait_idle(120)["jobs"] == {"done": 1, "failed": 1}
    (verdict,) = runs_named(github, CHECK)
    assert verdict.conclusion == "success"  # the verdict's check is left as it was
    (score,) = runs_named(github, SCORE_CHECK)
    assert (score.head_sha, score.conclusion) == (head, "action_required")
    assert "stopped while judging this 2 times" in (score.summary or ""), score.summary


def _scoring(bot: Bot) -> bool:
    with sqlite3.connect(bot.state / "oracle-gate.sqlite3") as db:
        row = db.execute(
            "SELECT 1 FROM jobs WHERE state = 'running' AND json_extract(spec, '$.kind') = 'score'"
        ).fetchone()
    return row is not None


def _score_posted(github: FakeGitHub, head: str) -> bool:
    return any(r.head_sha == head for r in runs_named(github, SCORE_CHECK))


def _score_completed(github: FakeGitHub) -> bool:
    return any(r.status == "completed" for r in runs_named(github, SCORE_CHECK))


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"PATH": "/nonexistent"},
            "ORACLE_GATE_SCORE_SANDBOX=bwrap, but bwrap (bubblewrap) is not installed",
        ),
        ({"ORACLE_GATE_SCORE_SANDBOX": "docker"}, "ORACLE_GATE_SCORE_SANDBOX must be 'bwrap'"),
        ({"ORACLE_GATE_SCORE_WALL_SECONDS": "1h"}, "ORACLE_GATE_SCORE_WALL_SECONDS must be a whole number"),
    ],
)
def test_serve_refuses_to_start_with_scoring_it_cannot_do(
    bot_factory: BotFactory, github: FakeGitHub, tmp_path: Path, env: dict[str, str], said: str
) -> None:
    bot = Bot(tmp_path / "state", github, tmp_path / "app.pem", Origin(tmp_path / "o"))
    bot.env.update({**SCORING, **env})
    done = subprocess.run(
        [sys.executable, "-m", "oracle_gate", "serve"],
        check=False,
        env=bot.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert said in lines[0], lines


def test_a_line_no_live_test_checks_is_annotated_on_the_score_check(
    bot_factory: BotFactory, github: FakeGitHub, measured: Origin
) -> None:
    """SCORING.md 2.4: ``test_f`` runs ``f`` and asserts only that it returns something, so the
    changed ``return 2`` survives its mutant (``2 → 3``): listed in the summary's section and
    annotated on the line, the score unchanged (mode "report")."""
    bot = bot_factory(env=SCORING)
    head = judged(bot, github, measured, {"src/app.py": "def f():\n    return 2\n"})
    score = the_score(github, head)
    assert score.conclusion == "success", score.summary
    assert "unchecked_line" in (score.title or "")
    assert "Lines no live test checks" in (score.summary or "")
    (note,) = score.annotations
    assert (note["path"], note["start_line"], note["annotation_level"]) == ("src/app.py", 2, "warning")
    assert "2 → 3" in str(note["message"])
