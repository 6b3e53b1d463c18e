"""The events besides pull_request: pull_request_target, bot commands, check_run, ignored events, and
the gate failing without a verdict."""

from __future__ import annotations

import json

from tests.github_fake import FakeGitHub
from tests.support import events
from tests.support.harness import MAP_PATH, Runner
from tests.support.project import FROZEN_TEST, FUNCTIONS, REPO, Project, git

STICKY = "<!-- oracle-gate:sticky -->"


def test_pull_request_target_fetches_the_merge_ref_and_checks_nothing_out(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """The checkout is the base (depth 1); the gate fetches refs/pull/2/merge into a private ref and
    its history, judges it, and leaves HEAD and the working tree as they were."""
    pr = project.pulls[2]
    ws = runner.workspace(at="base")
    result = runner.run("pull_request_target", events.pull_request(project, pr), ws, sha=project.main)
    assert result.status == 1, result.log
    assert result.verdict_json()["head"] == pr.merge
    assert result.verdict_json()["parent"] == project.main
    assert result.outputs["verdict"] == "unscored"
    assert git(ws, "rev-parse", "HEAD") == project.main
    assert git(ws, "rev-parse", "refs/oracle-gate/pull/2/merge") == pr.merge
    assert git(ws, "rev-parse", "--is-shallow-repository") == "false"
    assert git(ws, "status", "--porcelain", "--untracked-files=no") == ""
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion, len(run.annotations)) == (pr.head, "action_required", FUNCTIONS)


def test_pull_request_without_the_merge_commit_fetches_it(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """A pull_request run whose checkout lacks GITHUB_SHA (a checkout of another ref) fetches it."""
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="base")
    result = runner.run("pull_request", events.pull_request(project, pr), ws, sha=pr.merge)
    assert result.status == 0, result.log
    assert result.outputs["verdict"] == "pass_clean"
    assert fake.check_runs(REPO)[0].conclusion == "success"


def test_rerun_by_a_writer_reacts_and_judges_again(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[3]
    fake.set_permission(REPO, "maintainer", "write")
    said = fake.add_comment(REPO, 3, "/oracle-gate rerun", user="maintainer")
    payload = events.comment(pr, "/oracle-gate rerun", login="maintainer", comment_id=said.id)
    result = runner.run("issue_comment", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 1, result.log
    assert [r.content for r in fake.reactions(said.id)] == ["eyes"]
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    assert fake.log("GET", "/repos/*/pulls/3")  # the head SHA came from the API
    assert result.outputs["verdict"] == "fail"
    assert result.outputs["check-run-id"] == str(run.id)


def test_a_command_from_a_reader_is_ignored_with_a_reaction(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[3]
    fake.set_permission(REPO, "passer-by", "read")
    said = fake.add_comment(REPO, 3, "/oracle-gate rerun", user="passer-by")
    payload = events.comment(pr, "/oracle-gate rerun", login="passer-by", comment_id=said.id)
    result = runner.run("issue_comment", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 0, result.log
    assert [r.content for r in fake.reactions(said.id)] == ["-1"]
    assert fake.check_runs(REPO) == []
    assert result.outputs["verdict"] == ""
    (notice,) = result.commands("notice")
    assert "passer-by" in notice
    assert "'read'" in notice


def test_explain_replies_with_the_full_overlap_listing(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """Every one of the 60 overlap ranges, each with the frozen test observing it, and every reason."""
    pr = project.pulls[2]
    fake.set_permission(REPO, "lead", "admin")
    said = fake.add_comment(REPO, 2, "/oracle-gate explain", user="lead")
    payload = events.comment(pr, "/oracle-gate explain", login="lead", comment_id=said.id)
    result = runner.run("issue_comment", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 0, result.log
    assert [r.content for r in fake.reactions(said.id)] == ["eyes"]
    assert fake.check_runs(REPO) == []
    reply = fake.comments(REPO, 2)[-1]
    assert result.outputs["comment-id"] == str(reply.id)
    assert not reply.body.startswith(STICKY)
    rows = [line for line in reply.body.splitlines() if line.startswith("| ") and FROZEN_TEST in line]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == [str(2 + 4 * i) for i in range(FUNCTIONS)]
    assert "`freeze_overlap`" in reply.body
    assert "Truncated" not in reply.body
    assert result.verdict_json()["verdict"] == "unscored"


def test_check_run_rerequested_judges_again(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[1]
    payload = events.check_run_rerequested(project, pr, name="Oracle Gate")
    result = runner.run("check_run", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 0, result.log
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "success")


def test_ignored_events_say_why_and_exit_0(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[1]
    payload = events.pull_request(project, pr, action="synchronize")
    payload["action"] = "closed"
    result = runner.run("pull_request", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 0
    assert result.commands("notice") == [
        "Oracle Gate has nothing to do: pull request closed: nothing to judge"
    ]
    assert set(result.outputs.values()) == {""}
    assert len(result.outputs) == 7
    assert fake.requests == []


def test_a_malformed_event_payload_is_one_line_and_exit_3(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    ws = runner.workspace(at="base")
    broken = runner.run("pull_request", '{"action": "opened", "pull_request": {', ws, sha=project.main)
    assert broken.status == 3
    (error,) = broken.commands("error")
    assert "is not valid JSON" in error
    assert broken.outputs["verdict"] == "error"
    lacking = runner.run("pull_request", {"action": "opened"}, ws, sha=project.main)  # JSON, no pull_request
    assert lacking.status == 3
    (error,) = lacking.commands("error")
    assert "event.json: the pull_request payload's pull_request.number is missing" in error
    assert fake.check_runs(REPO) == []


def test_a_gate_error_posts_a_failure_check_saying_why(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """#9 has no test-merge commit (as with conflicts): no verdict, a failure check, exit 3."""
    pr = project.pulls[9]
    result = runner.run(
        "pull_request_target", events.pull_request(project, pr), runner.workspace(at="base"), sha=project.main
    )
    assert result.status == 3
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    assert "refs/pull/9/merge" in (run.summary or "")
    assert "could not" in (run.title or "").lower()
    assert result.outputs["verdict"] == "error"
    assert result.outputs["check-run-id"] == str(run.id)
    assert "refs/pull/9/merge" in result.summary
    (error,) = result.commands("error")
    assert "refs/pull/9/merge" in error
    assert "merge conflicts" in error
    assert not (result.workspace / "verdict.json").exists()


def test_coverage_command_builds_the_parents_map(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    """No coverage-file: the map of the parent is measured inside the action with coverage-command."""
    pr = project.pulls[2]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    command = "python -m pytest -q -p no:cacheprovider --cov=. --cov-context=test --cov-report="
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        ws,
        sha=pr.merge,
        inputs={"coverage-file": "", "coverage-sha": "", "coverage-command": command},
    )
    assert result.status == 1, result.log
    assert "building the parent's map with" in result.stdout
    doc = result.verdict_json()
    assert doc["verdict"] == "unscored"
    assert [r["code"] for r in doc["reasons"]] == ["freeze_overlap"]
    assert json.dumps(doc["overlap"]) == json.dumps(
        {"src/frozen_area.py": [2 + 4 * i for i in range(FUNCTIONS)]}
    )


def test_without_any_map_the_verdict_is_unscored(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[1]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        ws,
        sha=pr.merge,
        inputs={"coverage-file": "", "coverage-sha": ""},
    )
    assert result.status == 1
    assert result.outputs["reasons"] == "oracle_incomplete"
    assert fake.check_runs(REPO)[0].conclusion == "action_required"


def test_a_map_file_the_change_brings_along_is_refused(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """#4 commits a file where a workflow might keep the parent's map: a map inside the checkout is
    refused (oracle_incomplete, saying why) whatever its bytes, and a trusted map outside it is used."""
    pr = project.pulls[4]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    assert (ws / MAP_PATH).read_text() == "a map the change brings along\n"
    refused = runner.run(
        "pull_request", events.pull_request(project, pr), ws, sha=pr.merge, inputs={"coverage-file": MAP_PATH}
    )
    assert refused.outputs["verdict"] == "unscored", refused.log
    assert "the map lies inside the repository's checkout" in refused.outputs["reasons"] + refused.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"
    accepted = runner.run("pull_request", events.pull_request(project, pr), ws, sha=pr.merge)
    assert accepted.status == 0, accepted.log
    assert accepted.outputs["verdict"] == "pass_clean"


def test_a_map_symlink_the_change_brings_along_is_refused(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """#6 makes the map path a symlink to a file of its own."""
    pr = project.pulls[6]
    assert pr.merge is not None
    ws = runner.workspace(at="merge", pr=pr)
    assert (ws / MAP_PATH).is_symlink()
    result = runner.run(
        "pull_request", events.pull_request(project, pr), ws, sha=pr.merge, inputs={"coverage-file": MAP_PATH}
    )
    assert result.outputs["verdict"] == "unscored", result.log
    assert "inside the repository's checkout" in result.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"


def test_explain_that_cannot_compute_replies_why(runner: Runner, project: Project, fake: FakeGitHub) -> None:
    pr = project.pulls[9]
    fake.set_permission(REPO, "lead", "write")
    said = fake.add_comment(REPO, 9, "/oracle-gate explain", user="lead")
    payload = events.comment(pr, "/oracle-gate explain", login="lead", comment_id=said.id)
    result = runner.run("issue_comment", payload, runner.workspace(at="base"), sha=project.main)
    assert result.status == 3
    reply = fake.comments(REPO, 9)[-1]
    assert reply.body.startswith("**Oracle Gate could not compute the verdict:**")
    assert "merge conflicts" in reply.body
    assert fake.check_runs(REPO) == []
    assert result.outputs["verdict"] == "error"


def test_the_merge_ref_is_fetched_once_github_says_mergeable_is_known(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """Seen on main: refs/pull/N/merge was fetched without asking whether it was current, giving
    false "could not run" failures after a push. pulls/get is polled until mergeable is not null."""
    pr = project.pulls[2]
    fake.set_mergeable(REPO, 2, [None, None, True])
    ws = runner.workspace(at="base")
    payload = events.pull_request(project, pr)
    result = runner.run("pull_request_target", payload, ws, sha=project.main, inputs={"merge-wait-ms": "10"})
    assert result.status == 1, result.log
    waiting = "still computing refs/pull/2/merge (mergeable is not known yet); looking again in 0.01 s"
    assert result.stdout.count(waiting) == 2  # the wait is the input merge-wait-ms
    gets = fake.log("GET", "/repos/*/pulls/2")
    assert len(gets) >= 3
    fetched_at = git(ws, "rev-parse", "refs/oracle-gate/pull/2/merge")
    assert fetched_at == pr.merge


def test_a_pull_request_with_conflicts_is_a_failure_check_saying_so(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[2]
    fake.set_mergeable(REPO, 2, [False])
    ws = runner.workspace(at="base")
    result = runner.run("pull_request_target", events.pull_request(project, pr), ws, sha=project.main)
    assert result.status == 3
    (error,) = result.commands("error")
    assert "has merge conflicts (GitHub answers mergeable: false)" in error
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")


def test_a_merge_github_cannot_be_asked_about_is_not_judged(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """The shared freshness rule: without pulls/get nothing says the test merge is computed for the
    latest push, so it is not fetched and judged on trust (it was before the Action used the rule)."""
    pr = project.pulls[2]
    fake.fail_next("GET", "/repos/*/pulls/2", 404)
    ws = runner.workspace(at="base")
    result = runner.run("pull_request_target", events.pull_request(project, pr), ws, sha=project.main)
    assert result.status == 3, result.log
    (error,) = result.commands("error")
    assert "cannot ask GitHub whether refs/pull/2/merge is computed (pulls/get)" in error
    (run,) = fake.check_runs(REPO)
    assert (run.head_sha, run.conclusion) == (pr.head, "failure")
    assert result.outputs["verdict"] == "error"
