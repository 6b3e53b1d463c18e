"""The job summary's size limit and the explain reply (gate.action.run, pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.action.publish_stored import distrusted, read_stored_verdict
from gate.action.workflow_io import MAX_SUMMARY_BYTES, fit_summary
from gate.errors import UsageError
from gate.report import explain_markdown, overlap_listing, to_json
from tests.support import verdicts


def test_a_small_summary_is_left_alone() -> None:
    assert fit_summary("# ok\n") == "# ok\n"


@pytest.mark.parametrize("char", ["x", "é", "😀"])
def test_a_huge_summary_is_cut_below_one_mebibyte_in_bytes(char: str) -> None:
    """GitHub's limit is 1 MiB of bytes: multi-byte characters count as what they weigh."""
    text = "".join(f"| line {i} | {char * 40} |\n" for i in range(60_000))
    fitted = fit_summary(text)
    assert len(fitted.encode()) <= MAX_SUMMARY_BYTES
    assert len(fitted.encode()) > MAX_SUMMARY_BYTES * 0.9
    assert text.startswith(fitted.split("\n\n> ✂️")[0])
    assert "Truncated" in fitted
    assert "verdict.json" in fitted


def _many_ranges(count: int) -> list[int]:
    return [3 * i + 1 for i in range(count)]


def test_the_listing_has_every_range_with_every_observer() -> None:
    v = verdicts.unscored([1, 2, 3, 7, 10, 11])
    observers = dict(v.overlap_observers["src/retry.py"])
    observers[2] = ["tests/a.py::t", "tests/b.py::u"]
    v = type(v)(**{**v.__dict__, "overlap_observers": {"src/retry.py": observers}})
    listing = overlap_listing(v)
    assert [(r.text, r.tests) for r in listing["src/retry.py"]] == [
        ("1-3", ("tests/a.py::t", "tests/b.py::u", "tests/test_retry.py::test_backoff[1]",
                 "tests/test_retry.py::test_backoff[3]")),
        ("7", ("tests/test_retry.py::test_backoff[7]",)),
        ("10-11", ("tests/test_retry.py::test_backoff[10]", "tests/test_retry.py::test_backoff[11]")),
    ]  # fmt: skip


def test_explain_lists_every_range_and_every_reason() -> None:
    v = verdicts.unscored(_many_ranges(200))
    text, truncated = explain_markdown(v)
    assert not truncated
    rows = [line for line in text.splitlines() if line.startswith("| ") and "test_backoff" in line]
    assert len(rows) == 200
    assert "`freeze_overlap`" in text
    assert "@" not in text.replace("&#64;", "")


def test_explain_is_cut_below_the_comment_limit_with_a_note() -> None:
    v = verdicts.unscored(_many_ranges(3000))
    text, truncated = explain_markdown(v)
    assert truncated
    assert len(text) <= 65536
    assert "Truncated" in text
    assert "job summary" in text
    full, cut = explain_markdown(v, limit=10**9)
    assert not cut
    assert full.startswith(text.split("\n\n> ✂️")[0])


def test_untrusted_stored_verdict_becomes_fail_naming_each_workflow() -> None:
    v = distrusted(verdicts.passing(), [".github/workflows/a.yml", ".github/workflows/b.yml"])
    assert v.verdict == "fail"
    assert [(r.code, r.path) for r in v.reasons] == [
        ("oracle_edit_forbidden", ".github/workflows/a.yml"),
        ("oracle_edit_forbidden", ".github/workflows/b.yml"),
    ]
    assert "stored verdict (pass_clean)" in v.reasons[0].detail


def test_a_stored_verdict_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "verdict.json"
    v = verdicts.unscored()
    path.write_text(json.dumps(to_json(v)))
    assert to_json(read_stored_verdict(path)) == to_json(v)


@pytest.mark.parametrize("content", ["", "[]", '{"verdict": "ok"}', '{"verdict": "fail", "reasons": [1]}'])
def test_a_malformed_stored_verdict_is_a_usage_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "verdict.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=r"is not a verdict\.json"):
        read_stored_verdict(path)
