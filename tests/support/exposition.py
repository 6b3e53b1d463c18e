"""Test helpers for the status page and /metrics: the Prometheus text format's strict line grammar,
and a verdict time on a given day."""

from __future__ import annotations

import datetime as dt
import re

import pytest


def at(day: str) -> float:
    """Noon UTC of ``day`` (``YYYY-MM-DD``) as a Unix time."""
    return dt.datetime.fromisoformat(day + "T12:00:00+00:00").timestamp()


NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_VALUE = r'"(?:[^"\\\n]|\\\\|\\"|\\n)*"'
LABELS = rf"\{{(?:[a-zA-Z_][a-zA-Z0-9_]*={LABEL_VALUE})(?:,[a-zA-Z_][a-zA-Z0-9_]*={LABEL_VALUE})*\}}"
VALUE = r"(?:[+-]?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\+Inf|-Inf|NaN)"
SAMPLE = re.compile(rf"(?P<name>{NAME})(?P<labels>{LABELS})? (?P<value>{VALUE})")
HELP = re.compile(rf"# HELP (?P<name>{NAME}) \S.*")
TYPE = re.compile(rf"# TYPE (?P<name>{NAME}) (?P<kind>counter|gauge|histogram|summary|untyped)")


def parse_exposition(text: str) -> dict[str, tuple[str, list[tuple[str, str, float]]]]:
    """name -> (type, samples), failing on any line outside the text format's grammar, a sample
    before its family's TYPE, or a family declared twice."""
    assert text.endswith("\n")
    families: dict[str, tuple[str, list[tuple[str, str, float]]]] = {}
    current = None
    for line in text[:-1].split("\n"):
        if m := HELP.fullmatch(line):
            assert m["name"] not in families, f"family declared twice: {line}"
            current = m["name"]
        elif m := TYPE.fullmatch(line):
            assert m["name"] == current, f"TYPE without its HELP: {line}"
            families[current] = (m["kind"], [])
        elif m := SAMPLE.fullmatch(line):
            assert current is not None
            assert current in families
            suffixes = ("_bucket", "_sum", "_count") if families[current][0] == "histogram" else ("",)
            assert any(m["name"] == current + s for s in suffixes), f"sample outside its family: {line}"
            families[current][1].append((m["name"], m["labels"] or "", float(m["value"])))
        else:
            pytest.fail(f"not a line of the exposition format: {line!r}")
    return families
