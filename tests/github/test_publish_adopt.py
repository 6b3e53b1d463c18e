"""A stable ``external_id`` (the bot's): a second attempt at the same job finds the check run the first
posted and finishes it -- no second run, no annotation twice -- but never adopts another App's run."""

from __future__ import annotations

from dataclasses import replace

from github import Github

from oracle_gate.github.checks import Checks
from oracle_gate.github.client import make_client, open_repo
from oracle_gate.github.content import check_content
from oracle_gate.github.repository import connect
from tests.github.clients import FAST, REPO, at_head
from tests.github_fake import FakeGitHub
from tests.support import verdicts

EXTERNAL_ID = "oracle-gate:" + "e" * 40
OURS = "github-actions"  # the App the fake's default token posts as
PLANTED = "planted-token"
STABLE = at_head(external_id=EXTERNAL_ID)  # where every attempt of the one job posts


def client_for(fake: FakeGitHub, token: str | None = None) -> Github:
    """The production client, with a timeout that a validated listing of 120 annotations on a busy
    machine fits in (the listing is what this file tests)."""
    slow_ok = replace(FAST, timeout=20)
    return make_client(token or fake.token, fake.url, retry=slow_ok, seconds_between_requests=0)


def attempt(fake: FakeGitHub, token: str | None = None, app: str | None = OURS) -> Checks:
    """One attempt at the job: a connection of its own, whose runs count as ours when posted by ``app``."""
    return connect(open_repo(client_for(fake, token=token), REPO), check_app=app).checks


def test_a_second_attempt_updates_the_run_and_adds_no_annotation_twice(fake: FakeGitHub) -> None:
    content = check_content(verdicts.with_many_reasons(120))
    assert len(content.annotations) > 100
    fake.fail_next("PATCH", "/repos/*/check-runs/*", 422)  # the first attempt stops after 50
    first = attempt(fake).publish(content, STABLE)
    assert first.annotations_posted == 50
    second = attempt(fake).publish(content, STABLE)
    (run,) = fake.check_runs()
    assert second.check_run_id == run.id
    assert len(run.annotations) == len(content.annotations)
    assert run.annotations == content.annotations
    attempt(fake).publish(content, STABLE)  # a third: nothing left to add
    (run,) = fake.check_runs()
    assert len(run.annotations) == len(content.annotations)


def test_another_apps_run_with_the_same_external_id_is_not_adopted(fake: FakeGitHub) -> None:
    """A pull request's workflow can post a run named like ours with our (derivable) external_id."""
    fake.add_token(PLANTED, app="someone-else")
    content = check_content(verdicts.passing())
    planted = attempt(fake, token=PLANTED, app=None)
    planted.publish(content, STABLE)
    ours = attempt(fake).publish(content, STABLE)
    runs = fake.check_runs()
    assert [r.app_login for r in runs] == ["someone-else", OURS]
    assert ours.check_run_id == runs[1].id


def test_a_different_verdict_gets_a_new_run(fake: FakeGitHub) -> None:
    attempt(fake).publish(check_content(verdicts.failing()), STABLE)
    attempt(fake).publish(check_content(verdicts.passing()), STABLE)
    assert [r.conclusion for r in fake.check_runs()] == ["failure", "success"]


def test_an_older_run_of_the_same_verdict_is_not_adopted_under_a_newer_one(fake: FakeGitHub) -> None:
    """Approved (success), the approval taken back or made stale (failure), approved again: the
    third verdict gets a run of its own, newest, not the first one back under the failure GitHub
    shows (issue 29: a re-approval after a retarget must turn the check green)."""
    attempt(fake).publish(check_content(verdicts.passing()), STABLE)
    attempt(fake).publish(check_content(verdicts.failing()), STABLE)
    attempt(fake).publish(check_content(verdicts.passing()), STABLE)
    assert [r.conclusion for r in fake.check_runs()] == ["success", "failure", "success"]
