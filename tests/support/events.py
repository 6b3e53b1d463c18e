"""Event payloads for the end-to-end tests, derived from GitHub's real webhook examples.

Each starts from a copied payload (tests/data/github/webhooks) and only replaces what must match
the test repository: the repository's name, the pull request's number, refs and SHAs, the
comment's author and body, the check run's name and pull requests.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.support.project import REPO, Project, PullRequest
from tests.support.webhooks import as_fork, load, on_pull_request

EXAMPLE_REPOS = ("Codertocat/Hello-World", "github/hello-world")


def _renamed(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with the example repository (names and URLs) replaced by ours."""
    text = json.dumps(payload)
    for example in EXAMPLE_REPOS:
        text = text.replace(example, REPO)
    out: dict[str, Any] = json.loads(text)
    owner, name = REPO.split("/")
    for repo in _repositories(out):
        repo.update(full_name=REPO, name=name, default_branch="main")
        repo["owner"]["login"] = owner
    return out


def _repositories(payload: dict[str, Any]) -> list[dict[str, Any]]:
    found = [payload["repository"]]
    pull = payload.get("pull_request")
    if pull:
        found += [pull["base"]["repo"], pull["head"]["repo"]]
    return found


def pull_request(
    project: Project,
    pr: PullRequest,
    *,
    action: str = "synchronize",
    fork: bool = False,
    base_ref: str = "main",
) -> dict[str, Any]:
    """``pull_request`` / ``pull_request_target`` for ``pr`` (from a fork when ``fork``) to ``base_ref``
    (whose tip is ``pr.base``, else the project's main)."""
    payload = _renamed(load(f"pull_request.{action}"))
    payload["number"] = pr.number
    pull = payload["pull_request"]
    pull["number"] = pr.number
    pull["head"].update(sha=pr.head, ref=pr.branch, label=f"{REPO.split('/')[0]}:{pr.branch}")
    pull["base"].update(sha=pr.base or project.main, ref=base_ref)
    return as_fork(payload, owner="agent-fork") if fork else payload


def comment(pr: PullRequest, body: str, *, login: str, comment_id: int) -> dict[str, Any]:
    """``issue_comment.created`` on pull request ``pr``, saying ``body``."""
    payload = _renamed(on_pull_request(load("issue_comment.created"), body, login=login))
    payload["issue"]["number"] = pr.number
    payload["comment"]["id"] = comment_id
    return payload


def check_run_rerequested(project: Project, pr: PullRequest, *, name: str) -> dict[str, Any]:
    """``check_run.rerequested`` of our check run on ``pr``'s head."""
    payload = _renamed(load("check_run.rerequested"))
    run = payload["check_run"]
    run.update(name=name, head_sha=pr.head)
    template = {
        "id": 1,
        "number": pr.number,
        "url": f"https://api.github.com/repos/{REPO}/pulls/{pr.number}",
        "head": {"ref": pr.branch, "sha": pr.head, "repo": {"id": 1, "name": "widgets", "url": ""}},
        "base": {"ref": "main", "sha": project.main, "repo": {"id": 1, "name": "widgets", "url": ""}},
    }
    run["pull_requests"] = [copy.deepcopy(template)]
    return payload


def merge_group(project: Project, *, head_sha: str, head_ref: str, base: str = "main") -> dict[str, Any]:
    """``merge_group.checks_requested``: the queue's merge commit ``head_sha`` on ``head_ref``, built
    on ``base``'s tip (the project's main)."""
    payload = _renamed(load("merge_group.checks_requested"))
    payload["merge_group"].update(
        head_sha=head_sha, head_ref=head_ref, base_sha=project.main, base_ref=f"refs/heads/{base}"
    )
    return payload
