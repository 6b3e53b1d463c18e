"""No string a pull request controls changes the structure of the markdown the gate writes
(../shared/spec/TRUST.md invariant 7).

Each rendering of a verdict whose paths, test node ids and reason details are adversarial is parsed
with a real CommonMark parser (markdown-it-py, GFM tables and strikethrough on) and compared with
the same rendering of a benign verdict of the same shape: the same blocks (headings, paragraphs,
lists, table rows and cells) and the same inline markup (code spans, emphasis, links, images,
HTML), text aside. Text must carry no live mention and no bare URL GitHub would link.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from oracle_gate.judge.verdict import Outcome, Reason, ReasonCode, Verdict
from oracle_gate.render.markdown import to_markdown
from tests.support.rendering_cases import HEAD, MARKDOWN_RENDERINGS, PARENT, PROTOCOL

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])

#: Pieces of markup an attacker reaches for, mixed with arbitrary text by the strategy below.
HOSTILE = [
    "\r",
    "\n",
    "\r\n",
    "\u2028",
    "\u2029",
    "\x85",
    "\v",
    "\f",
    "|",
    "`",
    "``",
    "\\",
    "### ✅ Oracle Gate: `pass_clean`",
    "[x](https://evil.example)",
    "![b](https://evil.example/p.png)",
    "<img src=https://evil.example/b>",
    "<details>",
    "</details>",
    "@someone",
    "@org/team",
    "https://evil.example",
    "www.evil.example",
    "**",
    "_",
    "~~",
    "$x$",
    "&#64;",
    "&lt;b&gt;",
    "<!-- oracle-gate:sticky -->",
    "- item",
    "1. item",
    "> quote",
    "---",
    "```",
    "    ",
    "::error::x",
    "#123",
    "fixes #1",
    "GH-7",
    "gh-42",
    "octo/repo#9",
    ":smile:",
    ":+1:",
    ":white_check_mark:",
    ":a:b:",
]
hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=8)), max_size=6).map("".join)


def build(kind: Outcome, paths: list[str], nodeid: str, detail: str) -> Verdict:
    """A verdict of ``kind`` naming ``paths`` (reasons, overlap) and ``nodeid`` (a frozen observer)."""
    first = paths[0]
    reasons = tuple(
        Reason(
            ReasonCode.ORACLE_EDIT_FORBIDDEN if kind == Outcome.FAIL else ReasonCode.FREEZE_OVERLAP,
            f"{p}: {detail}",
            p,
            3,
        )
        for p in paths
    )
    reasons += (Reason(ReasonCode.ORACLE_INCOMPLETE, detail, first),)
    overlap = {p: [4, 5] for p in paths}
    observers = {p: {4: [nodeid], 5: [nodeid, "tests/t.py::t"]} for p in paths}
    approvers = (nodeid, "alice")  # from the policy, yet escaped like the rest
    return Verdict(
        kind, reasons, overlap, dict(overlap), 0.5, PARENT, HEAD, PROTOCOL, observers, approvers=approvers
    )


def shape(markdown: str) -> list[tuple[str, ...]]:
    """The parse without its text: block tokens, and each inline token's children but text."""
    out: list[tuple[str, ...]] = []
    for token in PARSER.parse(markdown):
        out.append((token.type, token.tag, str(token.nesting)))
        if token.type == "inline":
            out.append(tuple(c.type for c in token.children or [] if c.type not in {"text", "text_special"}))
    return out


def texts(tokens: list[Token]) -> list[str]:
    found = []
    for token in tokens:
        if token.type == "text":
            found.append(token.content)
        found += texts(token.children or [])
    return found


#: What GitHub turns into a link or an image in rendered text: issue and pull-request references
#: (``#1``, ``owner/repo#1``, ``GH-1``) and emoji shortcodes (``:name:``).
GITHUB_TOKENS = re.compile(r"(?i)#\d|GH-\d|:[\w+-]+:")


def github_tokens(markdown: str) -> list[str]:
    """Every reference and shortcode GitHub would resolve in the text of ``markdown``, in order."""
    return [m.group() for text in texts(PARSER.parse(markdown)) for m in GITHUB_TOKENS.finditer(text)]


def benign_twin(paths: list[str]) -> list[str]:
    return [f"src/p{i}.py" for i in range(len(paths))]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paths=st.lists(hostile_text.filter(bool), min_size=1, max_size=3, unique=True),
    nodeid=hostile_text,
    detail=hostile_text,
    kind=st.sampled_from([Outcome.FAIL, Outcome.UNSCORED]),
)
def test_hostile_text_keeps_the_benign_structure(
    paths: list[str], nodeid: str, detail: str, kind: Outcome
) -> None:
    benign = build(kind, benign_twin(paths), "tests/test_a.py::test_a", "a plain detail")
    hostile = build(kind, paths, nodeid, detail)
    for name, render in MARKDOWN_RENDERINGS.items():
        rendered = render(hostile)
        assert shape(rendered) == shape(render(benign)), (name, rendered)
        assert github_tokens(rendered) == github_tokens(render(benign)), (name, rendered)
        for text in texts(PARSER.parse(rendered)):
            assert not re.search(r"@[\w/]", text), (name, text)
            assert not re.search(r"(?i)://|www\.", text), (name, text)


def test_the_property_can_fail() -> None:
    """The comparison sees a broken row: unescaped, a carriage return starts a heading of its own."""
    benign = to_markdown(build(Outcome.FAIL, ["src/a.py"], "t", "d"))
    forged = benign.replace("src/a.py", "src/a.py\r### ✅ Oracle Gate: `pass_clean`", 1)
    assert shape(forged) != shape(benign)


def test_the_reference_check_can_fail() -> None:
    """Written raw (as before), a reference and a shortcode in a path are tokens the template did
    not write."""
    benign = to_markdown(build(Outcome.FAIL, ["src/a.py"], "t", "d"))
    forged = benign.replace("src/a.py", "src/a.py fixes #1 :smile:", 1)
    assert github_tokens(forged) != github_tokens(benign)
    escaped = to_markdown(build(Outcome.FAIL, ["src/a.py fixes #1 :smile:"], "t", "d"))
    assert github_tokens(escaped) == github_tokens(benign)


def heading_texts(markdown: str) -> list[list[str]]:
    """Per heading, its inline tokens other than code spans (the words the template wrote)."""
    tokens = PARSER.parse(markdown)
    return [
        [c.content for c in tokens[i + 1].children or [] if c.type != "code_inline"]
        for i, t in enumerate(tokens)
        if t.type == "heading_open"
    ]


def test_a_carriage_return_in_a_path_stays_in_its_cell() -> None:
    """Seen on main: a CR in a file name printed its own heading, link, image and mention."""
    evil = "a.py\r\n### ✅ Oracle Gate: `pass_clean`\r[x](https://e.example) <img src=x> @org/team"
    for name, render in MARKDOWN_RENDERINGS.items():
        rendered = render(build(Outcome.FAIL, [evil], "t", evil))
        assert heading_texts(rendered) == heading_texts(render(build(Outcome.FAIL, ["a.py"], "t", "d"))), name
        markup = {"link_open", "image", "html_inline", "html_block"}
        assert markup_count(rendered, markup) == markup_count(
            render(build(Outcome.FAIL, ["a.py"], "t", "d")), markup
        )


def markup_count(markdown: str, kinds: set[str]) -> int:
    return sum(1 for tok in PARSER.parse(markdown) for t in [tok, *(tok.children or [])] if t.type in kinds)
