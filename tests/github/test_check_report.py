"""The check-run renderings (oracle_gate.render) and their fitting to GitHub's sizes
(oracle_gate.github.limits): pure functions, no HTTP."""

from __future__ import annotations

import re

import pytest

from oracle_gate.github.limits import shorten, truncate_markdown
from oracle_gate.judge.verdict import Outcome, Reason, ReasonCode, Verdict
from oracle_gate.render.annotations import check_annotations
from oracle_gate.render.check import check_summary, check_title
from tests.support import verdicts


def test_titles_name_verdict_and_codes() -> None:
    assert check_title(verdicts.passing()) == "✅ pass_clean: live_surface_covers_diff"
    assert check_title(verdicts.unscored([1, 2])) == (
        "⚠️ unscored: freeze_overlap (2 of 3 touched parent line(s) observed only by frozen tests)"
    )
    assert "\n" not in check_title(verdicts.failing())


def test_summary_escapes_text_from_the_pull_request() -> None:
    """A path or detail cannot inject markup or mention anyone through the check summary."""
    hostile = Reason(
        ReasonCode.ORACLE_EDIT_FORBIDDEN, "tests/<img src=x>.py: edited @team", "tests/<img src=x>.py"
    )
    v = Verdict(Outcome.FAIL, (hostile,), {}, {}, 0.0, verdicts.PARENT, verdicts.HEAD, verdicts.PROTOCOL)
    summary = check_summary(v)
    assert re.search(r"(?<!\\)<img", summary) is None
    assert "@team" not in summary
    assert "\\<img src=x\\>" in summary


def test_overlap_annotations_group_runs_and_name_their_observers() -> None:
    v = verdicts.unscored([5, 6, 7, 20])
    a, b = check_annotations(v)
    assert (a.path, a.start_line, a.end_line, a.level) == ("src/retry.py", 5, 7, "warning")
    assert a.message.startswith(
        "Parent lines 5-7 (numbered in the parent commit aaaaaaaaaaaa, not in the head) are"
    )
    assert "tests/test_retry.py::test_backoff[5], tests/test_retry.py::test_backoff[6]" in a.message
    assert b.message.startswith("Parent line 20 (")
    assert " is touched" in b.message


def test_observer_lists_are_capped_in_annotations() -> None:
    v = verdicts.unscored([1])
    many = {"src/retry.py": {1: [f"tests/t.py::test_{i:03d}" for i in range(45)]}}
    v = Verdict(
        v.verdict, v.reasons, v.overlap, v.touched, v.overlap_ratio, v.parent, v.head, v.protocol, many
    )
    (a,) = check_annotations(v)
    assert "tests/t.py::test_019" in a.message
    assert "tests/t.py::test_020" not in a.message
    assert a.message.endswith(" and 25 more.")


def test_failure_annotations_only_for_file_scoped_fail_reasons() -> None:
    reasons = (
        Reason(ReasonCode.ORACLE_INCOMPLETE, "no coverage map"),
        Reason(ReasonCode.RUNNER_CONFIG_CHANGED, "conftest.py: edited", "conftest.py"),
        Reason(ReasonCode.FREEZE_OVERLAP, "src/a.py: 1 line", "src/a.py"),
    )
    v = Verdict(Outcome.FAIL, reasons, {}, {}, 0.0, verdicts.PARENT, verdicts.HEAD, verdicts.PROTOCOL)
    (a,) = check_annotations(v)
    assert (a.path, a.start_line, a.level) == ("conftest.py", 1, "failure")
    assert a.title == "Test-runner configuration changed (runner_config_changed)"
    assert a.to_api()["annotation_level"] == "failure"


def test_a_malformed_oracle_file_gets_a_warning_annotation() -> None:
    """oracle_incomplete points at the malformed file when it is a repository path (not at a map
    given by an absolute path on the runner, nor when no file was given)."""
    reasons = (
        Reason(ReasonCode.ORACLE_INCOMPLETE, "oracle-gate.toml: unknown key 'tets'", "oracle-gate.toml"),
        Reason(ReasonCode.ORACLE_INCOMPLETE, "/tmp/map.json: not bound", "/tmp/map.json"),
        Reason(ReasonCode.ORACLE_INCOMPLETE, "../map.json: not bound", "../map.json"),
        Reason(ReasonCode.ORACLE_INCOMPLETE, "no coverage map of the parent was given"),
    )
    v = Verdict(Outcome.UNSCORED, reasons, {}, {}, 0.0, verdicts.PARENT, verdicts.HEAD, verdicts.PROTOCOL)
    (a,) = check_annotations(v)
    assert (a.path, a.start_line, a.end_line, a.level) == ("oracle-gate.toml", 1, 1, "warning")
    assert a.title == "Oracle input unusable (oracle_incomplete)"
    assert a.message == "oracle-gate.toml: unknown key 'tets'"


def test_no_annotations_for_a_pass() -> None:
    assert verdicts.passing().verdict == Outcome.PASS_CLEAN
    assert check_annotations(verdicts.passing()) == []


def test_truncation_keeps_the_head_and_says_what_was_cut() -> None:
    text = "MARKER\n" + "".join(f"| row {i} |\n" for i in range(1000))
    cut, truncated = truncate_markdown(text, 2000, "See verdict.json.")
    assert truncated
    assert len(cut) <= 2000
    assert cut.startswith("MARKER\n| row 0 |\n")
    kept_rows = cut.count("| row ")
    assert f"the last {1000 - kept_rows} line(s)" in cut
    assert cut.rstrip().endswith("See verdict.json.")
    assert truncate_markdown(text, len(text)) == (text, False)


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("```\n", "\n```"), ("<details><summary>more</summary>\n\n", "\n\n</details>")],
    ids=["code-fence", "details"],
)
def test_truncation_closes_what_it_cut_open(opening: str, closing: str) -> None:
    text = "head\n" + opening + "".join(f"line {i}\n" for i in range(1000))
    cut, _ = truncate_markdown(text, 1500)
    body = cut[: cut.index("\n\n> ✂️")]
    assert body.endswith(closing)


def test_shorten_makes_one_line_within_the_limit() -> None:
    assert shorten("a\nb   c", 140) == "a b c"
    assert shorten("x" * 200, 140) == "x" * 139 + "…"
    assert len(shorten("word " * 100, 140)) <= 140
