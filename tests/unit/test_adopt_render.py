"""The files ``init`` writes: the examples are exactly the templates rendered with the examples'
values (so a fix to one is a fix to both), and the header tells ours from the maintainer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracle_gate.adopt.render import (
    EXAMPLE_VALUES,
    SETUPS,
    read_header,
    render_policy,
    render_workflow,
    strip_header,
    with_header,
)
from oracle_gate.judge.policy import Policy, parse_policy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", sorted({n for names in SETUPS.values() for n in names}))
def test_each_example_is_its_template_rendered(name: str) -> None:
    assert (EXAMPLES / name).read_text() == render_workflow(name, EXAMPLE_VALUES), (
        f"examples/{name} and gate/adopt/workflows/{name} differ: edit the template, then "
        "python -m oracle_gate.adopt.render examples"
    )


def test_no_token_is_left_unrendered() -> None:
    for names in SETUPS.values():
        for name in names:
            assert "@@" not in render_workflow(name, EXAMPLE_VALUES), name


def test_the_header_tells_an_untouched_file_from_an_edited_one() -> None:
    text = with_header("body\n", "primary", "acme")
    header = read_header(text)
    assert header is not None
    assert (header.setup, header.app_slug, header.intact) == ("primary", "acme", True)
    edited = read_header(text + "more\n")
    assert edited is not None
    assert not edited.intact
    assert read_header("# my workflow\nbody\n") is None
    assert strip_header(text) == "body\n"


def test_the_policy_spells_out_every_default_and_parses_cleanly() -> None:
    policy = parse_policy(with_header(render_policy(), "primary", None).encode())
    assert policy == Policy()
    assert not policy.problems


def test_doctors_defaults_are_the_actions() -> None:
    import oracle_gate.adopt
    from oracle_gate.github import defaults

    assert oracle_gate.adopt.DEFAULT_CHECK_NAME == defaults.DEFAULT_CHECK_NAME
    assert oracle_gate.adopt.DEFAULT_API_URL == defaults.DEFAULT_API_URL
