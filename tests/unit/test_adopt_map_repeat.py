"""The map workflows ``init`` writes run the parent's tests ``--repeat N`` times (contract v3.4), N
from ``init --map-repeat`` (default 2), recorded in the header so ``doctor`` renders the same."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from oracle_gate.adopt.render import (
    DEFAULT_MAP_REPEAT,
    EXAMPLE_VALUES,
    MAX_MAP_REPEAT,
    SETUPS,
    read_header,
    render_workflow,
    with_header,
)
from oracle_gate.maps.repeat import MAX_REPEAT

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TEMPLATES = sorted({name for names in SETUPS.values() for name in names})
#: Every ``oracle-gate map`` that measures (not ``--combine``), continued lines joined.
MAP_RUN = re.compile(r"oracle-gate map --repo (?:\\\n|[^\n])*")


def map_runs(text: str) -> list[str]:
    return [" ".join(run.replace("\\\n", " ").split()) for run in MAP_RUN.findall(text)]


def test_every_map_workflow_measures_with_repeat_2_by_default() -> None:
    assert DEFAULT_MAP_REPEAT == EXAMPLE_VALUES.map_repeat == 2
    measuring = {name: map_runs((EXAMPLES / name).read_text()) for name in TEMPLATES}
    assert {name for name, runs in measuring.items() if runs} == {
        "oracle-gate.yml",  # parent-map on push, and the cache-miss step of the judging job
        "oracle-gate-map.yml",
        "oracle-gate-sharded-map.yml",
    }
    for name, runs in measuring.items():
        for run in runs:
            assert " --repeat 2 " in run, (name, run)
    assert len(measuring["oracle-gate.yml"]) == 2  # the same map whoever builds it


@pytest.mark.parametrize("name", TEMPLATES)
def test_the_count_is_the_one_init_was_given(name: str) -> None:
    once = render_workflow(name, replace(EXAMPLE_VALUES, map_repeat=1))
    assert all(" --repeat 1 " in run for run in map_runs(once))
    assert "--repeat 2 " not in once


def test_the_header_records_the_count() -> None:
    header = read_header(with_header("body\n", "bot", None, 3))
    assert header is not None
    assert (header.setup, header.map_repeat, header.intact) == ("bot", 3, True)
    older = read_header(with_header("body\n", "primary", "acme"))  # a header written before the count
    assert older is not None
    assert (older.app_slug, older.map_repeat) == ("acme", None)


def test_adopt_and_map_agree_on_the_limit() -> None:
    assert MAX_MAP_REPEAT == MAX_REPEAT
