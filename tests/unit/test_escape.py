"""Each sink's escaping function against the text a pull request would write into it."""

from __future__ import annotations

import pytest

from gate import escape

LINE_BREAKS = ["\r", "\n", "\r\n", "\v", "\f", "\x85", "\u2028", "\u2029", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("brk", LINE_BREAKS)
def test_no_line_break_survives_in_any_one_line_sink(brk: str) -> None:
    text = f"a{brk}### b"
    for sink in (
        escape.md_text,
        escape.md_code,
        escape.annotation_title,
        escape.check_title,
        escape.log_line,
    ):
        assert len(sink(text).splitlines()) == 1, (sink.__name__, sink(text))
        assert "b" in sink(text)


def test_a_log_line_cannot_start_a_workflow_command() -> None:
    for text in ("::error::pwned", "  ::add-mask::x", "ok\n::set-output name=a::b", "x ##[error]legacy"):
        line = escape.log_line(escape.command_data(text))
        assert not line.strip().startswith("::"), line
        assert "##[" not in line
        assert "\n" not in line
        assert "\r" not in line
    assert escape.command_data("100%\r\n") == "100%25%0D%0A"
    assert escape.log_line("100%") == "100%"


def test_control_characters_become_visible_replacements() -> None:
    assert escape.one_line("a\x00b\x1bc") == "a\ufffdb\ufffdc"


def test_utf8_cap_counts_bytes_and_keeps_the_marker() -> None:
    text = "路径" * 40_000  # 3 bytes a character
    cut = escape.cap_utf8(text, 65535, "[cut]")
    assert len(cut.encode()) <= 65535
    assert cut.endswith("[cut]")
    assert escape.cap_utf8("short", 10) == "short"


def test_code_spans_hold_backticks_and_pipes() -> None:
    assert escape.md_code("a`b") == "``a`b``"
    assert escape.md_code("`x`") == "`` `x` ``"
    assert escape.md_code("a|b") == "`a\\|b`"
    assert escape.md_code("") == "` `"


def test_markdown_text_breaks_mentions_and_autolinks() -> None:
    out = escape.md_text("@org/team see https://e.example and www.e.example")
    assert "@&#8203;org/team" in out
    assert "://" not in out
    assert "www." not in out
