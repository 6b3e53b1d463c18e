"""The run facts both sides record (oracle_gate.maps.inside.outcomes): one outcome per test from its reports,
the plugins named by ``-p``, and a combined map's facts (every shard's outcomes; a plugin set only when all
shards agree)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from oracle_gate.maps.inside.outcomes import OutcomeLog, combined_facts, named_plugins, normalize


def report(when: str, outcome: str, longrepr: Any = None, **extra: Any) -> SimpleNamespace:
    return SimpleNamespace(
        nodeid="t.py::x",
        when=when,
        passed=outcome == "passed",
        failed=outcome == "failed",
        skipped=outcome == "skipped",
        longrepr=longrepr,
        **extra,
    )


def outcome(*reports: SimpleNamespace) -> tuple[str, dict[str, str]]:
    log = OutcomeLog()
    for r in reports:
        log.add(r)
    return log.outcomes["t.py::x"], log.reasons


def test_each_outcome_from_its_reports() -> None:
    ok = report("setup", "passed"), report("call", "passed"), report("teardown", "passed")
    assert outcome(*ok)[0] == "passed"
    assert (
        outcome(report("setup", "passed"), report("call", "failed"), report("teardown", "passed"))[0]
        == "failed"
    )
    assert outcome(report("setup", "failed"), report("teardown", "passed"))[0] == "error"
    assert (
        outcome(report("setup", "passed"), report("call", "passed"), report("teardown", "failed"))[0]
        == "error"
    )
    skipped = outcome(
        report("setup", "skipped", ("t.py", 3, "Skipped: not today")), report("teardown", "passed")
    )
    assert skipped == ("skipped", {"t.py::x": "not today"})
    xfailed = outcome(report("setup", "passed"), report("call", "skipped", wasxfail="known bug"))
    assert xfailed == ("xfailed", {"t.py::x": "known bug"})
    assert outcome(report("setup", "passed"), report("call", "passed", wasxfail=""))[0] == "xpassed"


def test_plugins_named_on_the_command_line_leave_blocks_out() -> None:
    args = ["-q", "-p", "no:cacheprovider", "-p", "xdist.plugin", "-pfoo", "--pdb"]
    assert named_plugins(args, "bar, baz") == ["xdist.plugin", "foo", "bar", "baz"]
    assert normalize("Pytest_Cov") == "pytest-cov"


def test_a_combined_map_has_every_shards_outcomes_and_an_agreed_plugin_set() -> None:
    plugins = [{"name": "pytest-cov", "version": "7.1.0"}]
    one = {
        "outcomes": {"a": "passed"},
        "skip_reasons": {},
        "pytest_plugins": plugins,
        "python_version": "3.11.7",
    }
    two = {
        "outcomes": {"b": "skipped"},
        "skip_reasons": {"b": "why"},
        "pytest_plugins": plugins,
        "python_version": "3.11.7",
    }
    facts = combined_facts([one, two])
    assert facts["outcomes"] == {"a": "passed", "b": "skipped"}
    assert (facts["skip_reasons"], facts["pytest_plugins"]) == ({"b": "why"}, plugins)
    other = {**two, "pytest_plugins": [{"name": "pytest-cov", "version": "7.0.0"}]}
    assert "pytest_plugins" not in combined_facts([one, other])
    assert "outcomes" not in combined_facts([one, {"pytest_plugins": plugins}])  # an older shard
