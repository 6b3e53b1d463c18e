"""Reading rendered markdown back in tests: code spans, fenced blocks, the replay command."""

from __future__ import annotations

import re

_FENCED = re.compile(r"^(`{3,})\n(.*?)\n\1$", re.DOTALL | re.MULTILINE)


def fenced_blocks(text: str) -> list[str]:
    """The bodies of the fenced code blocks of ``text``, in order."""
    return [m.group(2) for m in _FENCED.finditer(text)]


def replay_command_of(markdown: str) -> str:
    """The replay command a rendering prints: its last fenced block, which must be a check command."""
    blocks = fenced_blocks(markdown)
    assert blocks, "the rendering has no fenced block"
    assert blocks[-1].startswith("oracle-gate check "), blocks[-1]
    return blocks[-1]


def outside_code(text: str) -> str:
    """``text`` without its fenced blocks and inline code spans (CommonMark: a run of n backticks
    opens a span that only a run of exactly n backticks closes; an unclosed run is literal)."""
    text = _FENCED.sub("", text)
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "`":
            out.append(text[i])
            i += 1
            continue
        run = re.match(r"`+", text[i:])
        assert run is not None
        fence = run.group(0)
        close = re.compile(rf"(?<!`){fence}(?!`)").search(text, i + len(fence))
        if close is None:
            out.append(fence)
            i += len(fence)
        else:
            i = close.end()
    return "".join(out)
