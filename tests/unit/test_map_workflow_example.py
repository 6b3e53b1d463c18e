"""examples/oracle-gate-map.yml agrees with what the bot looks for (its defaults), and is what the bot's
trust rests on: triggered only by pushes to the default branch, least permissions, pinned actions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.bot.app.config import DEFAULT_MAP_ARTIFACT
from oracle_gate.bot.queue.delivery_jobs import DEFAULT_MAP_WORKFLOW

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "oracle-gate-map.yml"


def workflow() -> dict[Any, Any]:
    doc: dict[Any, Any] = yaml.safe_load(EXAMPLE.read_text())
    return doc


def steps(doc: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in doc["jobs"].values() for step in job["steps"]]


def test_the_bot_looks_for_the_examples_path_and_artifact() -> None:
    assert ".github/workflows/" + EXAMPLE.name == DEFAULT_MAP_WORKFLOW
    uploads = [s for s in steps(workflow()) if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert DEFAULT_MAP_ARTIFACT in [s["with"]["name"] for s in uploads]


def test_only_a_push_to_the_default_branch_runs_it() -> None:
    doc = workflow()
    triggers = doc[True]  # YAML 1.1 reads the key `on` as True
    assert triggers == {"push": {"branches": ["main"]}}


def test_least_permissions_one_map_per_commit_and_pinned_actions() -> None:
    doc = workflow()
    assert doc["permissions"] == {"contents": "read"}
    assert "${{ github.sha }}" in doc["concurrency"]["group"]
    for step in steps(doc):
        if "uses" in step:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


def test_the_map_artifact_holds_only_the_data_and_its_manifest() -> None:
    (upload,) = [s for s in steps(workflow()) if s.get("with", {}).get("name") == DEFAULT_MAP_ARTIFACT]
    paths = upload["with"]["path"].split()
    assert [Path(p).name for p in paths] == ["parent.coverage", "parent.coverage.manifest.json"]
