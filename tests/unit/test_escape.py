"""Each sink's escaping function against the text a pull request would write into it."""

from __future__ import annotations

import pytest

from oracle_gate import escape

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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fixes #123", "fixes \\#&#8203;123"),
        ("see GH-7 and gh-8", "see GH-&#8203;7 and gh-&#8203;8"),
        ("octo/repo#9", "octo/repo\\#&#8203;9"),
        (":smile: :+1:", ":&#8203;smile: :&#8203;+1:"),
        (":a:b:", ":&#8203;a:&#8203;b:"),
        # A skip-marker detail names ``path:line:``; at line 100 that is GitHub's :100: emoji.
        ("tests/a.py:100: adds", "tests/a.py:&#8203;100: adds"),
        (":white_check_mark:", ":&#8203;white\\_check\\_mark:"),
    ],
)
def test_markdown_text_breaks_references_and_emoji(text: str, expected: str) -> None:
    assert escape.md_text(text) == expected


@pytest.mark.parametrize("text", ["src/a.py:3", "tests/t.py::test_x", "issue #x", "a # b", "v1:2"])
def test_markdown_text_leaves_what_github_does_not_link_alone(text: str) -> None:
    assert "&#8203;" not in escape.md_text(text)


def test_markdown_text_breaks_mentions_and_autolinks() -> None:
    out = escape.md_text("@org/team see https://e.example and www.e.example")
    assert "@&#8203;org/team" in out
    assert "://" not in out
    assert "www." not in out
