"""``oracle-gate doctor`` against the fake GitHub: a fresh repository goes from nothing to a
required, App-pinned check with ``init``, the numbered manual steps, and doctor reporting nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from oracle_gate.adopt.detect import detect
from oracle_gate.adopt.init import plan
from oracle_gate.github.defaults import APP_EVENTS, APP_PERMISSIONS
from tests.github_fake import FakeGitHub
from tests.github_fake.settings import Environment, client_id
from tests.support.adoption import (
    ACTION_PERMISSIONS,
    APP_ID,
    HEAD,
    REPO,
    SLUG,
    do_the_manual_steps,
    missing_lines,
    name_the_approvers,
    push,
)
from tests.support.in_process import run_cli
from tests.support.repo import Repo, clean_env

RELEASE = "c" * 40


def fresh_repository(root: Path) -> Repo:
    repo = Repo(root)
    repo.write("src/widgets/__init__.py", "")
    repo.write("tests/test_widgets.py", "def test_w():\n    assert True\n")
    repo.write("requirements-test.txt", "pytest\npytest-cov\n")
    repo.commit("widgets")
    repo.git("remote", "add", "origin", f"https://github.com/{REPO}.git")
    return repo


def doctor(fake: FakeGitHub, repo: Repo, *args: str) -> tuple[int, str]:
    env = clean_env(GITHUB_TOKEN=fake.token, **fake.env())
    result = run_cli("doctor", *args, cwd=repo.root, env=env)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, result.stdout


def test_from_nothing_to_a_required_app_pinned_check(github_fake: FakeGitHub, tmp_path: Path) -> None:
    fake = github_fake
    fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    init = run_cli("init", "--app-slug", SLUG, "--ref", RELEASE, cwd=repo.root)
    assert init.returncode == 0, init.stderr
    assert len(re.findall(r"^  \d+\. ", init.stdout, re.MULTILINE)) == 6

    status, out = doctor(fake, repo)
    assert status == 1
    assert missing_lines(out) == [
        "required check",
        "environment 'oracle-gate'",
        "App permissions",
        "map of the default branch's head",
        "workflows",
        "approvals",
    ]
    assert all("-> fix: " in line for line in out.splitlines() if "MISSING" in line)

    do_the_manual_steps(fake, repo)
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (0, []), out
    assert out.rstrip().endswith("Nothing is missing.")
    assert "'Oracle Gate' required by branch protection, source acme-gate" in out
    assert not fake.violations


@pytest.fixture
def set_up(github_fake: FakeGitHub, tmp_path: Path) -> tuple[FakeGitHub, Repo]:
    github_fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    assert run_cli("init", "--app-slug", SLUG, "--ref", RELEASE, cwd=repo.root).returncode == 0
    do_the_manual_steps(github_fake, repo)
    return github_fake, repo


def test_a_required_check_any_app_may_post_is_missing(set_up: tuple[FakeGitHub, Repo]) -> None:
    fake, repo = set_up
    fake.settings.protection.clear()
    fake.settings.require_check(REPO, "main", "Oracle Gate", None)  # "any source"
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["required check"])
    assert "its source is not acme-gate (any App could post it)" in out


def test_a_ruleset_pinned_to_the_app_counts(set_up: tuple[FakeGitHub, Repo]) -> None:
    fake, repo = set_up
    fake.settings.protection.clear()
    fake.settings.require_check(REPO, "main", "Oracle Gate", APP_ID, ruleset=True)
    status, out = doctor(fake, repo)
    assert status == 0, out
    assert "required by ruleset" in out


@pytest.mark.parametrize(
    ("environment", "detail"),
    [
        (Environment(None), "every branch may use it"),
        (Environment(None, protected_branches=True), "protected branches may use it"),
        (Environment(["main", "release/*"]), "others: release/*"),
        (Environment(["main"], secrets=[]), "no secret ORACLE_GATE_APP_KEY"),
        (Environment(["main"], secrets=["ORACLE_GATE_APP_KEY"]), "no variable ORACLE_GATE_APP_CLIENT_ID"),
        (
            Environment(
                ["main"], secrets=["ORACLE_GATE_APP_KEY"], variables={"ORACLE_GATE_APP_CLIENT_ID": "Iv1.x"}
            ),
            "ORACLE_GATE_APP_CLIENT_ID is not acme-gate's client id",
        ),
    ],
)
def test_an_environment_other_branches_may_use_is_missing(
    set_up: tuple[FakeGitHub, Repo], environment: Environment, detail: str
) -> None:
    fake, repo = set_up
    if environment.branch_policies != ["main"]:  # a wrong branch policy, with the rest in place
        environment.secrets = ["ORACLE_GATE_APP_KEY"]
        environment.variables = {"ORACLE_GATE_APP_CLIENT_ID": client_id(APP_ID)}
    fake.settings.add_environment(REPO, "oracle-gate", environment)
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["environment 'oracle-gate'"])
    assert detail in out


def test_a_map_cached_by_another_ref_is_not_the_default_branchs(set_up: tuple[FakeGitHub, Repo]) -> None:
    fake, repo = set_up
    fake.settings.caches.clear()
    fake.settings.add_cache(REPO, f"oracle-gate-map-{HEAD}", "refs/pull/7/merge")
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["map of the default branch's head"])


def test_an_edited_workflow_and_a_bad_freeze_are_shown(set_up: tuple[FakeGitHub, Repo]) -> None:
    fake, repo = set_up
    workflow = ".github/workflows/oracle-gate.yml"
    edited = (repo.root / workflow).read_text().replace("comment: on-change", "comment: never")
    fake.settings.put_file(REPO, "main", workflow, edited.encode())
    fake.settings.put_file(REPO, "main", "freeze.json", b'{"schema": 2, "frozen": []}')
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["policy and freeze", "workflows"])
    assert "freeze.json: 'schema' must be 1" in out
    assert "-          comment: on-change" not in out  # the diff reads installed -> init
    assert "+          comment: on-change" in out
    assert "-          comment: never" in out


def test_no_token_is_one_line_and_exit_3(tmp_path: Path) -> None:
    repo = fresh_repository(tmp_path / "widgets")
    result = run_cli("doctor", cwd=repo.root, env=clean_env(GITHUB_TOKEN=""))
    assert result.returncode == 3
    assert result.stderr.count("\n") == 1
    assert "GITHUB_TOKEN is not set" in result.stderr


# What the bot's manifest asks for (one definition, shared by the manifest and doctor); the last
# event is workflow_run, which a test leaves out.
BOT_PERMISSIONS = dict(APP_PERMISSIONS)
BOT_EVENTS = list(APP_EVENTS)
assert BOT_EVENTS[-1] == "workflow_run"


def test_the_bot_setup_needs_the_access_events(github_fake: FakeGitHub, tmp_path: Path) -> None:
    """Issue 29: an App that is not told of member, membership and team changes keeps an approval
    green after its approver lost access: doctor says so."""
    fake = github_fake
    fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    assert (
        run_cli("init", "--setup", "bot", "--app-slug", SLUG, "--ref", RELEASE, cwd=repo.root).returncode == 0
    )
    access = ("member", "membership", "team")
    fake.settings.publish_app(SLUG, APP_ID, BOT_PERMISSIONS, [e for e in BOT_EVENTS if e not in access])
    repo.git("add", "-A")
    repo.commit("oracle-gate init")
    push(fake, repo)
    fake.settings.set_branch(REPO, "main", HEAD)
    fake.settings.require_check(REPO, "main", "Oracle Gate", APP_ID, ruleset=True)
    fake.add_workflow_run(REPO, ".github/workflows/oracle-gate-map.yml", HEAD)
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["App permissions"]), out
    assert "no events member, membership, team" in out


def test_the_bot_setup_needs_its_events_and_a_map_run_not_an_environment(
    github_fake: FakeGitHub, tmp_path: Path
) -> None:
    fake = github_fake
    fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    assert (
        run_cli("init", "--setup", "bot", "--app-slug", SLUG, "--ref", RELEASE, cwd=repo.root).returncode == 0
    )
    fake.settings.publish_app(SLUG, APP_ID, BOT_PERMISSIONS, BOT_EVENTS[:-1])  # no workflow_run
    repo.git("add", "-A")
    repo.commit("oracle-gate init")
    push(fake, repo)
    fake.settings.set_branch(REPO, "main", HEAD)
    fake.settings.require_check(REPO, "main", "Oracle Gate", APP_ID, ruleset=True)
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["App permissions", "map of the default branch's head"])
    assert "no events workflow_run" in out
    assert "setup bot" in out  # read from the header init wrote
    fake.settings.publish_app(SLUG, APP_ID, BOT_PERMISSIONS, BOT_EVENTS)
    fake.add_workflow_run(REPO, ".github/workflows/oracle-gate-map.yml", HEAD)
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (0, []), out


def test_a_bot_app_without_what_approvals_need_is_missing_its_permission_and_event(
    github_fake: FakeGitHub, tmp_path: Path
) -> None:
    """Doctor checks the bot's App against the manifest's own list: an App registered before
    approvals (no members: read, no pull_request_review) is told what it lacks."""
    fake = github_fake
    fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    assert (
        run_cli("init", "--setup", "bot", "--app-slug", SLUG, "--ref", RELEASE, cwd=repo.root).returncode == 0
    )
    older = {k: v for k, v in BOT_PERMISSIONS.items() if k != "members"}
    fake.settings.publish_app(SLUG, APP_ID, older, [e for e in BOT_EVENTS if e != "pull_request_review"])
    repo.git("add", "-A")
    repo.commit("oracle-gate init")
    push(fake, repo)
    fake.settings.set_branch(REPO, "main", HEAD)
    fake.settings.require_check(REPO, "main", "Oracle Gate", APP_ID, ruleset=True)
    fake.add_workflow_run(REPO, ".github/workflows/oracle-gate-map.yml", HEAD)
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["App permissions"]), out
    assert "members" in out
    assert "pull_request_review" in out


def test_doctor_renders_the_map_repeat_init_wrote(github_fake: FakeGitHub, tmp_path: Path) -> None:
    github_fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    init = run_cli("init", "--app-slug", SLUG, "--ref", RELEASE, "--map-repeat", "1", cwd=repo.root)
    assert init.returncode == 0, init.stderr
    do_the_manual_steps(github_fake, repo)
    status, out = doctor(github_fake, repo)
    assert (status, missing_lines(out)) == (0, []), out  # --repeat 1 read back from the header
    assert "--repeat 1 " in repo.read(".github/workflows/oracle-gate.yml")


# -- issue 31: no false all-clear from doctor ----------------------------------------------------


def test_a_placeholder_pin_is_missing(set_up: tuple[FakeGitHub, Repo]) -> None:
    """Seen on main: workflows pinning the all-zero placeholder (what init wrote without --ref) and
    doctor said "Nothing is missing." (exit 0); the gate could not run at all."""
    fake, repo = set_up
    for planned in plan(detect(repo.root), "primary", SLUG, None):  # the files init used to write
        if "/workflows/" in planned.path:
            fake.settings.put_file(REPO, "main", planned.path, planned.text.encode())
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["release pin"]), out
    assert "init --ref" in out


def test_a_missing_review_workflow_and_a_missing_approvals_table_are_missing(
    set_up: tuple[FakeGitHub, Repo],
) -> None:
    fake, repo = set_up
    del fake.settings.files[(REPO, "main", ".github/workflows/oracle-gate-review-judge.yml")]
    init_policy = run_cli("init", "--app-slug", SLUG, "--ref", RELEASE, "--force", cwd=repo.root)
    assert init_policy.returncode == 0
    fake.settings.put_file(REPO, "main", "oracle-gate.toml", (repo.root / "oracle-gate.toml").read_bytes())
    status, out = doctor(fake, repo)
    assert (status, missing_lines(out)) == (1, ["workflows", "approvals"]), out
    assert "oracle-gate-review-judge.yml missing" in out
    assert "no [approvals] table" in out


def test_doctor_format_json(set_up: tuple[FakeGitHub, Repo]) -> None:
    fake, repo = set_up
    status, out = doctor(fake, repo, "--format", "json")
    report = json.loads(out)
    assert (status, report["missing"]) == (0, 0)
    assert [f["what"] for f in report["findings"]][-2:] == ["release pin", "approvals"]
    assert all(f["ok"] for f in report["findings"])


def test_doctor_fix_makes_the_environment_and_the_ruleset_and_never_a_secret(
    github_fake: FakeGitHub, tmp_path: Path
) -> None:
    """From nothing, the steps the API can do are done by ``doctor --fix``: the environment limited
    to the default branch and a ruleset requiring the check from the App. The secrets stay a step
    for a person (doctor never writes one), and so does everything else."""
    fake = github_fake
    fake.add_repo(REPO)
    repo = fresh_repository(tmp_path / "widgets")
    assert run_cli("init", "--app-slug", SLUG, "--ref", RELEASE, cwd=repo.root).returncode == 0
    fake.settings.publish_app(SLUG, APP_ID, ACTION_PERMISSIONS, [])
    name_the_approvers(repo)
    repo.git("add", "-A")
    repo.commit("oracle-gate init")
    push(fake, repo)
    fake.settings.set_branch(REPO, "main", HEAD)
    fake.settings.add_cache(REPO, f"oracle-gate-map-{HEAD}", "refs/heads/main")

    status, out = doctor(fake, repo, "--fix")
    assert (status, missing_lines(out)) == (1, ["environment 'oracle-gate'"]), out
    assert "no secret ORACLE_GATE_APP_KEY" in out
    assert "'Oracle Gate' required by ruleset, source acme-gate" in out
    environment = fake.settings.environments[(REPO, "oracle-gate")]
    assert (environment.branch_policies, environment.secrets) == (["main"], [])
    assert environment.variables == {"ORACLE_GATE_APP_CLIENT_ID": client_id(APP_ID)}  # public: set
    assert fake.settings.rules[(REPO, "main")] == [("Oracle Gate", APP_ID)]
    assert not fake.violations

    environment.secrets = ["ORACLE_GATE_APP_KEY"]  # the maintainer's step
    status, out = doctor(fake, repo, "--fix")
    assert (status, missing_lines(out)) == (0, []), out
    assert "  fix " not in out  # nothing left to fix: a second run writes nothing
