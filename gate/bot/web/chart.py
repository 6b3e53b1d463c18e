"""The status page's chart, drawn on the server: per ISO week, the fail rate and the unscored rate side
by side as bars. A pure function of the counts; every text in it is escaped, numbers are formatted
with fixed precision, so the same counts always give the same bytes (a golden file holds one)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from oracle_gate.bot.jobs import trend
from oracle_gate.bot.jobs.trend import Week

WIDTH, HEIGHT = 720, 280
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 36, 48
FAIL_COLOUR, UNSCORED_COLOUR, GRID_COLOUR, INK = "#c62828", "#e0a100", "#d0d0d0", "#222222"
MAX_LABELS = 13


def _n(value: float) -> str:
    return f"{value:.1f}"


def rate_chart(weeks: Sequence[Week]) -> str:
    """SVG text: for each week (oldest left), a bar for the fail rate and one for the unscored rate."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="chart-title">',
        '<title id="chart-title">Fail rate and unscored rate per ISO week</title>',
        *_grid(plot_w, plot_h),
        *_legend(),
    ]
    if not weeks:
        parts.append(_text(LEFT + plot_w / 2, TOP + plot_h / 2, "no verdicts yet", anchor="middle"))
    slot = plot_w / max(len(weeks), 1)
    bar = min(slot * 0.35, 28.0)
    every = -(-len(weeks) // MAX_LABELS) if weeks else 1
    for i, week in enumerate(weeks):
        middle = LEFT + slot * (i + 0.5)
        for offset, count, colour, what in (
            (-bar, week.fail, FAIL_COLOUR, "fail"),
            (0.0, week.unscored, UNSCORED_COLOUR, "unscored"),
        ):
            rate = week.rate(count)
            height = rate * plot_h
            parts.append(
                f'<rect x="{_n(middle + offset)}" y="{_n(TOP + plot_h - height)}" width="{_n(bar)}" '
                f'height="{_n(height)}" fill="{colour}"><title>{escape(week.label)}: {what} '
                f"{count} of {week.total} ({trend.percent(rate)})</title></rect>"
            )
        if i % every == 0:
            parts.append(_text(middle, TOP + plot_h + 18, week.label, anchor="middle", size=11))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _grid(plot_w: int, plot_h: int) -> list[str]:
    lines = []
    for step in range(5):
        y = TOP + plot_h - plot_h * step / 4
        lines.append(
            f'<line x1="{LEFT}" y1="{_n(y)}" x2="{LEFT + plot_w}" y2="{_n(y)}" stroke="{GRID_COLOUR}"/>'
        )
        lines.append(_text(LEFT - 6, y + 4, f"{step * 25}%", anchor="end", size=11))
    lines.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="{INK}"/>')
    return lines


def _legend() -> list[str]:
    out = []
    for x, colour, label in (
        (LEFT, FAIL_COLOUR, "fail rate"),
        (LEFT + 110, UNSCORED_COLOUR, "unscored rate"),
    ):
        out.append(f'<rect x="{x}" y="10" width="14" height="14" fill="{colour}"/>')
        out.append(_text(x + 20, 22, label, anchor="start", size=13))
    return out


def _text(x: float, y: float, text: str, *, anchor: str, size: int = 13) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-family="sans-serif" '
        f'font-size="{size}" fill="{INK}">{escape(text)}</text>'
    )
