"""The job summary's size limit and the explain reply (oracle_gate.render, oracle_gate.github.limits
and oracle_gate.github.content, pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle_gate.action.publish_stored import read_stored_verdict
from oracle_gate.errors import StoredVerdictError, UsageError
from oracle_gate.github.content import explain_reply
from oracle_gate.github.limits import MAX_JOB_SUMMARY_BYTES, fit_job_summary
from oracle_gate.render.explain import explain_markdown
from oracle_gate.render.listings import overlap_listing
from oracle_gate.render.verdict_json import to_json
from tests.support import verdicts


def test_a_small_summary_is_left_alone() -> None:
    assert fit_job_summary("# ok\n") == "# ok\n"


@pytest.mark.parametrize("char", ["x", "é", "😀"])
def test_a_huge_summary_is_cut_below_one_mebibyte_in_bytes(char: str) -> None:
    """GitHub's limit is 1 MiB of bytes: multi-byte characters count as what they weigh."""
    text = "".join(f"| line {i} | {char * 40} |\n" for i in range(60_000))
    fitted = fit_job_summary(text)
    assert len(fitted.encode()) <= MAX_JOB_SUMMARY_BYTES
    assert len(fitted.encode()) > MAX_JOB_SUMMARY_BYTES * 0.9
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
    text, truncated = explain_reply(v)
    assert not truncated
    rows = [line for line in text.splitlines() if line.startswith("| ") and "test_backoff" in line]
    assert len(rows) == 200
    assert "`freeze_overlap`" in text
    assert "@" not in text.replace("&#64;", "")


def test_explain_is_cut_below_the_comment_limit_with_a_note() -> None:
    v = verdicts.unscored(_many_ranges(3000))
    text, truncated = explain_reply(v)
    assert truncated
    assert len(text) <= 65536
    assert "Truncated" in text
    assert "job summary" in text
    full = explain_markdown(v)
    assert full.startswith(text.split("\n\n> ✂️")[0])


def test_a_stored_verdict_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "verdict.json"
    v = verdicts.unscored()
    path.write_text(json.dumps(to_json(v)))
    assert to_json(read_stored_verdict(path)) == to_json(v)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "not JSON"),
        ("{not json", "not JSON"),
        (b"\xff\xfe{}", "not JSON"),
        ("[]", "the document must be a JSON object, got list"),
        ('"fail"', "the document must be a JSON object, got str"),
        ('{"verdict": "ok"}', "'verdict' must be one of"),
        ("{}", "'verdict' must be one of"),
        ('{"verdict": 1}', "'verdict' must be one of"),
        (
            '{"verdict": ["fail"]}',
            "'verdict' must be one of ['fail', 'pass_clean', 'unscored'], got ['fail']",
        ),
        ('{"verdict": "fail", "reasons": [{"code": {}}]}', "unknown reason code {}"),
        ('{"verdict": "fail", "reasons": [1]}', "a reason must be a JSON object, got int"),
        ('{"verdict": "fail", "reasons": {}}', "'reasons' has the wrong type (dict)"),
        ('{"verdict": "fail", "reasons": [{"code": "nope"}]}', "unknown reason code 'nope'"),
        ('{"verdict": "fail", "reasons": [{"code": "fail", "detail": 3}]}', "unknown reason code 'fail'"),
        (
            '{"verdict": "fail", "reasons": [{"code": "no_added_lines", "detail": 3}]}',
            "'detail' has the wrong type (int)",
        ),
        (
            '{"verdict": "fail", "reasons": [{"code": "skip_marker_added", "line": "3"}]}',
            "'line' must be an integer, got str",
        ),
        (
            '{"verdict": "fail", "reasons": [{"code": "freeze_overlap", "path": 1}]}',
            "'path' must be a string",
        ),
        ('{"verdict": "fail", "overlap": []}', "'overlap' must be a JSON object, got list"),
        ('{"verdict": "fail", "touched": {"a.py": [1, "2"]}}', "'touched' must map each path to a list"),
        ('{"verdict": "fail", "overlap_ratio": "0.5"}', "'overlap_ratio' has the wrong type (str)"),
        ('{"verdict": "fail", "overlap_ratio": true}', "'overlap_ratio' has the wrong type (bool)"),
        ('{"verdict": "fail", "parent": 7}', "'parent' has the wrong type (int)"),
        ('{"verdict": "fail", "protocol": []}', "'protocol' must be a JSON object, got list"),
        ('{"verdict": "fail", "protocol": {"lock_sha256": 5}}', "'lock_sha256' must be a string or null"),
        ('{"verdict": "fail", "protocol": {"options": {"extra_protected": [1]}}}', "'extra_protected' must"),
        (
            '{"verdict": "fail", "protocol": {"options": {"allow_failing_parent": "yes"}}}',
            "'allow_failing_parent' has the wrong type (str)",
        ),
    ],
)
def test_a_malformed_stored_verdict_is_one_stored_verdict_error(
    tmp_path: Path, content: str | bytes, problem: str
) -> None:
    """Every way a stored verdict is malformed is one StoredVerdictError (a usage error: exit 3) whose
    one-line message names the file and what is wrong."""
    path = tmp_path / "verdict.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(StoredVerdictError, match=r"is not a verdict\.json") as caught:
        read_stored_verdict(path)
    message = str(caught.value)
    assert isinstance(caught.value, UsageError)
    assert message.startswith(f"{path} is not a verdict.json: ")
    assert problem in message
    assert "\n" not in message


def test_an_unreadable_stored_verdict_is_a_stored_verdict_error(tmp_path: Path) -> None:
    path = tmp_path / "missing.json"
    with pytest.raises(StoredVerdictError, match=r"missing\.json is not a verdict\.json: cannot read it"):
        read_stored_verdict(path)


def test_a_stored_verdict_may_carry_a_code_this_gate_does_not_decide(tmp_path: Path) -> None:
    """Contract v2's observer_edited is a known code: a v2 gate's verdict.json still reads."""
    path = tmp_path / "verdict.json"
    doc = {
        "verdict": "unscored",
        "reasons": [{"code": "observer_edited", "detail": "d"}],
        "parent": "a" * 40,
        "head": "b" * 40,
        "protocol": {"gate_version": "2.0.0"},
    }
    path.write_text(json.dumps(doc))
    assert read_stored_verdict(path).codes == ["observer_edited"]


def test_observer_edited_annotates_the_lines_and_the_edited_test() -> None:
    """v2: the edited_only lines get a warning naming the edited tests; each such test gets one at
    its parent ``def`` line; an inherited overlap line says no test runs it."""
    from oracle_gate.render.annotations import EDITED_TEST_TITLE, EDITED_TITLE, check_annotations
    from tests.support.rendering_cases import unscored_edited

    notes = check_annotations(unscored_edited())
    edited = [a for a in notes if a.title == EDITED_TITLE]
    assert [(a.path, a.start_line, a.end_line) for a in edited] == [("src/pkg/mod.py", 5, 6)]
    assert "the only tests that observe these lines are tests this change edits" in edited[0].message
    assert "tests/test_mod.py::test_live" in edited[0].message
    tests = [a for a in notes if a.title == EDITED_TEST_TITLE]
    assert [(a.path, a.start_line) for a in tests] == [("tests/test_mod.py", 6)]
    overlap = [a for a in notes if a.path == "src/pkg/mod.py" and a.start_line == 9]
    assert "the function around it is observed only by frozen tests" in overlap[0].message
