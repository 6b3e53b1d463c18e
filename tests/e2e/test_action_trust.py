"""The attacks of issue #10 on the map, each one now held: the judged pull request cannot feed its map."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.maps.reader.manifest import Manifest
from tests.github_fake import FakeGitHub
from tests.github_fake.state import CheckRunState
from tests.support import events
from tests.support.caches import CacheStore, cache_key, restore_key_templates, scope_of
from tests.support.harness import MAP_PRODUCER, RUN_ID, Result, Runner
from tests.support.project import (
    AGENT_BASE,
    FROZEN_TEST,
    REPO,
    Project,
    PullRequest,
    frozen_area,
    open_against_agent_base,
    open_pull_with_files,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: A map in which the frozen test ran but observed nothing the change touches: accepted, it would make
#: every change look unobserved (the frozen test is listed, so contract v2's visibility rule holds).
FORGED = json.dumps(
    {"tests/test_calc.py::test_add": {"src/calc.py": [1, 2]}, FROZEN_TEST: {"tests/test_frozen.py": [1]}}
).encode()
#: The run of the pull request's own workflow (refs/pull/N/merge scope) that saved the cache.
PR_RUN = replace(
    MAP_PRODUCER,
    workflow_ref=f"{REPO}/.github/workflows/oracle-gate-map.yml@refs/pull/2/merge",
    event="pull_request",
    ref="refs/pull/2/merge",
    run_id="777",
)


def test_a_forged_map_from_a_pull_requests_cache_scope_gets_no_passing_check(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """GitHub restores a PR's own cache scope first: a PR run can save 'oracle-gate-map-<parent>'.
    The map it saved records that run as its producer, and the gate refuses it."""
    pr = project.pulls[2]
    payload = events.pull_request(project, pr)
    forged_by_pr = runner.write_map(PR_RUN, name="from-pr-cache", content=FORGED)
    refused = runner.run(
        "pull_request_target",
        payload,
        runner.workspace(at="base"),
        sha=project.main,
        inputs={"coverage-file": str(forged_by_pr)},
    )
    assert refused.outputs["verdict"] == "unscored", refused.log
    assert refused.outputs["reasons"] == "oracle_incomplete"
    assert "built by a 'pull_request' run" in refused.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"

    # The same bytes from a default-branch run would be used: the refusal is the producer's doing.
    trusted_bytes = runner.write_map(MAP_PRODUCER, name="from-main", content=FORGED)
    control = runner.run(
        "pull_request_target",
        payload,
        runner.workspace(at="base"),
        sha=project.main,
        inputs={"coverage-file": str(trusted_bytes)},
    )
    assert control.outputs["verdict"] == "pass_clean", control.log  # what the attack would have won


def test_a_map_without_a_recorded_producer_gets_no_passing_check(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[4]
    unproven = runner.write_map(None, name="no-producer")
    result = runner.run_target(pr, inputs={"coverage-file": str(unproven)})
    assert result.outputs["verdict"] == "unscored", result.log
    assert "records no producer run" in result.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"


APP_TOKEN = "ghs_OracleGateAppInstallation000000000000"  # noqa: S105 - a fake token for the fake server


def required_check(fake: FakeGitHub, sha: str, *, app: str, name: str = "Oracle Gate") -> str | None:
    """What branch protection pinned to ``app`` sees: the latest check named ``name`` by that App."""
    runs = [r for r in fake.check_runs(REPO) if r.head_sha == sha and r.name == name and r.app_login == app]
    return runs[-1].conclusion if runs else None


def checks_touched(fake: FakeGitHub, run: Callable[[], Result]) -> tuple[Result, list[CheckRunState]]:
    """``run``'s result and the check runs it created or changed (as they stand after it)."""
    before = {r.id: (r.name, r.status, r.conclusion) for r in fake.check_runs(REPO)}
    result = run()
    touched = [r for r in fake.check_runs(REPO) if before.get(r.id) != (r.name, r.status, r.conclusion)]
    return result, touched


@pytest.mark.parametrize("agent_first", [False, True], ids=["real-pr-first", "agent-pr-first"])
def test_the_same_head_opened_against_a_branch_the_agent_pushed_never_posts_the_required_check(
    runner: Runner, project: Project, fake: FakeGitHub, agent_first: bool
) -> None:
    """Base swap, for real: the agent pushes 'agent-base' (freeze.json emptied) and opens #7 with #2's
    head against it. Judged on its own base #7 passes (the frozen test is live there), but its check
    is 'Oracle Gate (base: agent-base)'; the required check on the head stays #2's unscored one,
    whichever pull request is judged last."""
    fake.add_token(APP_TOKEN, app="oracle-gate")
    real = project.pulls[2]
    swapped = open_against_agent_base(project, real, number=7)
    assert swapped.base is not None
    fake.add_pull(
        REPO, 7, head_sha=real.head, base_sha=swapped.base, head_ref=real.branch, base_ref=AGENT_BASE
    )
    # Even a trusted map of the agent's base (the strongest case for the attack) does not help it.
    agent_map = runner.write_map(MAP_PRODUCER, name="agent-base", parent=swapped.base)

    def judge_real() -> Result:
        return runner.run(
            "pull_request_target", events.pull_request(project, real), runner.workspace(at="base"),
            sha=project.main, token=APP_TOKEN,
        )  # fmt: skip

    def judge_agent() -> Result:
        return runner.run(
            "pull_request_target", events.pull_request(project, swapped, base_ref=AGENT_BASE),
            runner.workspace(at="base"), sha=project.main, token=APP_TOKEN,
            inputs={"coverage-file": str(agent_map)},
        )  # fmt: skip

    if agent_first:
        agent, agent_checks = checks_touched(fake, judge_agent)
        ours, our_checks = checks_touched(fake, judge_real)
    else:
        ours, our_checks = checks_touched(fake, judge_real)
        agent, agent_checks = checks_touched(fake, judge_agent)

    assert ours.outputs["verdict"] == "unscored", ours.log
    assert agent.outputs["verdict"] == "pass_clean", agent.log  # what the swap would have won
    assert agent.verdict_json()["parent"] == swapped.base
    assert "not an allowed base" in agent.log
    assert "Oracle Gate (base: agent-base)" in agent.summary
    assert {(r.name, r.head_sha) for r in agent_checks} == {("Oracle Gate (base: agent-base)", real.head)}
    assert {(r.name, r.head_sha) for r in our_checks} == {("Oracle Gate", real.head)}
    assert [r.conclusion for r in agent_checks] == ["success"]
    required = required_check(fake, real.head, app="oracle-gate")
    assert required == our_checks[-1].conclusion
    assert required not in (None, "success")


def test_allowed_bases_lists_the_branches_that_get_the_required_check(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    pr = project.pulls[4]
    payload = events.pull_request(project, pr)
    payload["pull_request"]["base"]["ref"] = "release"
    result = runner.run(
        "pull_request_target",
        payload,
        runner.workspace(at="base"),
        sha=project.main,
        inputs={"allowed-bases": "main, release"},
    )
    assert result.outputs["verdict"] == "pass_clean", result.log
    assert fake.check_runs(REPO)[-1].name == "Oracle Gate"
    default_only = runner.run("pull_request_target", payload, runner.workspace(at="base"), sha=project.main)
    assert default_only.outputs["verdict"] == "pass_clean"
    assert fake.check_runs(REPO)[-1].name == "Oracle Gate (base: release)"


def test_an_app_installation_token_posts_the_check_as_that_app_and_a_pr_workflow_cannot_imitate_it(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """The required check pinned to the App: a same-named success posted with the GitHub Actions
    token (what a workflow the PR adds can do) is another app's check and does not count."""
    fake.add_token(APP_TOKEN, app="oracle-gate")
    pr = project.pulls[2]
    result = runner.run_target(pr, token=APP_TOKEN)
    assert result.outputs["verdict"] == "unscored"
    ours = fake.check_runs(REPO)[-1]
    assert (ours.name, ours.app_login) == ("Oracle Gate", "oracle-gate")
    # The PR's own workflow posts a same-named success with its GITHUB_TOKEN.
    forged = runner.run(
        "pull_request",
        events.pull_request(project, project.pulls[4]) | {},
        runner.workspace(at="merge", pr=project.pulls[4]),
        sha=project.pulls[4].merge or "",
    )
    assert forged.outputs["verdict"] == "pass_clean"
    imitation = fake.check_runs(REPO)[-1]
    assert (imitation.name, imitation.app_login) == ("Oracle Gate", "github-actions")
    assert required_check(fake, pr.head, app="oracle-gate") == ours.conclusion != "success"


def test_a_stale_success_is_replaced_when_the_base_moves_under_the_same_head(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """A verdict is about one (parent, head) pair: the same head re-judged on a base that moved gets a
    new check (here unscored: the only map is the old parent's), and that one counts."""
    fake.add_token(APP_TOKEN, app="oracle-gate")
    pr = project.pulls[4]
    assert pr.merge is not None
    first = runner.run_target(pr, token=APP_TOKEN)
    assert first.outputs["verdict"] == "pass_clean", first.log
    assert required_check(fake, pr.head, app="oracle-gate") == "success"
    # main moves on (an empty commit), and GitHub recomputes the PR's test merge on the new tip.
    moved = project.git("commit-tree", f"{project.main}^{{tree}}", "-p", project.main, "-m", "main moves on")
    merge = project.git("commit-tree", f"{pr.merge}^{{tree}}", "-p", moved, "-p", pr.head, "-m", "test merge")
    project.point_pull(replace(pr, merge=merge))
    project.git("update-ref", "refs/heads/main", moved)  # the merge is fresh: on the base's tip
    try:
        again = runner.run_target(pr, token=APP_TOKEN)
    finally:
        project.git("update-ref", "refs/heads/main", project.main)
    assert again.verdict_json()["parent"] == moved
    assert again.verdict_json()["head"] == merge
    assert again.outputs["verdict"] == "unscored"
    assert required_check(fake, pr.head, app="oracle-gate") not in (None, "success")


#: A map built earlier in this very run by a ``pull_request`` workflow (the pull request's own file).
SAME_RUN_UNDER_PR = replace(PR_RUN, run_id=RUN_ID, workflow_ref=PR_RUN.workflow_ref.replace("/2/", "/1/"))


@pytest.mark.parametrize(
    ("trust_input", "verdict"), [("false", "unscored"), ("true", "pass_clean")], ids=["default", "opted-in"]
)
def test_a_same_run_map_under_pull_request_is_used_only_when_contributors_are_trusted(
    runner: Runner, project: Project, fake: FakeGitHub, trust_input: str, verdict: str
) -> None:
    """Under pull_request the run's workflow is the PR's: a job it rewrote may have built the map."""
    pr = project.pulls[1]
    assert pr.merge is not None
    same_run = runner.write_map(replace(SAME_RUN_UNDER_PR, ref="refs/pull/1/merge"), name="same-run")
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        runner.workspace(at="merge", pr=pr),
        sha=pr.merge,
        inputs={"coverage-file": str(same_run), "trust-same-run-map": trust_input},
    )
    assert result.outputs["verdict"] == verdict, result.log
    refused = "built earlier in this run" in result.log
    assert refused is (trust_input == "false")
    assert (fake.check_runs(REPO)[-1].conclusion == "success") is (verdict == "pass_clean")


def test_a_same_run_map_under_pull_request_target_needs_no_opt_in(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """pull_request_target runs the default branch's workflow: its own earlier step is trusted."""
    pr = project.pulls[1]
    same_run = runner.write_map(replace(SAME_RUN_UNDER_PR, event="pull_request_target"), name="same-run")
    result = runner.run_target(pr, inputs={"coverage-file": str(same_run)})
    assert result.outputs["verdict"] == "pass_clean", result.log
    assert fake.check_runs(REPO)[-1].conclusion == "success"


def crlf_map_pull(project: Project, *, digest_of: str) -> tuple[PullRequest, str, bytes]:
    """PR #8: the frozen area changed, plus a forged map and its manifest (claiming a default-branch
    push run) under ``forged/``, and a ``.gitattributes`` that makes a checkout rewrite them with CRLF.
    The manifest's digest is of the bytes as committed or as a checkout writes them (``digest_of``).
    Returns the pull request, the manifest's path in the checkout and the map's bytes as committed."""
    data = json.dumps(json.loads(FORGED), indent=2).encode() + b"\n"
    checked_out = data.replace(b"\n", b"\r\n")
    manifest = Manifest(
        path=Path("forged/map.json.manifest.json"),
        data=Path("forged/map.json"),
        sha=project.main,
        data_sha256=hashlib.sha256(checked_out if digest_of == "checked-out" else data).hexdigest(),
        producer=replace(MAP_PRODUCER, sha=project.main),
    )
    files = {
        "src/frozen_area.py": frozen_area("changed").encode(),
        ".gitattributes": b"forged/** text eol=crlf\n",
        "forged/map.json": data,
        str(manifest.path): json.dumps(manifest.to_document(), indent=2).encode() + b"\n",
    }
    return open_pull_with_files(project, 8, "crlf-map", files), str(manifest.path), data


@pytest.mark.parametrize("digest_of", ["committed", "checked-out"])
def test_a_map_the_pr_commits_behind_an_eol_crlf_rule_is_refused_inside_the_checkout(
    runner: Runner, project: Project, fake: FakeGitHub, digest_of: str
) -> None:
    """Comparing bytes with the committed file fails once a checkout rewrites them (eol=crlf); the
    gate refuses the map for where it lies, whatever its bytes."""
    pr, manifest, committed = crlf_map_pull(project, digest_of=digest_of)
    assert pr.merge is not None
    fake.add_pull(REPO, pr.number, head_sha=pr.head, base_sha=project.main, head_ref=pr.branch)
    workspace = runner.workspace(at="merge", pr=pr)
    assert project.git("cat-file", "blob", f"{pr.merge}:forged/map.json").encode() == committed.rstrip()
    on_disk = (workspace / "forged" / "map.json").read_bytes()
    assert on_disk != committed  # the rule did rewrite the bytes: a byte comparison would miss them
    assert on_disk == committed.replace(b"\n", b"\r\n")

    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        workspace,
        sha=pr.merge,
        inputs={"coverage-file": manifest},
    )
    # The added .gitattributes is a runner file (fail); the map is refused for where it lies.
    assert result.outputs["verdict"] == "fail", result.log
    assert set(result.outputs["reasons"].split(",")) == {"runner_config_changed", "oracle_incomplete"}
    assert "lies inside the repository's checkout" in result.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"

    if digest_of == "checked-out":  # the same files outside the checkout: the location alone refused
        outside = runner.maps / "crlf-copy"
        shutil.copytree(workspace / "forged", outside)
        control = runner.run(
            "pull_request",
            events.pull_request(project, pr),
            runner.workspace(at="merge", pr=pr),
            sha=pr.merge,
            inputs={"coverage-file": str(outside / "map.json.manifest.json")},
        )
        assert control.outputs["reasons"] == "runner_config_changed", control.log  # the map is used


def test_the_pr_scope_cache_entry_the_judging_restore_can_see_under_pull_request_is_refused(
    runner: Runner, project: Project, fake: FakeGitHub
) -> None:
    """A PR's pull_request run saves a forged map under the shipped workflow's key for the parent. A
    pull_request_target restore (scope: the default branch) misses it; a pull_request restore (a
    workflow the PR controls) returns it, and the gate refuses it for its producer."""
    pr = project.pulls[2]
    assert pr.merge is not None
    templates = restore_key_templates(yaml.safe_load((EXAMPLES / "oracle-gate.yml").read_text()))
    parent = dict.fromkeys(("steps.parent.outputs.sha", "needs.map.outputs.parent"), project.main)
    (key,) = {cache_key(template, parent) for template in templates}  # the map job's and the judge's
    store: CacheStore[Path] = CacheStore()
    saved = runner.write_map(PR_RUN, name="pr-scope-cache", content=FORGED)
    assert store.save(scope_of("pull_request", default_branch="main", pr_number=pr.number), key, saved)

    assert store.restore(scope_of("pull_request_target", default_branch="main"), key) is None
    restored = store.restore(scope_of("pull_request", default_branch="main", pr_number=pr.number), key)
    assert restored == saved
    result = runner.run(
        "pull_request",
        events.pull_request(project, pr),
        runner.workspace(at="merge", pr=pr),
        sha=pr.merge,
        inputs={"coverage-file": str(restored), "trust-same-run-map": "true"},  # even opted in
    )
    assert result.outputs["verdict"] == "unscored", result.log
    assert result.outputs["reasons"] == "oracle_incomplete"
    assert "built by a 'pull_request' run" in result.log
    assert fake.check_runs(REPO)[-1].conclusion != "success"
