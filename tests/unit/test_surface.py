"""The freeze surface from values (oracle_gate.judge.surface), its renderings and the badge."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from oracle_gate import surface as surface_report
from oracle_gate.judge.freeze import parse_freeze
from oracle_gate.judge.globs import GlobSet
from oracle_gate.judge.surface import (
    EntryFields,
    Surface,
    badge,
    entry_fields,
    freeze_surface,
    triage_reasons,
    unique_share_text,
)
from tests.support.golden import assert_matches_golden
from tests.support.markdown import outside_code

TODAY = dt.date(2026, 12, 1)
FLAKY = "tests/test_a.py::test_flaky"
PARAM = "tests/test_a.py::test_param"
LIVE = "tests/test_a.py::test_live"
MANIFEST = {
    "schema": 1,
    "frozen": [
        {
            "nodeid": FLAKY,
            "reason": "jitter",
            "bound_sha": "aaaa1111",
            "owner": "alice",
            "expires": "2027-01-01",
        },
        {"nodeid": PARAM, "reason": "timeouts", "bound_sha": "bbbb2222", "expires": "2026-11-30"},
        {"nodeid": "tests/test_gone.py::test_x", "reason": "gone", "bound_sha": "cccc3333", "owner": "-bad"},
    ],
}
OBSERVERS = {
    "src/a.py": {
        1: [LIVE],
        2: [FLAKY],
        3: [FLAKY, f"{PARAM}[1]"],
        4: [f"{PARAM}[2]"],
        5: [FLAKY, LIVE],
        6: [],
    },
    "src/b.py": {7: [FLAKY]},
    "tests/test_a.py": {10: [FLAKY], 11: [LIVE]},
}
DATES = {"aaaa1111": dt.date(2026, 11, 1), "bbbb2222": dt.date(2025, 12, 1)}


def build() -> Surface:
    data = json.dumps(MANIFEST).encode()
    return freeze_surface(
        OBSERVERS,
        parse_freeze(data),
        fields=entry_fields(data),
        commit_dates=DATES,
        today=TODAY,
        not_scored=GlobSet(["tests/**"]),
    )


def test_lines_only_frozen_tests_observe_per_file() -> None:
    s = build()
    assert s.files == {"src/a.py": [2, 3, 4], "src/b.py": [7]}
    assert (
        s.measured_lines == 6
    )  # src/a.py 1-5 and src/b.py 7; an unobserved line and test files do not count
    assert s.frozen_only_lines == 4
    assert s.share == round(4 / 6, 4)


def test_each_entry_has_its_lines_unique_count_age_owner_and_expiry() -> None:
    flaky, param, gone = build().entries
    assert flaky.lines == {"src/a.py": [2, 3], "src/b.py": [7]}
    assert flaky.unique == 2  # line 3 is shared with the parametrized entry
    assert (flaky.owner, flaky.expires, flaky.age_days, flaky.triage) == ("alice", "2027-01-01", 30, ())
    assert param.lines == {"src/a.py": [3, 4]}
    assert param.unique == 1
    assert param.age_days == 365
    assert param.triage == ("no owner", "expired 2026-11-30")
    assert gone.lines == {}
    assert gone.triage == (
        "malformed owner",
        "bound commit unknown",
        "observes no measured line of a scored file",
    )


def test_a_frozen_tests_own_file_is_not_surface() -> None:
    """A frozen test's own body is observed by it alone: the observer, not code left unchecked."""
    assert "tests/test_a.py" not in build().files


@pytest.mark.parametrize(
    ("expires", "why"),
    [
        ("2026-12-01", None),
        ("2026-11-30", "expired 2026-11-30"),
        ("tomorrow", "malformed expires"),
        ("2026-02-30", "malformed expires"),
    ],
)
def test_expiry_is_past_only_after_its_day(expires: str, why: str | None) -> None:
    entry = build().entries[0]
    reasons = triage_reasons(type(entry)(**{**entry.__dict__, "expires": expires}), TODAY)
    assert reasons == ([why] if why else [])


def test_entry_fields_ignore_what_is_not_a_string_and_a_manifest_that_does_not_parse() -> None:
    raw = b'{"frozen": [{"owner": 7, "expires": "2027-01-01"}, "x", {"owner": "bob"}]}'
    assert entry_fields(raw) == {0: EntryFields(None, "2027-01-01"), 2: EntryFields("bob", None)}
    assert entry_fields(b"{nope") == {}
    assert entry_fields(None) == {}
    assert entry_fields(b"[" * 100_000) == {}


def test_nothing_measured_is_a_zero_share() -> None:
    s = freeze_surface({}, parse_freeze(None), fields={}, commit_dates={}, today=TODAY)
    assert (s.share, s.files, s.entries) == (0.0, {}, ())


@pytest.mark.parametrize(
    ("share", "message", "color"),
    [
        (0.0, "0%", "brightgreen"),
        (0.0123, "1.2%", "yellow"),
        (0.1, "10%", "orange"),
        (0.6667, "66.7%", "red"),
    ],
)
def test_badge_is_shields_endpoint_json(share: float, message: str, color: str) -> None:
    assert badge(share) == {
        "schemaVersion": 1,
        "label": "frozen-only lines",
        "message": message,
        "color": color,
    }
    assert unique_share_text(share) == message


def report(problems: tuple[str, ...] = ()) -> surface_report.SurfaceReport:
    return surface_report.SurfaceReport(
        build(), "0123456789abcdef" * 2 + "01234567", "map.json", "f" * 64, problems
    )


def test_markdown_matches_golden() -> None:
    text = surface_report.to_markdown(report(("freeze.json: freeze entry 2: 'owner' malformed",)))
    assert_matches_golden("surface/surface.md", text)


def test_json_matches_golden() -> None:
    assert_matches_golden(
        "surface/surface.json", json.dumps(surface_report.to_json(report()), indent=2) + "\n"
    )


def test_repository_data_is_escaped_in_the_markdown() -> None:
    """Freeze entries and paths come from the repository: no mention, no link, no broken row."""
    hostile = {
        "schema": 1,
        "frozen": [
            {
                "nodeid": "tests/t.py::t[@org/team | x]",
                "reason": "r",
                "bound_sha": "aaaa",
                "owner": "@someone](https://evil.example)",
                "expires": "<img src=x>",
            }
        ],
    }
    data = json.dumps(hostile).encode()
    s = freeze_surface(
        {"src/@someone|x.py": {1: ["tests/t.py::t[@org/team | x]"]}},
        parse_freeze(data),
        fields=entry_fields(data),
        commit_dates={},
        today=TODAY,
    )
    text = surface_report.to_markdown(surface_report.SurfaceReport(s, "0" * 40, "m", "0" * 64, ("@x <b>",)))
    prose = outside_code(text)
    for raw in ("@someone", "@org", "<img", "<b>"):
        assert raw not in prose
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.count(" | ") for row in rows] == [6, 2]
