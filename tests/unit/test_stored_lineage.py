"""``oracle-gate publish`` posts a stored verdict only when GitHub says its ``head`` is the test merge
of this pull request: parents exactly (stored ``parent``, the pull request's head), in that order."""

from __future__ import annotations

import dataclasses

import pytest

from oracle_gate.action.publish_stored import lineage_problem
from tests.support.rendering_cases import VERDICT_KINDS

STORED = VERDICT_KINDS["pass_clean"]()
HEAD = "c" * 40
OTHER = "d" * 40


def test_the_test_merge_of_this_head_is_accepted() -> None:
    assert lineage_problem(STORED, HEAD, [STORED.parent, HEAD]) is None


@pytest.mark.parametrize(
    "parents",
    [
        pytest.param([HEAD, STORED.parent], id="parents-swapped"),
        pytest.param([STORED.parent, OTHER], id="another-head"),
        pytest.param([OTHER, HEAD], id="another-parent"),
        pytest.param([STORED.parent], id="not-a-merge"),
        pytest.param([], id="a-root-commit"),
        pytest.param([STORED.parent, HEAD, OTHER], id="an-octopus"),
    ],
)
def test_any_other_lineage_is_rejected_saying_why(parents: list[str]) -> None:
    why = lineage_problem(STORED, HEAD, parents)
    assert why is not None
    assert "not the test merge of this pull request" in why
    assert STORED.head[:12] in why
    assert "\n" not in why


def test_a_stored_head_equal_to_the_pull_requests_head_is_rejected() -> None:
    """The change judged its own head against its own parent: not GitHub's merge, whatever its parents."""
    own = dataclasses.replace(STORED, head=HEAD)
    assert lineage_problem(own, HEAD, [STORED.parent]) is not None
