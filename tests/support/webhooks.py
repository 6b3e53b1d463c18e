"""Real webhook payloads (copied from @octokit/webhooks-examples) and the variants GitHub's
examples lack, derived from them as the shared README describes: a fork pull request and a
comment on a pull request."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from oracle_gate.action.events import Plan, plan_for
from oracle_gate.review.events import parse_event

WEBHOOKS = Path(__file__).resolve().parent.parent / "data" / "github" / "webhooks"


def load(name: str) -> dict[str, Any]:
    """One stored payload, e.g. ``load("pull_request.opened")``."""
    doc: dict[str, Any] = json.loads((WEBHOOKS / f"{name}.json").read_text())
    return doc


def as_fork(payload: dict[str, Any], owner: str = "forker") -> dict[str, Any]:
    """The same pull request event, opened from a fork owned by ``owner``."""
    out = copy.deepcopy(payload)
    head = out["pull_request"]["head"]
    repo = copy.deepcopy(head["repo"])
    repo.update(fork=True, id=repo["id"] + 1000, name=repo["name"], full_name=f"{owner}/{repo['name']}")
    repo["owner"] = dict(repo["owner"], login=owner, id=repo["owner"]["id"] + 1000)
    head["repo"] = repo
    head["label"] = f"{owner}:{head['ref']}"
    return out


def on_pull_request(
    payload: dict[str, Any], body: str, login: str = "maintainer", user_type: str = "User"
) -> dict[str, Any]:
    """An ``issue_comment.created`` payload on a pull request, with ``body`` by ``login``."""
    out = copy.deepcopy(payload)
    issue = out["issue"]
    api = out["repository"]["url"]
    html = out["repository"]["html_url"]
    number = issue["number"]
    issue["pull_request"] = {
        "url": f"{api}/pulls/{number}",
        "html_url": f"{html}/pull/{number}",
        "diff_url": f"{html}/pull/{number}.diff",
        "patch_url": f"{html}/pull/{number}.patch",
        "merged_at": None,
    }
    out["comment"]["body"] = body
    out["comment"]["user"] = dict(out["comment"]["user"], login=login, type=user_type)
    return out


def as_base_edit(payload: dict[str, Any], old_ref: str, old_sha: str) -> dict[str, Any]:
    """A ``pull_request.edited`` payload whose base branch was changed, derived from another
    ``pull_request`` example (@octokit/webhooks-examples@7.6.1 has no ``edited`` one): ``changes``
    has the shape of webhooks-schemas 7.6.1's ``pull_request$edited`` (``base.ref.from``,
    ``base.sha.from``)."""
    out = copy.deepcopy(payload)
    out["action"] = "edited"
    out["changes"] = {"base": {"ref": {"from": old_ref}, "sha": {"from": old_sha}}}
    return out


def as_title_edit(payload: dict[str, Any], old_title: str) -> dict[str, Any]:
    """A ``pull_request.edited`` payload changing only the title (same derivation as above)."""
    out = copy.deepcopy(payload)
    out["action"] = "edited"
    out["changes"] = {"title": {"from": old_title}}
    return out


def action_plan(event: str, payload: dict[str, Any], check_name: str = "Oracle Gate") -> Plan:
    """What the Action does with ``payload``: parsed once (oracle_gate.review.events), then planned."""
    return plan_for(parse_event(event, payload, "event.json"), check_name)
