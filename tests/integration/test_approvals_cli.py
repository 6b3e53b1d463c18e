"""Contract v3.5 and v3.6 through ``oracle-gate check --approvals FILE --author LOGIN [--pr-head REV]``
on real repositories (the CLI run in-process). A maintainer's approved freeze change passes; an
agent's pull request cannot approve itself in any way these tests can think of."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.factories import TEST_FILE, Project
from tests.support.in_process import run_cli
from tests.support.repo import Repo

MOD = "src/pkg/mod.py"
POLICY = '[approvals]\noracle = ["alice", "@octo-org/oracle-owners"]\ncount = 1\n'
NEW_ENTRY = {"nodeid": f"{TEST_FILE}::test_live", "reason": "flaky since the runner upgrade", "bound_sha": ""}


def with_policy(project: Project, text: str = POLICY) -> None:
    project.new_parent(lambda repo: repo.write("oracle-gate.toml", text))


def freeze_change(project: Project) -> str:
    """A maintainer's pull request: quarantine one more test (freeze.json is protected)."""

    def edit(repo: Repo) -> None:
        doc = json.loads(repo.read("freeze.json"))
        doc["frozen"].append({**NEW_ENTRY, "bound_sha": project.parent})
        repo.write("freeze.json", json.dumps(doc, indent=2) + "\n")

    return project.head(edit)


def approvals_file(tmp_path: Path, entries: Sequence[object] | object, name: str = "approvals.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(entries))
    return path


def approval(
    login: str, commit: str, teams: Sequence[str] = (), permission: str = "write"
) -> dict[str, object]:
    return {"login": login, "commit": commit, "teams": list(teams), "permission": permission}


def check(project: Project, head: str, *extra: str, fmt: str = "json") -> subprocess.CompletedProcess[str]:
    args = ["check", "--repo", str(project.root), "--base", project.parent, "--head", head]
    args += ["--coverage", str(project.coverage), "--coverage-sha", project.parent, "--format", fmt]
    return run_cli(*args, *extra)


def codes(done: subprocess.CompletedProcess[str]) -> set[str]:
    return {r["code"] for r in json.loads(done.stdout)["reasons"]}


def test_without_approvals_a_freeze_change_fails(project: Project) -> None:
    with_policy(project)
    done = check(project, freeze_change(project))
    assert (done.returncode, codes(done)) == (1, {"oracle_edit_forbidden"})


def test_approved_freeze_change_passes_and_names_the_approval(project: Project, tmp_path: Path) -> None:
    with_policy(project)
    head = freeze_change(project)
    file = approvals_file(tmp_path, [approval("alice", head)])
    done = check(project, head, "--approvals", str(file), "--author", "maintainer-bob")
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["verdict"] == "pass_clean"
    assert {"code": "oracle_change_approved", "detail": f"approved by alice at {head}"} in doc["reasons"]


def test_a_push_makes_the_approval_stale(project: Project, tmp_path: Path) -> None:
    with_policy(project)
    first = freeze_change(project)
    project.repo.write("README.md", "pushed again\n")
    second = project.repo.commit("push")
    file = approvals_file(tmp_path, [approval("alice", first)])
    done = check(project, second, "--approvals", str(file), "--author", "bob")
    assert (done.returncode, codes(done)) == (1, {"oracle_edit_forbidden"})


SELF_APPROVALS = {
    "the author approves": (approval("alice", "HEAD"), "alice"),
    "read permission": (approval("alice", "HEAD", (), "read"), "agent"),
    "a team that is not named": (approval("mallory", "HEAD", ("octo-org/agents",), "admin"), "agent"),
    "the agent's own bot": (approval("agent[bot]", "HEAD", ("octo-org/oracle-owners",)), "agent"),
    "someone unnamed": (approval("mallory", "HEAD", (), "admin"), "agent"),
}


@pytest.mark.parametrize("case", SELF_APPROVALS)
def test_an_agent_cannot_approve_itself(project: Project, tmp_path: Path, case: str) -> None:
    with_policy(project)
    head = freeze_change(project)
    entry, author = SELF_APPROVALS[case]
    file = approvals_file(tmp_path, [{**entry, "commit": head}])
    done = check(project, head, "--approvals", str(file), "--author", author)
    assert (done.returncode, codes(done)) == (1, {"oracle_edit_forbidden"}), case


def test_count_not_met(project: Project, tmp_path: Path) -> None:
    with_policy(project, '[approvals]\noracle = ["alice", "carol"]\ncount = 2\n')
    head = freeze_change(project)
    one = approvals_file(tmp_path, [approval("alice", head), approval("alice", head)])
    assert check(project, head, "--approvals", str(one), "--author", "x").returncode == 1
    two = approvals_file(tmp_path, [approval("alice", head), approval("carol", head)], "two.json")
    assert check(project, head, "--approvals", str(two), "--author", "x").returncode == 0


def test_pr_head_is_the_sha_an_approval_must_name(project: Project, tmp_path: Path) -> None:
    """With --pr-head, --head is GitHub's test merge: the approval names the pull request's head."""
    with_policy(project)
    pr_head = freeze_change(project)
    project.repo.write("README.md", "a merge-like commit on top\n")
    merge = project.repo.commit("test merge")
    on_pr_head = approvals_file(tmp_path, [approval("alice", pr_head)])
    args = ["--approvals", str(on_pr_head), "--author", "bob"]
    assert check(project, merge, *args, "--pr-head", pr_head[:10]).returncode == 0
    assert check(project, merge, *args).returncode == 1  # compared with --head: stale
    on_merge = approvals_file(tmp_path, [approval("alice", merge)], "merge.json")
    args = ["--approvals", str(on_merge), "--author", "bob", "--pr-head", pr_head]
    assert check(project, merge, *args).returncode == 1


def test_approved_seed_append_passes_and_rewrite_fails(project: Project, tmp_path: Path) -> None:
    with_policy(project)
    project.new_parent(lambda repo: repo.write("seeds/corpus.json", '["a", "b"]\n'))
    append = project.head(lambda repo: repo.write("seeds/corpus.json", '["a", "b", "c"]\n'))
    file = approvals_file(tmp_path, [approval("alice", append)])
    assert check(project, append, "--approvals", str(file), "--author", "bob").returncode == 0
    rewrite = project.head(lambda repo: repo.write("seeds/corpus.json", '["b", "c"]\n'))
    file = approvals_file(tmp_path, [approval("alice", rewrite)], "rewrite.json")
    done = check(project, rewrite, "--approvals", str(file), "--author", "bob")
    assert (done.returncode, codes(done)) == (1, {"seed_rewritten", "oracle_change_approved"})
    unapproved = check(project, rewrite)
    assert codes(unapproved) == {"seed_rewritten", "oracle_edit_forbidden"}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("not json", "not valid JSON"),
        ('{"login": "alice"}', "expected a JSON list"),
        ('[{"login": "alice", "commit": "x", "teams": []}]', "entry 0 lacks 'permission'"),
        ('[{"login": "alice", "commit": "x", "teams": "t", "permission": "write"}]', "'teams' must be"),
        ('[{"login": 1, "commit": "x", "teams": [], "permission": "write"}]', "must be strings"),
        ('["alice"]', "entry 0 is not an object"),
    ],
)
def test_a_malformed_approvals_file_is_a_usage_error(
    project: Project, tmp_path: Path, content: str, problem: str
) -> None:
    head = freeze_change(project)
    file = tmp_path / "approvals.json"
    file.write_text(content)
    done = check(project, head, "--approvals", str(file), "--author", "bob")
    assert done.returncode == 3
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert problem in done.stderr
    assert str(file) in done.stderr


def test_approvals_without_author_is_a_usage_error(project: Project, tmp_path: Path) -> None:
    head = freeze_change(project)
    file = approvals_file(tmp_path, [])
    done = check(project, head, "--approvals", str(file))
    assert done.returncode == 3
    assert "--approvals needs --author" in done.stderr
    missing = check(project, head, "--approvals", str(tmp_path / "nope.json"), "--author", "bob")
    assert missing.returncode == 3
    assert "cannot read it" in missing.stderr


def test_a_head_that_names_its_own_approver_gains_nothing(project: Project, tmp_path: Path) -> None:
    """The approvers are the parent's: a change adding its friend to [approvals] is not approved by them."""
    with_policy(project)

    def edit(repo: Repo) -> None:
        repo.write("oracle-gate.toml", POLICY.replace('"alice"', '"alice", "mallory"'))
        repo.write("freeze.json", repo.read("freeze.json").replace('"frozen": [', '"frozen": [ '))

    head = project.head(edit)
    file = approvals_file(tmp_path, [approval("mallory", head, (), "admin")])
    done = check(project, head, "--approvals", str(file), "--author", "agent")
    assert (done.returncode, codes(done)) == (1, {"oracle_edit_forbidden"})
