"""The manual steps of adopting the gate, done on the fake GitHub: what ``init``'s numbered list asks a
maintainer to do after it wrote the files, so that ``doctor`` then finds nothing missing. Shared by
``tests/github/test_doctor.py`` and the configuration matrix (``doctor`` on every configuration)."""

from __future__ import annotations

import re

from tests.github_fake import FakeGitHub
from tests.github_fake.settings import Environment, client_id
from tests.support.repo import Repo

REPO = "acme/widgets"
SLUG = "acme-gate"
APP_ID = 4242
HEAD = "d" * 40
ACTION_PERMISSIONS = {"checks": "write", "contents": "read", "pull_requests": "write", "metadata": "read"}


def push(fake: FakeGitHub, repo: Repo, branch: str = "main", name: str = REPO) -> None:
    """What `git push` of init's files does, as the contents API then answers."""
    for path in repo.git("ls-files").splitlines():
        fake.settings.put_file(name, branch, path, (repo.root / path).read_bytes())


def do_the_manual_steps(fake: FakeGitHub, repo: Repo, name: str = REPO) -> None:
    """Publish the App, make its environment, name the approvers, commit and push init's files, cache a
    map of the default branch's head and require the check with the App as its source."""
    fake.settings.publish_app(SLUG, APP_ID, ACTION_PERMISSIONS, [])
    fake.settings.add_environment(
        name,
        "oracle-gate",
        Environment(
            ["main"],
            secrets=["ORACLE_GATE_APP_KEY"],
            variables={"ORACLE_GATE_APP_CLIENT_ID": client_id(APP_ID)},
        ),
    )
    name_the_approvers(repo)
    repo.git("add", "-A")
    repo.commit("oracle-gate init")
    push(fake, repo, name=name)
    fake.settings.set_branch(name, "main", HEAD)
    fake.settings.add_cache(name, f"oracle-gate-map-{HEAD}", "refs/heads/main")
    fake.settings.require_check(name, "main", "Oracle Gate", APP_ID)


def name_the_approvers(repo: Repo) -> None:
    """The manual step init's [approvals] comment asks for: uncomment the table, name people."""
    policy = repo.read("oracle-gate.toml")
    policy = re.sub(r"^# (\[approvals\]|count = )", r"\1", policy, flags=re.MULTILINE)
    repo.write(
        "oracle-gate.toml",
        re.sub(r"^# oracle = .*$", 'oracle = ["octo-maintainer"]', policy, flags=re.MULTILINE),
    )


def missing_lines(out: str) -> list[str]:
    """The names of what doctor says is missing, one per MISSING line."""
    return re.findall(r"^  MISSING  ([^:]+):", out, re.MULTILINE)
