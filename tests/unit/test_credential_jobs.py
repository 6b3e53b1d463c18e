"""TRUST.md invariant 14 on every workflow the project ships: a credential never shares a job with a
test suite (issue 31).

Checked on each example workflow and on every file ``oracle-gate init`` writes, for every setup:

* a job that holds a credential able to post the required check (an environment, a secret other
  than ``GITHUB_TOKEN``, an App token it mints) runs no test suite (no ``oracle-gate map`` build,
  no ``oracle-gate score``, no pytest, no ``coverage-command``) and installs nothing that pip does
  not check against a hash (``--require-hashes``, or ``--no-index --no-deps`` of a checkout git
  verified);
* a job that runs a test suite holds no environment, no secret but ``GITHUB_TOKEN``, no App token,
  and a token that may only read.

Seen on main: the primary setup's judging job held the App's key (environment ``oracle-gate``)
and, on a map cache miss, ran ``pip install -r requirements-test.txt`` and the parent's whole
suite; the fork-safe and score judges installed the gate unpinned by hash beside the key.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.adopt.detect import Detected
from oracle_gate.adopt.init import plan
from oracle_gate.adopt.render import SETUPS

ROOT = Path(__file__).resolve().parents[2]
APP_TOKEN = "actions/create-github-app-token@"  # noqa: S105  # an action, not a secret
SECRET = re.compile(r"secrets\.(?!GITHUB_TOKEN\b)\w+")
TEST_SUITE = re.compile(
    r"oracle-gate\s+map\b(?![^\n]*--combine)|oracle-gate\s+score\b(?!-)|\bpytest\b|\btox\b|\bnox\b"
)
INSTALL = re.compile(r"\bpip3?\s+install\b[^\n]*(?:\\\n[^\n]*)*|\buv\s+(?:pip|tool|add)\b|\bpipx\b|\buvx\b")
DETECTED = Detected("main", "3.12", "requirements-test.txt", ("tests",), False, ())


def workflows() -> list[tuple[str, str]]:
    """(label, text) of every example and of every file init writes for every setup."""
    shipped = [(f"examples/{p.name}", p.read_text()) for p in sorted((ROOT / "examples").glob("*.yml"))]
    written = [
        (f"init --setup {setup}: {planned.path}", planned.text)
        for setup in SETUPS
        for planned in plan(DETECTED, setup, "my-gate", "1" * 40)
        if planned.path.endswith(".yml") and "/workflows/" in planned.path
    ]
    return shipped + written


WORKFLOWS = workflows()


def job_permissions(doc: dict[str, Any], job: dict[str, Any]) -> Any:
    return job["permissions"] if "permissions" in job else doc.get("permissions")


def may_write(permissions: Any) -> bool:
    if permissions is None or isinstance(permissions, str):
        return permissions not in ("read-all", {})  # absent: the repository's default
    return any(level == "write" for level in permissions.values())


def credentials(doc: dict[str, Any], job: dict[str, Any]) -> list[str]:
    """What in ``job`` could post the required check (empty: nothing)."""
    text = yaml.safe_dump(job)
    held = []
    if "environment" in job:
        held.append(f"environment {job['environment']}")
    held += sorted(set(SECRET.findall(text)))
    if APP_TOKEN in text:
        held.append("an App token")
    return held


def suites_of(job: dict[str, Any]) -> list[str]:
    """The steps of ``job`` that run a test suite (the parent's or the head's)."""
    found = []
    for step in job.get("steps", []):
        if TEST_SUITE.search(str(step.get("run", ""))):
            found.append(str(step.get("name") or step["run"].splitlines()[0]))
        if "coverage-command" in (step.get("with") or {}):
            found.append(f"{step['uses']} with coverage-command")
    return found


def unhashed_installs(job: dict[str, Any]) -> list[str]:
    found = []
    for step in job.get("steps", []):
        for match in INSTALL.finditer(str(step.get("run", ""))):
            line = match[0]
            hashed = "--require-hashes" in line
            local = "--no-index" in line and "--no-deps" in line and "git+" not in line
            if not (hashed or local):
                found.append(" ".join(line.split()))
    return found


def test_every_setup_and_example_is_checked() -> None:
    labels = [label for label, _ in WORKFLOWS]
    assert len([x for x in labels if x.startswith("examples/")]) >= 10
    for setup in SETUPS:
        assert any(x.startswith(f"init --setup {setup}:") for x in labels), setup


@pytest.mark.parametrize(("label", "text"), WORKFLOWS, ids=[label for label, _ in WORKFLOWS])
def test_a_credential_never_shares_a_job_with_a_test_suite(label: str, text: str) -> None:
    doc = yaml.safe_load(text)
    for name, job in doc["jobs"].items():
        held, suites = credentials(doc, job), suites_of(job)
        if held:
            assert not suites, f"{label}: job {name} holds {held} and runs {suites}"
            assert not unhashed_installs(job), f"{label}: job {name} holds {held}, installs unhashed"
        if suites:
            assert not held, f"{label}: job {name} runs {suites} and holds {held}"
            permissions = job_permissions(doc, job)
            assert not may_write(permissions), f"{label}: job {name} runs {suites}, may write"


@pytest.mark.parametrize(
    ("job", "problem"),
    [
        # the primary setup's judging job as it was: the key, and the parent's suite on a cache miss
        (
            {
                "environment": "oracle-gate",
                "steps": [{"run": "pip install -r repo/requirements-test.txt\noracle-gate map --repo repo"}],
            },
            "suite, install",
        ),
        ({"steps": [{"uses": APP_TOKEN + "x"}, {"run": "python -m pytest"}]}, "suite"),
        (
            {
                "steps": [
                    {"run": "echo ${{ secrets.KEY }}"},
                    {"uses": "o/g@x", "with": {"coverage-command": "pytest"}},
                ]
            },
            "suite",
        ),
        (
            {"environment": "e", "steps": [{"run": 'pip install "pr-oracle-gate @ git+https://x@1"'}]},
            "install",
        ),
        ({"environment": "e", "steps": [{"run": "pip install --no-deps \\\n  -r reqs.txt"}]}, "install"),
    ],
)
def test_the_checks_find_a_credential_beside_a_suite_or_an_unhashed_install(
    job: dict[str, Any], problem: str
) -> None:
    doc: dict[str, Any] = {"permissions": {"contents": "read"}}
    assert credentials(doc, job)
    assert bool(suites_of(job)) == ("suite" in problem)
    assert bool(unhashed_installs(job)) == ("install" in problem)


def test_the_hash_pinned_gate_install_is_not_flagged() -> None:
    job = {
        "steps": [
            {
                "run": "python -m pip install --no-deps --require-hashes \\\n  -r a.txt -r b.txt\n"
                "python -m pip install --no-deps --no-index --no-build-isolation ./oracle-gate-src"
            }
        ]
    }
    assert unhashed_installs(job) == []
    assert suites_of({"steps": [{"run": "oracle-gate map --combine m shards/*/parent.coverage"}]}) == []
