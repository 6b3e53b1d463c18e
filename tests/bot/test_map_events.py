"""End to end with the trusted map store: the bot finds the parent's map in the Actions API, waits for
it (``action_required``) when the map workflow has not run, and judges again when it completes
(``workflow_run``) or when the default branch moves (``push``)."""

from __future__ import annotations

from tests.bot.harness import Bot, Origin, pull_request_event, push_event, workflow_run_completed
from tests.bot.maps import ARTIFACT, WORKFLOW, map_artifact
from tests.bot.test_judging import REPO, open_pull
from tests.github_fake.server import FakeGitHub


def publish_map(github: FakeGitHub, sha: str, prod: dict[str, str] | None = None) -> None:
    run = github.add_workflow_run(REPO, WORKFLOW, sha)
    github.add_artifact(run, ARTIFACT, map_artifact(REPO, sha, run.id, prod=prod))


def test_a_trusted_map_scores_the_pull_request(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    publish_map(github, origin.main)
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.conclusion == "success", run.summary
    assert github.violations == []


def test_a_forged_map_is_refused_and_the_check_says_why(bot: Bot, github: FakeGitHub, origin: Origin) -> None:
    """The artifact of the right run, but its manifest claims another run (a PR's upload copied in)."""
    publish_map(github, origin.main, prod={"repository": REPO, "workflow_ref": "x", "run_id": "1",
                                             "event": "pull_request", "job": "j", "ref": "refs/pull/1/merge",
                                             "sha": origin.main})  # fmt: skip
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (run,) = github.check_runs(REPO)
    assert run.conclusion == "action_required"
    assert "is not used" in (run.summary or "")
    assert "built on 'refs/pull/1/merge'" in (run.summary or ""), run.summary


def test_the_map_workflow_completing_judges_waiting_pulls_again(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    (waiting,) = github.check_runs(REPO)
    assert waiting.conclusion == "action_required"
    assert "no map yet" in (waiting.summary or "")
    # Another workflow's run, or a failed map run, brings nothing: ignored at the door.
    other = bot.deliver("workflow_run", workflow_run_completed(".github/workflows/ci.yml", origin.main))
    assert "ignored" in bot.planned(other)
    failed = bot.deliver("workflow_run", workflow_run_completed(WORKFLOW, origin.main, conclusion="failure"))
    assert "ignored" in bot.planned(failed)
    publish_map(github, origin.main)
    done = bot.deliver("workflow_run", workflow_run_completed(WORKFLOW, origin.main))
    assert bot.planned(done) == "queued 1 job(s)"
    bot.wait_idle()
    latest = github.check_runs(REPO)[-1]
    assert (latest.head_sha, latest.conclusion) == (head, "success")
    assert len(github.check_runs(REPO)) == 2


def test_a_push_to_the_default_branch_judges_open_pulls_on_the_new_parent(
    bot: Bot, github: FakeGitHub, origin: Origin
) -> None:
    publish_map(github, origin.main)
    head = open_pull(github, origin, 1, "one")
    bot.deliver("pull_request", pull_request_event("opened", 1, head, origin.main))
    bot.wait_idle()
    assert [r.conclusion for r in github.check_runs(REPO)] == ["success"]
    # main moves on: GitHub's test merge is now made on the new parent, for which no map exists yet.
    origin.repo.write("README.md", "new\n")
    origin.repo.git("add", "-A")
    origin.repo.git("commit", "-q", "-m", "main moves")
    origin.main = origin.repo.git("rev-parse", "HEAD")
    open_pull(github, origin, 1, "one")
    assert bot.deliver("push", push_event(origin.main)).status_code == 202
    ignored = bot.deliver("push", push_event(origin.main, ref="refs/heads/feature"))
    assert "ignored" in bot.planned(ignored)
    bot.wait_idle()
    latest = github.check_runs(REPO)[-1]
    assert latest.conclusion == "action_required"  # judged again on the new parent: its map is awaited
    assert "no map yet" in (latest.summary or "")
