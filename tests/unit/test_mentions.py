"""No text from a pull request can mention a person or a team through what the gate posts.

GitHub turns ``@login`` and ``@org/team`` into mentions (and notifications) in markdown text, but not
inside code spans or fenced blocks. The verdicts here carry ``@someone`` and ``@org/team`` in paths,
frozen test node ids and reason details; every markdown rendering must leave no ``@`` outside code,
and must still show the text, so the test cannot pass by dropping it. ``&#64;`` is no escape: GitHub
decodes entities before it finds mentions; a zero-width space after the ``@`` (``@&#8203;login``,
as Dependabot writes them) is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from oracle_gate.judge.verdict import Outcome, Reason, ReasonCode, Verdict
from oracle_gate.render.check import check_title, error_summary
from oracle_gate.render.explain import explain_error_reply
from oracle_gate.render.job_summary import action_error_summary
from tests.support.markdown import outside_code
from tests.support.rendering_cases import HEAD, MARKDOWN_RENDERINGS, PARENT, PROTOCOL

HANDLES = ("@someone", "@org/team")
EVIL_PATH = "src/@someone/mod.py"
EVIL_TEST = "tests/test_x.py::test_ping[@org/team]"


def hostile_fail() -> Verdict:
    reasons = (
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN,
            f"{EVIL_PATH}: edited (protected by 'src/**') cc @someone",
            EVIL_PATH,
        ),
        Reason(
            ReasonCode.SKIP_MARKER_ADDED,
            "tests/t.py:3: adds 'pytest.mark.skip': # ping @org/team",
            "tests/t.py",
            3,
        ),
        Reason(ReasonCode.ORACLE_INCOMPLETE, "freeze.json: entry 1 names @someone as owner"),
    )
    # Approvers come from the parent's policy, but they are named in code all the same: no ping.
    return Verdict(
        Outcome.FAIL, reasons, {}, {EVIL_PATH: [1]}, 0.0, PARENT, HEAD, PROTOCOL, approvers=HANDLES
    )


def hostile_unscored() -> Verdict:
    detail = f"{EVIL_PATH}: 2 touched line(s) observed only by frozen tests (@org/team)"
    return Verdict(
        Outcome.UNSCORED,
        (Reason(ReasonCode.FREEZE_OVERLAP, detail, EVIL_PATH),),
        {EVIL_PATH: [4, 5]},
        {EVIL_PATH: [4, 5, 9]},
        0.6667,
        PARENT,
        HEAD,
        PROTOCOL,
        {EVIL_PATH: {4: [EVIL_TEST], 5: [EVIL_TEST, "tests/test_x.py::test_@someone"]}},
    )


@pytest.mark.parametrize("verdict", [hostile_fail, hostile_unscored], ids=["fail", "unscored"])
@pytest.mark.parametrize("rendering", sorted(MARKDOWN_RENDERINGS))
def test_no_mention_outside_code(rendering: str, verdict: Callable[[], Verdict]) -> None:
    text = MARKDOWN_RENDERINGS[rendering](verdict())
    prose = outside_code(text)
    bare = re.compile(r"@(?!&#8203;)")
    assert not bare.search(prose), [line for line in prose.splitlines() if bare.search(line)]
    assert any(f"@&#8203;{h[1:]}" in prose for h in HANDLES), "the hostile details were not rendered at all"


def test_the_check_title_names_codes_only() -> None:
    """The title is plain text (no markdown escaping): it must carry nothing the change wrote."""
    for v in (hostile_fail(), hostile_unscored()):
        assert "@" not in check_title(v)


@pytest.mark.parametrize(
    "render",
    [error_summary, explain_error_reply, action_error_summary],
    ids=["check_error", "explain_error_reply", "job_summary_error"],
)
def test_no_mention_in_gate_error_renderings(render: Callable[[str], str]) -> None:
    """An error's text may quote the change (a path, a map name): it is escaped like a detail."""
    text = render(f"cannot read {EVIL_PATH} for @org/team")
    prose = outside_code(text)
    assert not re.search(r"@(?!&#8203;)", prose)
    assert "@&#8203;org/team" in prose


def test_outside_code_keeps_text_and_drops_spans() -> None:
    """The helper the tests above rely on: spans of any length go, unmatched backticks stay."""
    assert outside_code("a `@x` b ``@y ` z`` c ` @d") == "a  b  c ` @d"
    assert outside_code("x\n```\n@fenced\n```\ny") == "x\n\ny"
