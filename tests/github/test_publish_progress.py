"""A check run in progress, then completed (the bot's score check, oracle_gate.bot.jobs.scoring): one run
per stable ``external_id`` whatever happens between, and never another App's run."""

from __future__ import annotations

import pytest

from oracle_gate.github.content import outcome_check
from oracle_gate.judge.verdict import Outcome
from tests.github.clients import at_head
from tests.github.test_publish_adopt import OURS, PLANTED, STABLE, attempt
from tests.github_fake import FakeGitHub

RUNNING = outcome_check(Outcome.UNSCORED, "scoring", "running")
PASSED = outcome_check(Outcome.PASS_CLEAN, "score: pass_clean", "passed")
FAILED = outcome_check(Outcome.FAIL, "score: fail", "failed")


def test_started_then_completed_is_one_run(fake: FakeGitHub) -> None:
    run_id = attempt(fake).start(RUNNING, STABLE)
    (run,) = fake.check_runs()
    assert (run.id, run.status, run.conclusion, run.title) == (run_id, "in_progress", None, "scoring")
    done = attempt(fake).complete(PASSED, STABLE)
    (run,) = fake.check_runs()
    assert (done.check_run_id, run.status, run.conclusion, run.title) == (
        run_id,
        "completed",
        "success",
        "score: pass_clean",
    )
    assert fake.violations == []


def test_a_job_run_again_finds_its_run_in_any_state(fake: FakeGitHub) -> None:
    """A crash after the start, or after the completion: the next attempt reuses the run; a completed
    one keeps its conclusion until it is completed again, now with the new one."""
    first = attempt(fake).start(RUNNING, STABLE)
    assert attempt(fake).start(RUNNING, STABLE) == first
    attempt(fake).complete(PASSED, STABLE)
    assert attempt(fake).start(RUNNING, STABLE) == first
    (run,) = fake.check_runs()
    assert (run.status, run.conclusion) == ("completed", "success")
    attempt(fake).complete(FAILED, STABLE)
    (run,) = fake.check_runs()
    assert (run.id, run.conclusion, run.title) == (first, "failure", "score: fail")


def test_completed_without_a_start_is_created_completed(fake: FakeGitHub) -> None:
    attempt(fake).complete(FAILED, STABLE)
    (run,) = fake.check_runs()
    assert (run.status, run.conclusion) == ("completed", "failure")


def test_another_apps_run_with_the_same_external_id_is_left_alone(fake: FakeGitHub) -> None:
    fake.add_token(PLANTED, app="someone-else")
    planted = attempt(fake, token=PLANTED, app=None)
    planted.start(RUNNING, STABLE)
    ours = attempt(fake)
    ours.start(RUNNING, STABLE)
    ours.complete(PASSED, STABLE)
    runs = fake.check_runs()
    assert [(r.app_login, r.status) for r in runs] == [("someone-else", "in_progress"), (OURS, "completed")]


def test_a_run_in_progress_needs_a_stable_external_id(fake: FakeGitHub) -> None:
    with pytest.raises(ValueError, match="external_id"):
        attempt(fake).start(RUNNING, at_head())
