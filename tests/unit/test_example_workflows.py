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
    # The App's token writes (see test_the_commands_are_answered_as_the_app); GITHUB_TOKEN only reads.
    assert job["permissions"] == {"contents": "read"}
    assert not any("ref" in (s.get("with") or {}) for s in job["steps"]), "never checks out the PR"


# -- the traps of issue 21: each test below fails on the examples as they were before it ----------

APP_TOKEN_ACTION = "actions/create-github-app-token@"  # noqa: S105  # an action, not a secret
GATE_ACTION = "oracle-gate/oracle-gate@"


def jobs_of(path: Path) -> dict[str, Any]:
    jobs: dict[str, Any] = yaml.safe_load(path.read_text())["jobs"]
    return jobs


def app_step_id(job: dict[str, Any]) -> str | None:
    return next((s.get("id") for s in job.get("steps", []) if APP_TOKEN_ACTION in s.get("uses", "")), None)


def gate_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job.get("steps", []) if s.get("uses", "").startswith(GATE_ACTION)]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yml")), ids=lambda p: p.name)
def test_a_gate_posting_with_an_app_token_names_the_apps_bot_as_comment_author(path: Path) -> None:
    """Seen on main: oracle-gate.yml posted with the App's token and no comment-author, so the gate
    took GET /user's answer (none for an App) and adopted the marker comment any other bot posted."""
    for job in jobs_of(path).values():
        app = app_step_id(job)
        for step in gate_steps(job):
            token = step["with"].get("github-token", "")
            if app and f"steps.{app}.outputs.token" in token:
                assert step["with"].get("comment-author") == f"${{{{ steps.{app}.outputs.app-slug }}}}[bot]"


def test_the_commands_are_answered_as_the_app() -> None:
    """Seen on main: the commands example posted with GITHUB_TOKEN, so a rerun's check had the
    GitHub Actions app as its source and did not count for a check pinned to the App."""
    (job,) = jobs_of(COMMANDS).values()
    assert job["environment"] == "oracle-gate"
    app = app_step_id(job)
    assert app is not None
    (gate,) = gate_steps(job)
    assert gate["with"]["github-token"] == f"${{{{ steps.{app}.outputs.token }}}}"


def python_versions(path: Path) -> list[tuple[str, str]]:
    """(job, python-version) of every job that runs `oracle-gate map`, env.* resolved."""
    doc = yaml.safe_load(path.read_text())
    env = doc.get("env") or {}
    found = []
    for name, job in doc["jobs"].items():
        steps = job.get("steps", [])
        if not any("oracle-gate map" in str(s.get("run", "")) for s in steps):
            continue
        for step in steps:
            if "actions/setup-python@" in step.get("uses", ""):
                version = str(step["with"]["python-version"])
                resolved = re.sub(r"\$\{\{ env\.(\w+) \}\}", lambda m: str(env.get(m[1], "")), version)
                found.append((name, resolved))
    return found


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yml")), ids=lambda p: p.name)
def test_maps_are_built_on_python_312_or_later(path: Path) -> None:
    """Seen on main: the map jobs of oracle-gate.yml and the trusted-contributors example ran on 3.11,
    where the map costs 2.15x the plain suite (1.03-1.24x on 3.12+)."""
    for job, version in python_versions(path):
        major, minor = (int(part) for part in version.split(".")[:2])
        assert (major, minor) >= (3, 12), f"{path.name}: job {job} maps on Python {version}"


def test_a_cache_miss_builds_the_map_in_a_visible_step() -> None:
    """Seen on main: on a cache miss the parent's whole suite ran inside the pull request's check with
    no word about it. The choice (README, "Use it in a repository"): build it in the trusted job, in
    a step named for it that leaves a notice on the run and a line in the job summary. Since issue 31
    that step is in the job ``map``, which holds no credential (TRUST.md invariant 14)."""
    job = jobs_of(EXAMPLES / "oracle-gate.yml")["map"]
    (miss,) = [s for s in job["steps"] if "oracle-gate map" in str(s.get("run", ""))]
    assert miss["name"].startswith("Cache miss:")
    assert "steps.cached.outputs.cache-hit != 'true'" in miss["if"]
    assert "::notice title=Oracle Gate map cache miss::" in miss["run"]
    assert '>> "$GITHUB_STEP_SUMMARY"' in miss["run"]
    run_lines = miss["run"].splitlines()
    announce = next(i for i, line in enumerate(run_lines) if "::notice" in line)
    build = next(i for i, line in enumerate(run_lines) if "oracle-gate map" in line)
    assert announce < build  # said before the suite starts, so a cancelled run still says it


def test_publish_with_an_app_token_names_the_apps_bot_as_comment_author() -> None:
    """Seen on main: the two-stage example ran ``oracle-gate publish`` with the App's token and no
    comment author (publish had no such option)."""
    (job,) = jobs_of(EXAMPLES / "oracle-gate-fork-safe-publish.yml").values()
    app = app_step_id(job)
    (post,) = [s for s in job["steps"] if "oracle-gate publish" in str(s.get("run", ""))]
    assert post["env"]["GITHUB_TOKEN"] == f"${{{{ steps.{app}.outputs.token }}}}"
    assert post["env"]["COMMENT_AUTHOR"] == f"${{{{ steps.{app}.outputs.app-slug }}}}[bot]"
    assert '--comment-author "$COMMENT_AUTHOR"' in post["run"]
