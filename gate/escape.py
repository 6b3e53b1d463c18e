"""One escaping function per sink, for every string a pull request, an event or a stored verdict
controls (../shared/spec/TRUST.md invariant 7: a carriage return, a newline or a ``|`` in a path
changes nothing but that path's text).

Sinks: GitHub-flavoured markdown (inline text, code spans, fenced blocks), check-run and annotation
text (plain, within GitHub's limits), and the Actions log (a line the runner would read as a
workflow command). ``GITHUB_OUTPUT`` values need no escaping:
:func:`oracle_gate.action.workflow_io.format_outputs`
frames each with a random delimiter checked against the value, so no value can end its entry.

Mentions and autolinks are broken with a zero-width space after ``@`` and inside ``://`` / ``www.``:
GitHub resolves ``@user``, ``@org/team`` and bare URLs in the rendered text, where backslashes and
entities are already gone, so only a character between them stops it (the practice of Dependabot's
release notes, ``@&#8203;user``).

Issue and pull-request references (``#123``, ``GH-123``, ``owner/repo#123``) and emoji shortcodes
(``:smile:``) are broken the same way, and for the same reason: GitHub finds them in the rendered
HTML's text nodes, after CommonMark has already turned a backslash-escaped ``#`` and the entities
``&#35;`` / ``&#58;`` back into ``#`` and ``:``, so neither a backslash nor an entity for the
``#`` or ``:`` itself survives to stop them. A zero-width space between ``#`` (or ``GH-``) and
the digits, or after a shortcode's opening ``:``, is a character the patterns do not allow there:
it renders as nothing, and the text reads as written. It is written as the entity ``&#8203;`` so
that a golden file shows it. Every ``:name:`` run is broken, digits too: ``path:100:`` (a reason
naming a line) is GitHub's ``:100:``.
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
ZWSP_ENTITY = "&#8203;"  # the same in markdown, visible in a golden file

#: Every character Python's ``str.splitlines`` breaks on, plus the rest of C0/C1 and DEL.
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
#: Inline markdown, HTML, GFM tables, strikethrough and GitHub's ``$`` math; the constructs that
#: only count at a line start (``-``, ``+``, ``1.``, ``=``) cannot occur, text is always mid-line.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~&$!])")
_AUTOLINK = re.compile(r"(?i)(://|www\.)")
_COMMAND_START = re.compile(r"^(\s*):(:)")
#: GitHub's references (``#1``, ``owner/repo#1``, ``GH-1``) and emoji shortcodes (``:name:``), each
#: matched at the point where a zero-width space breaks it.
_REFERENCE = re.compile(r"(?i)(#|GH-)(?=\d)")
_SHORTCODE = re.compile(r":(?=[\w+-]+:)")

MAX_ANNOTATION_TITLE = 255  # D/rest/checks/runs#update-a-check-run: annotations[].title
MAX_ANNOTATION_MESSAGE = 64 * 1024  # annotations[].message, bytes
MAX_CHECK_TITLE = 255


def one_line(text: object) -> str:
    """``text`` with every line break (CR, LF, CRLF, VT, FF, NEL, U+2028/9, FS/GS/RS) as a space and
    every other control character as U+FFFD: it can start no new line in any sink."""
    return _CONTROLS.sub("\ufffd", _LINE_BREAKS.sub(" ", str(text)))


def _defuse_mentions_and_links(text: str, zwsp: str) -> str:
    return _AUTOLINK.sub(lambda m: m.group(1)[0] + zwsp + m.group(1)[1:], text.replace("@", "@" + zwsp))


def _defuse_references_and_shortcodes(text: str) -> str:
    """``text`` with a raw zero-width space wherever GitHub would see a reference or an emoji."""
    return _SHORTCODE.sub(":" + ZWSP, _REFERENCE.sub(lambda m: m.group(1) + ZWSP, text))


def md_text(text: object) -> str:
    """Inline markdown (a table cell, a list item, a heading) that renders as ``text`` itself: one
    line, every markdown and HTML character backslash-escaped, no mention, no autolink, no issue or
    pull-request reference and no emoji shortcode."""
    flat = _defuse_references_and_shortcodes(one_line(text))
    escaped = _MD_SPECIAL.sub(r"\\\1", flat).replace(ZWSP, ZWSP_ENTITY)
    return _defuse_mentions_and_links(escaped, ZWSP_ENTITY)


def md_code(text: object) -> str:
    """An inline code span that no backtick or ``|`` in ``text`` can close early and no line break
    can end (safe in a table cell). Mentions and autolinks are not resolved in code."""
    body = one_line(text).replace("|", "\\|") or " "
    fence = "`" * (max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
    spaced = body.strip() != "" and body[0] == body[-1] == " "  # CommonMark strips one space each side
    pad = " " if body.startswith("`") or body.endswith("`") or spaced else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def md_code_block(text: object) -> str:
    """A fenced code block whose fence is longer than any run of backticks in ``text``; line breaks
    other than LF become LF-free spaces so that no line of ``text`` can start outside the block."""
    body = _CONTROLS.sub("\ufffd", re.sub(r"\r\n?|[\v\f\x1c\x1d\x1e\x85\u2028\u2029]", " ", str(text)))
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
    return f"{fence}\n{body}\n{fence}"


def plain_line(text: object, limit: int) -> str:
    """Plain text on one line (a check title, an annotation title), cut to ``limit`` characters."""
    flat = " ".join(one_line(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def cap_utf8(text: str, limit: int, marker: str = "…") -> str:
    """``text`` cut so that its UTF-8 encoding, ``marker`` included, fits in ``limit`` bytes."""
    data = text.encode()
    if len(data) <= limit:
        return text
    room = limit - len(marker.encode())
    return data[: max(room, 0)].decode("utf-8", "ignore") + marker


def annotation_title(text: object) -> str:
    return plain_line(text, MAX_ANNOTATION_TITLE)


def annotation_message(text: object) -> str:
    """Annotation messages are plain text (line breaks allowed, rendered as text) within 64 KiB."""
    return cap_utf8(_CONTROLS.sub("\ufffd", str(text)), MAX_ANNOTATION_MESSAGE)


def check_title(text: object) -> str:
    return plain_line(text, MAX_CHECK_TITLE)


def command_data(text: object) -> str:
    """A workflow command's message, as the toolkit's ``escapeData``: ``%``, CR and LF encoded."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def log_line(text: object) -> str:
    """A plain log line (``%`` kept as it is): every line break a space, a leading ``::`` broken,
    and the legacy ``##[`` command syntax broken wherever it is."""
    line = one_line(text)
    line = _COMMAND_START.sub(lambda m: m.group(1) + ":" + ZWSP + ":", line)
    return line.replace("##[", "##" + ZWSP + "[")
