"""The status page's pure parts: the SVG chart (golden), /metrics' exposition text (a strict line
grammar), who may read them, the weekly counts, triage, and escaping of what GitHub sends."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import xml.etree.ElementTree as ET

import pytest

from oracle_gate.bot.jobs import trend
from oracle_gate.bot.web import chart, metrics, status
from oracle_gate.bot.web.access import Decision, StatusAccess, bearer_of, from_environment, trusted_proxies
from oracle_gate.errors import UsageError
from oracle_gate.judge.triage import EXPIRED, NO_OWNER, TriageEntry
from tests.support.exposition import at, parse_exposition
from tests.support.golden import assert_matches_golden
from tests.support.verdicts import passing

WEEKS = [
    trend.Week("2026-W45", pass_clean=6, fail=2, unscored=2),
    trend.Week("2026-W46", pass_clean=3, fail=1, unscored=4),
    trend.Week("2026-W47", pass_clean=0, fail=0, unscored=1),
    trend.Week("2026-W48", pass_clean=9, fail=1, unscored=0),
]
TOKEN = "s3cret-status-token-0123"  # noqa: S105 - a test's token


# -- the chart -------------------------------------------------------------------------------------


def test_the_chart_matches_its_golden() -> None:
    assert_matches_golden("status/chart.svg", chart.rate_chart(WEEKS))


def test_the_chart_is_well_formed_svg_with_one_bar_per_rate_and_week() -> None:
    root = ET.fromstring(chart.rate_chart(WEEKS))  # noqa: S314 - our own output
    bars = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{*}title") is not None]
    titles = [r.findtext("{*}title") for r in bars]
    assert len(bars) == 2 * len(WEEKS)
    assert "2026-W46: unscored 4 of 8 (50%)" in titles
    assert "2026-W45: fail 2 of 10 (20%)" in titles
    heights = {r.findtext("{*}title"): float(r.get("height", "-1")) for r in bars}
    full = chart.HEIGHT - chart.TOP - chart.BOTTOM
    assert heights["2026-W47: unscored 1 of 1 (100%)"] == full
    assert heights["2026-W48: unscored 0 of 10 (0%)"] == 0.0


def test_the_chart_of_no_weeks_says_so() -> None:
    svg = chart.rate_chart([])
    ET.fromstring(svg)  # noqa: S314
    assert "no verdicts yet" in svg


def test_a_hostile_week_label_is_text_in_the_chart() -> None:
    svg = chart.rate_chart([trend.Week('<script>alert(1)</script>"', fail=1)])
    assert "<script>" not in svg
    ET.fromstring(svg)  # noqa: S314


# -- /metrics --------------------------------------------------------------------------------------


def snapshot() -> metrics.Snapshot:
    return metrics.Snapshot(
        deliveries={"pull_request": 7, "push": 2},
        jobs={"queued": 3, "done": 9, "failed": 1},
        verdicts={"fail": 2, "pass_clean": 5, "unscored": 1, 'no"map\n\\': 1},
        other_base_verdicts={"fail": 4},
        judging_buckets=[0, 1, 4, 6, 6, 7, 8, 8, 8, 8, 8],
        judging_sum=61.5,
    )


def test_metrics_parse_under_a_strict_grammar_with_every_family() -> None:
    families = parse_exposition(metrics.render(snapshot()))
    assert {n: k for n, (k, _) in families.items()} == {
        "oracle_gate_deliveries_received_total": "counter",
        "oracle_gate_jobs": "gauge",
        "oracle_gate_queue_depth": "gauge",
        "oracle_gate_verdicts_total": "counter",
        "oracle_gate_other_base_verdicts_total": "counter",
        "oracle_gate_judging_seconds": "histogram",
    }
    samples = {(n, labels): v for _, s in families.values() for n, labels, v in s}
    assert samples[("oracle_gate_deliveries_received_total", '{event="pull_request"}')] == 7
    assert samples[("oracle_gate_jobs", '{state="running"}')] == 0  # every state, even when none
    assert samples[("oracle_gate_queue_depth", "")] == 3
    assert samples[("oracle_gate_verdicts_total", '{outcome="no\\"map\\n\\\\"}')] == 1
    assert samples[("oracle_gate_other_base_verdicts_total", '{outcome="fail"}')] == 4
    assert samples[("oracle_gate_judging_seconds_bucket", '{le="+Inf"}')] == 8
    assert samples[("oracle_gate_judging_seconds_count", "")] == 8
    assert samples[("oracle_gate_judging_seconds_sum", "")] == 61.5


def test_the_histogram_buckets_are_cumulative_and_end_at_inf() -> None:
    _, samples = parse_exposition(metrics.render(snapshot()))["oracle_gate_judging_seconds"]
    buckets = [(labels, v) for n, labels, v in samples if n.endswith("_bucket")]
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert buckets[-1][0] == '{le="+Inf"}'
    assert len(buckets) == len(metrics.BUCKETS) + 1


def test_empty_metrics_still_parse() -> None:
    families = parse_exposition(metrics.render(metrics.Snapshot()))
    assert families["oracle_gate_judging_seconds"][1][-1] == ("oracle_gate_judging_seconds_count", "", 0.0)


# -- access ----------------------------------------------------------------------------------------


def test_access_is_off_unless_a_setting_opens_it() -> None:
    assert not from_environment({}).enabled
    assert StatusAccess().decide("127.0.0.1", TOKEN, None) is Decision.OFF


def test_a_token_opens_it_by_header_or_query_and_nothing_else() -> None:
    access = from_environment({"ORACLE_GATE_STATUS_TOKEN": TOKEN})
    assert access.decide("203.0.113.9", TOKEN, None) is Decision.ALLOWED
    assert access.decide("203.0.113.9", None, TOKEN) is Decision.ALLOWED
    assert access.decide("203.0.113.9", None, None) is Decision.UNAUTHENTICATED
    assert access.decide("203.0.113.9", TOKEN[:-1], None) is Decision.FORBIDDEN
    assert access.decide("203.0.113.9", TOKEN + "x", None) is Decision.FORBIDDEN
    assert access.decide("203.0.113.9", "", None) is Decision.FORBIDDEN
    # A wrong header is not rescued by a right query (nor the other way round).
    assert access.decide("203.0.113.9", "wrong-token-wrong-token", TOKEN) is Decision.FORBIDDEN
    assert TOKEN not in repr(access)


def test_a_listed_network_opens_it_by_the_peer_address() -> None:
    access = from_environment({"ORACLE_GATE_STATUS_NETWORKS": "10.0.0.0/8, ::1/128"})
    assert access.decide("10.1.2.3", None, None) is Decision.ALLOWED
    assert access.decide("::1", None, None) is Decision.ALLOWED
    assert access.decide("11.0.0.1", None, None) is Decision.UNAUTHENTICATED
    assert access.decide(None, None, None) is Decision.UNAUTHENTICATED
    assert access.decide("not an address", None, None) is Decision.UNAUTHENTICATED
    assert access.decide("11.0.0.1", None, "guess") is Decision.FORBIDDEN


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"ORACLE_GATE_STATUS_TOKEN": "short"}, "STATUS_TOKEN"),
        ({"ORACLE_GATE_STATUS_NETWORKS": "10.0.0.1/8"}, "STATUS_NETWORKS"),
        ({"ORACLE_GATE_STATUS_NETWORKS": "everyone"}, "STATUS_NETWORKS"),
    ],
)
def test_a_malformed_access_setting_is_one_line(env: dict[str, str], needle: str) -> None:
    with pytest.raises(UsageError) as caught:
        from_environment(env)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_no_proxy_is_trusted_unless_named_and_every_peer_never_is() -> None:
    """TRUST.md 16: ``forwarded-allow-ips`` is empty by default (the server reads no forwarded
    header); it takes addresses and CIDRs, and refuses ``*`` (every peer a proxy) in one line."""
    assert trusted_proxies({}) == ()
    named = {"ORACLE_GATE_FORWARDED_ALLOW_IPS": "127.0.0.1, 10.9.0.0/16,::1"}
    assert trusted_proxies(named) == ("127.0.0.1/32", "10.9.0.0/16", "::1/128")
    for bad in ("*", "proxy.internal", "10.9.0.1/16"):
        with pytest.raises(UsageError, match=r"^ORACLE_GATE_FORWARDED_ALLOW_IPS: ") as caught:
            trusted_proxies({"ORACLE_GATE_FORWARDED_ALLOW_IPS": bad})
        assert "\n" not in str(caught.value)


def test_only_a_bearer_authorization_carries_a_token() -> None:
    assert bearer_of(f"Bearer {TOKEN}") == TOKEN
    assert bearer_of(f"bearer {TOKEN}") == TOKEN
    assert bearer_of(f"Basic {TOKEN}") is None
    assert bearer_of("Bearer ") is None
    assert bearer_of(None) is None


# -- the trend -------------------------------------------------------------------------------------


def test_verdicts_are_counted_per_iso_week_and_no_map_is_unscored() -> None:
    rows = [
        (at("2026-11-23"), "fail"),  # Monday, W48
        (at("2026-11-29"), "pass_clean"),  # Sunday, still W48
        (at("2026-11-30"), "no_map"),  # Monday, W49
        (at("2026-12-01"), "unscored"),
        (at("2026-12-01"), "garbage"),
        (at("2021-01-03"), "fail"),  # ISO week 53 of 2020
    ]
    assert trend.weekly(rows) == [
        trend.Week("2020-W53", fail=1),
        trend.Week("2026-W48", fail=1, pass_clean=1),
        trend.Week("2026-W49", unscored=2),
    ]


def test_the_verdicts_own_triage_is_what_is_noted() -> None:
    verdict = dataclasses.replace(
        passing(),
        triage=(
            TriageEntry("tests/test_a.py::old", "bob", dt.date(2026, 11, 30), (EXPIRED,)),
            TriageEntry("tests/test_a.py::orphan", None, None, (NO_OWNER,)),
            TriageEntry("tests/test_a.py::both", None, dt.date(2026, 1, 2), (EXPIRED, NO_OWNER)),
        ),
    )
    noted = trend.noted(verdict, 1.25)
    assert noted["seconds"] == 1.25
    assert json.loads(str(noted["triage"])) == [
        {"nodeid": "tests/test_a.py::old", "why": "expired 2026-11-30"},
        {"nodeid": "tests/test_a.py::orphan", "why": "no owner"},
        {"nodeid": "tests/test_a.py::both", "why": "expired 2026-01-02; no owner"},
    ]
    assert json.loads(str(trend.noted(passing(), 0.0)["triage"])) == []


# -- the page --------------------------------------------------------------------------------------

HOSTILE = '<script>alert("x")</script>\'\n"onload=x'


def hostile_trend() -> trend.RepoTrend:
    return trend.RepoTrend(
        repo=f"evil/{HOSTILE}",
        weeks=WEEKS,
        maps=[
            trend.MapShare("a" * 40, 0.125, at("2026-11-30")),
            trend.MapShare(HOSTILE, None, at("2026-11-30")),
        ],
        triage=[trend.TriageEntry(f"tests/test_x.py::{HOSTILE}", f"why {HOSTILE}")],
        triage_parent="b" * 40,
        other_bases=trend.Week("other bases", pass_clean=1, fail=3, unscored=2),
        pulls=[
            trend.PullRow(7, "fail", HOSTILE, at("2026-11-30"), True),
            trend.PullRow(5, "no_map", "c" * 40, at("2026-11-29"), False),
        ],
    )


def test_what_github_sends_is_text_on_the_page_never_markup() -> None:
    html = status.page(hostile_trend(), at("2026-12-01"))
    assert "<script" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "12.5%" in html
    assert "not measured" in html
    assert '<td id="total">29</td>' in html


def test_the_page_has_no_script_no_external_asset_and_its_style_matches_the_csp() -> None:
    html = status.page(hostile_trend(), at("2026-12-01"))
    for forbidden in ("<script", "javascript:", "src=", "href=", "<link", "<img", "@import", "url("):
        assert forbidden not in html.lower()
    assert not re.search(r"<[^>]*\son[a-z]+\s*=", html, re.IGNORECASE)  # no event handler attribute
    (style,) = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert style == status.STYLE
    assert f"'sha256-{status.STYLE_HASH}'" in status.CSP
    assert "default-src 'none'" in status.CSP
    assert "script" not in status.CSP


def test_the_index_links_each_repository_escaped() -> None:
    html = status.index(["octo/repo", f"evil/{HOSTILE}"])
    assert 'href="/status/octo/repo"' in html
    assert "<script" not in html
    assert "token=" not in html


def test_the_session_cookie_is_a_digest_keyed_by_the_token_never_the_token() -> None:
    access = StatusAccess(token=TOKEN)
    cookie = access.cookie_value()
    assert cookie is not None
    assert TOKEN not in cookie
    assert StatusAccess(token=TOKEN + "x").cookie_value() != cookie
    assert (
        StatusAccess(
            networks=from_environment({"ORACLE_GATE_STATUS_NETWORKS": "10.0.0.0/8"}).networks
        ).cookie_value()
        is None
    )
    assert access.decide("203.0.113.9", None, None, cookie) is Decision.ALLOWED
    forged = cookie[:-1] + ("1" if cookie.endswith("0") else "0")
    assert access.decide("203.0.113.9", None, None, forged) is Decision.UNAUTHENTICATED
    assert (
        access.decide("203.0.113.9", None, None, TOKEN) is Decision.UNAUTHENTICATED
    )  # the token itself is not a cookie
    assert access.decide("203.0.113.9", "wrong-token-wrong-token", None, cookie) is Decision.FORBIDDEN


def test_the_table_and_the_chart_round_a_rate_alike() -> None:
    week = [trend.Week("2026-W46", pass_clean=3, fail=1, unscored=4)]  # 1 of 8: 12.5%
    html = status.page(trend.RepoTrend("octo/repo", week, [], None, None), at("2026-12-01"))
    assert "<td>13%</td>" in html
    assert "fail 1 of 8 (13%)" in html


def test_the_page_matches_its_golden() -> None:
    """The whole page for fixed data, hostile names included (review the escaping in the diff)."""
    assert_matches_golden("status/page.html", status.page(hostile_trend(), at("2026-12-01")))


def test_the_page_lists_each_pull_request_newest_first_escaped() -> None:
    html = status.page(hostile_trend(), at("2026-12-01"))
    rows = re.findall(
        r"<tr><td>#(\d+)</td><td>(\w+)</td><td><code>([^<]*)</code></td>.*?<td>([a-z ]+)</td></tr>", html
    )
    assert [(r[0], r[1], r[3]) for r in rows] == [
        ("7", "fail", "required check"),
        ("5", "unscored", "other base"),
    ]
    assert rows[1][2] == "c" * 12
    assert "<script" not in html
