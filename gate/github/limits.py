"""GitHub's size limits, and fitting rendered text into them.

The renderings (:mod:`oracle_gate.render`) produce whole texts; what GitHub accepts is decided here:
a comment's body in characters, a check run's summary and text in UTF-8 bytes, a status description
and a title in characters, annotations per request. Standard library and :mod:`oracle_gate.escape`
only (D = https://docs.github.com/en).
"""

from __future__ import annotations

from collections.abc import Callable

from oracle_gate import escape

#: Undocumented; GitHub answers 422 "Body is too long (maximum is 65536 characters)".
MAX_COMMENT_BODY = 65536
MAX_CHECK_TEXT = 65535  # output.summary and output.text, in bytes (D/rest/checks/runs)
MAX_STATUS_DESCRIPTION = 140  # a commit status's description, in characters
ANNOTATIONS_PER_REQUEST = 50  # D/rest/checks/runs: at most 50 annotations per request
#: A step summary over 1 MiB is not shown (D/actions/reference/workflows-and-actions/workflow-commands).
MAX_JOB_SUMMARY_BYTES = 1024 * 1024
_JOB_SUMMARY_MARGIN = 4096  # bytes kept free: the runner counts the whole step's file


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis when longer."""
    return escape.plain_line(text, limit)


def fit_comment(text: str, hint: str = "") -> tuple[str, bool]:
    """``text`` cut to a comment's :data:`MAX_COMMENT_BODY` (see :func:`truncate_markdown`)."""
    return truncate_markdown(text, MAX_COMMENT_BODY, hint)


def fit_check_text(text: str, hint: str = "") -> tuple[str, bool]:
    """``text`` cut to a check run's :data:`MAX_CHECK_TEXT` bytes (see :func:`truncate_markdown_bytes`)."""
    return truncate_markdown_bytes(text, MAX_CHECK_TEXT, hint)


def fit_job_summary(text: str, limit: int = MAX_JOB_SUMMARY_BYTES - _JOB_SUMMARY_MARGIN) -> str:
    """A step's job summary cut (whole lines, with a note) so its UTF-8 encoding fits ``limit`` bytes.

    :func:`truncate_markdown` counts characters; the budget in characters shrinks in
    proportion to the bytes they weigh until the cut text fits.
    """
    size = len(text.encode())
    if size <= limit:
        return text
    chars = len(text) * limit // size
    while True:
        cut, _ = truncate_markdown(text, chars, "The whole verdict is in verdict.json.")
        weight = len(cut.encode())
        if weight <= limit:
            return cut
        chars = min(chars - 1, chars * limit // weight)


_NOTE_ROOM = 700  # characters kept free for the closing tags and the note


def truncate_markdown(text: str, limit: int, hint: str = "") -> tuple[str, bool]:
    """Fit markdown in ``limit`` characters, cutting whole lines from the end and saying so.

    The head of the text is kept (a sticky comment's marker is its first
    line), an open code fence or ``<details>`` is closed, and a note names how
    many lines and characters were cut, then ``hint`` (where to find the rest).
    Returns the text and whether it was cut.
    """
    return _truncate(text, limit, hint, size=len, prefix=lambda t, n: t[:n], unit="character")


def truncate_markdown_bytes(text: str, limit: int, hint: str = "") -> tuple[str, bool]:
    """As :func:`truncate_markdown`, but ``limit`` counts UTF-8 bytes: GitHub's check-run
    ``output.summary`` and ``output.text`` limits are bytes (a fail verdict with CJK paths was
    78,664 bytes in 65,535 characters)."""
    return _truncate(text, limit, hint, size=_utf8_size, prefix=_utf8_prefix, unit="byte")


def _utf8_size(text: str) -> int:
    return len(text.encode())


def _utf8_prefix(text: str, size: int) -> str:
    """The longest head of ``text`` whose UTF-8 encoding fits in ``size`` bytes."""
    return text.encode()[:size].decode("utf-8", "ignore")


def _truncate(
    text: str,
    limit: int,
    hint: str,
    *,
    size: Callable[[str], int],
    prefix: Callable[[str, int], str],
    unit: str,
) -> tuple[str, bool]:
    """:func:`truncate_markdown` with ``size`` measuring text in ``unit`` and ``prefix`` cutting it."""
    if size(text) <= limit:
        return text, False
    if size(hint) > _NOTE_ROOM // 2 or limit <= _NOTE_ROOM:
        raise ValueError("the truncation note would not fit")
    head = prefix(text, limit - _NOTE_ROOM)
    cut = head.rfind("\n")
    kept = head[:cut] if cut > 0 else head
    dropped = text[len(kept) :]
    cut_lines = dropped.strip("\n").count("\n") + 1
    note = (
        f"\n\n> ✂️ **Truncated:** the last {cut_lines} line(s) "
        f"({size(dropped)} {unit}s) of this report were cut to fit GitHub's {limit}-{unit} limit."
    )
    result = kept + _closers(kept) + note + (f" {hint}" if hint else "") + "\n"
    if size(result) > limit:
        raise RuntimeError("the truncation note outgrew its room")
    return result, True


def _closers(kept: str) -> str:
    """Markup that closes what ``kept`` left open: a code fence, ``<details>`` blocks."""
    lines = kept.split("\n")
    closers = "\n```" if sum(1 for line in lines if line.startswith("```")) % 2 else ""
    open_details = kept.count("<details>") - kept.count("</details>")
    return closers + "\n\n</details>" * max(0, open_details)
