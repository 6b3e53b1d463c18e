"""A map's producer is trusted only when no pull request could have run it."""

from __future__ import annotations

import pytest

from oracle_gate.maps.reader.provenance import Producer, producer_problems
from tests.support.producers import default_branch_push_run

REPO = "octo-org/agent-repo"
TRUSTED = default_branch_push_run(REPO, run_id="100", sha="a" * 40)


def problems(producer: Producer | None, **options: object) -> list[str]:
    return producer_problems(producer, repository=REPO, default_branch="main", **options)  # type: ignore[arg-type]


def test_a_default_branch_push_run_is_trusted() -> None:
    assert problems(TRUSTED) == []
    assert TRUSTED.workflow_path == ".github/workflows/oracle-gate-map.yml"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"event": "pull_request"}, "'pull_request' run"),
        ({"event": "pull_request_target"}, "'pull_request_target' run"),
        ({"ref": "refs/pull/7/merge"}, "not on the default branch"),
        (
            {"workflow_ref": f"{REPO}/.github/workflows/oracle-gate-map.yml@refs/pull/7/merge"},
            "workflow file",
        ),
        ({"repository": "agent/fork"}, "not in"),
    ],
)
def test_anything_a_pull_request_could_run_is_not(change: dict[str, str], why: str) -> None:
    forged = Producer(**{**TRUSTED.to_document(), **change})
    found = problems(forged)
    assert found, f"{change} was trusted"
    assert any(why in p for p in found), found


def test_the_judging_run_itself_is_trusted_whatever_its_event() -> None:
    same_job = Producer(
        **{**TRUSTED.to_document(), "event": "pull_request_target", "ref": "refs/pull/7/merge"}
    )
    assert problems(same_job, current_run_id="100") == []
    assert problems(same_job, current_run_id="101") != []


def test_no_producer_is_trusted_only_where_local_maps_are_accepted() -> None:
    assert problems(None) != []
    assert problems(None, accept_local=True) == []


def test_producer_round_trips_and_rejects_malformed_documents() -> None:
    assert Producer.from_document(TRUSTED.to_document()) == TRUSTED
    assert Producer.from_document({**TRUSTED.to_document(), "run_id": 100}) is None
    assert Producer.from_document("push") is None


def test_producer_from_the_actions_environment() -> None:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_WORKFLOW_REF": TRUSTED.workflow_ref,
        "GITHUB_RUN_ID": "100",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_JOB": "map",
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_SHA": "a" * 40,
    }
    assert Producer.from_environ(env) == TRUSTED
    assert Producer.from_environ({k: v for k, v in env.items() if k != "GITHUB_ACTIONS"}) is None


def test_the_same_run_id_from_another_repository_is_not_this_run() -> None:
    """Run ids are per repository: a fork's run that happens to carry this run's id is a stranger."""
    fork_run = Producer(**{**TRUSTED.to_document(), "repository": "agent/fork", "event": "pull_request"})
    found = problems(fork_run, current_run_id=TRUSTED.run_id)
    assert any("not in" in p for p in found), found
