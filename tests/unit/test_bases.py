"""Only an allowed base gets the required check's name (TRUST.md invariant 5)."""

from __future__ import annotations

import pytest

from oracle_gate.action.config import clean_allowed_bases
from oracle_gate.action.events import Judge
from oracle_gate.errors import UsageError
from oracle_gate.review.bases import allowed_bases, check_name_for_base
from tests.support.webhooks import action_plan


def test_an_allowed_base_gets_the_required_name_and_any_other_a_suffixed_one() -> None:
    assert check_name_for_base("Oracle Gate", "main", ("main",)) == "Oracle Gate"
    assert check_name_for_base("Oracle Gate", "agent-base", ("main",)) == "Oracle Gate (base: agent-base)"
    assert check_name_for_base("Oracle Gate", None, ("main",)) == "Oracle Gate (base: unknown)"
    assert check_name_for_base("Oracle Gate", "main", ()) == "Oracle Gate (base: main)"  # nothing known


def test_the_default_is_the_default_branch_and_the_input_replaces_it() -> None:
    assert allowed_bases((), "trunk") == ("trunk",)
    assert allowed_bases(("main", "release/2.x"), "trunk") == ("main", "release/2.x")
    assert allowed_bases((), None) == ()


@pytest.mark.parametrize("value", ["refs/heads/main", "release/*", "a b"])
def test_allowed_bases_takes_branch_names_only(value: str) -> None:
    with pytest.raises(UsageError, match="allowed-bases"):
        clean_allowed_bases(value)


def test_the_base_branch_comes_from_the_pull_request_payload() -> None:
    payload = {
        "action": "opened",
        "pull_request": {"number": 3, "base": {"ref": "main"}, "head": {"sha": "a" * 40}},
    }
    plan = action_plan("pull_request_target", payload, "Oracle Gate")
    assert isinstance(plan, Judge)
    assert plan.pr.base_ref == "main"
