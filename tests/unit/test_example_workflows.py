"""The example workflows: actions pinned by full SHA, and the bot-command workflow filtered on who
comments before a runner starts (the gate re-checks the permission through the API)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMMANDS = EXAMPLES / "oracle-gate-commands.yml"


def steps_uses(doc: dict[str, Any]) -> list[str]:
    return [step["uses"] for job in doc["jobs"].values() for step in job.get("steps", []) if "uses" in step]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yml")), ids=lambda p: p.name)
def test_every_action_is_pinned_by_a_full_sha(path: Path) -> None:
    for uses in steps_uses(yaml.safe_load(path.read_text())):
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), uses


def test_the_commands_workflow_filters_on_author_association_and_serialises() -> None:
    """Seen on main: no example existed, and a command from anyone started a full run (the
    permission check happened after the job started)."""
    doc = yaml.safe_load(COMMANDS.read_text())
    triggers = doc[True]  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"issue_comment"}
    assert triggers["issue_comment"]["types"] == ["created"]
    assert "concurrency" in doc
    assert doc["permissions"] == {}
    (job,) = doc["jobs"].values()
    condition = " ".join(job["if"].split())
    assert "github.event.comment.author_association" in condition
    assert '\'["OWNER", "MEMBER", "COLLABORATOR"]\'' in condition
    assert "github.event.issue.pull_request" in condition
    assert job["permissions"] == {"contents": "read", "checks": "write", "pull-requests": "write"}
    assert not any("ref" in (s.get("with") or {}) for s in job["steps"]), "never checks out the PR"
