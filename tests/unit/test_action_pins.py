"""Every action the project ships or runs is pinned by full SHA, its version beside it, on a Node 24
major; Dependabot watches every directory those pins live in (issue 31).

GitHub's runners run JavaScript actions on Node 24 since 2026-06-02 and remove Node 20 on
2026-09-16: an action whose major still declares ``runs.using: node20`` stops working then. The
first Node 24 major of each action below was read from the action's own ``action.yml`` at its
``vN.0.0`` tag (``git show vN.0.0:action.yml``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW_DIRS = ("examples", "gate/adopt/workflows", ".github/workflows")
FILES = sorted(path for folder in WORKFLOW_DIRS for path in (ROOT / folder).glob("*.yml"))
FIRST_NODE24_MAJOR = {
    "actions/checkout": 5,
    "actions/setup-python": 6,
    "actions/cache": 5,
    "actions/upload-artifact": 6,
    "actions/download-artifact": 7,
    "actions/create-github-app-token": 3,
    "actions/attest-build-provenance": 4,  # composite; v4 runs actions/attest, itself on Node 24
}
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?:\s+#\s*(?P<comment>.*))?$", re.MULTILINE)
PINNED = re.compile(r"(?P<action>[\w.-]+/[\w.-]+)(?:/[\w./-]+)?@(?P<sha>[0-9a-f]{40})")
VERSION_COMMENT = re.compile(r"v(?P<major>\d+)\.\d+\.\d+\b")
OUR_ACTION = "oracle-gate/oracle-gate@"  # the adopter pins the release they reviewed (init --ref)


def pins(path: Path) -> list[tuple[str, str]]:
    """(uses, comment) of every ``uses:`` line of a workflow file."""
    return [(m["ref"], m["comment"] or "") for m in USES.finditer(path.read_text(encoding="utf-8"))]


def test_the_shipped_workflows_are_all_here() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in FILES}
    assert {"examples/oracle-gate.yml", "gate/adopt/workflows/oracle-gate.yml"} <= names
    assert ".github/workflows/release.yml" in names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_action_is_pinned_by_full_sha_with_its_version_on_node24(path: Path) -> None:
    for uses, comment in pins(path):
        if uses.startswith(OUR_ACTION) or uses.startswith("./"):
            continue
        found = PINNED.fullmatch(uses)
        assert found, f"{path.name}: {uses} is not pinned by a full commit SHA"
        version = VERSION_COMMENT.match(comment)
        assert version, f"{path.name}: {uses} has no '# vX.Y.Z' comment naming its version"
        action = found["action"]
        assert action in FIRST_NODE24_MAJOR, f"{path.name}: {action} is not in this test's table"
        major = int(version["major"])
        assert major >= FIRST_NODE24_MAJOR[action], (
            f"{path.name}: {action} v{major} runs on Node 20 (removed 2026-09-16); "
            f"v{FIRST_NODE24_MAJOR[action]} or later runs on Node 24"
        )


def test_one_action_version_is_one_sha_everywhere() -> None:
    """Two SHAs under one version comment would mean one of them is not that version."""
    seen: dict[str, set[str]] = {}
    for path in FILES:
        for uses, comment in pins(path):
            found = PINNED.fullmatch(uses)
            version = VERSION_COMMENT.match(comment)
            if found and version and not uses.startswith(OUR_ACTION):
                seen.setdefault(f"{found['action']} {version[0]}", set()).add(found["sha"])
    assert seen
    assert {key: shas for key, shas in seen.items() if len(shas) > 1} == {}


def test_dependabot_watches_every_directory_of_pinned_actions() -> None:
    config = yaml.safe_load((ROOT / ".github/dependabot.yml").read_text())
    (actions,) = [u for u in config["updates"] if u["package-ecosystem"] == "github-actions"]
    watched = set(actions.get("directories") or [actions.get("directory")])
    assert watched >= {"/", "/examples", "/gate/adopt/workflows"}
