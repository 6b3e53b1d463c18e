"""The check run: conclusion per verdict, annotations in batches of 50, summary limits, status fallback."""

from __future__ import annotations

import time

import pytest

from oracle_gate.github.client import NotPermitted, RequestRejected, make_client, open_repo
from oracle_gate.github.content import CONCLUSIONS, check_content, error_check
from oracle_gate.github.repository import connect
from oracle_gate.judge.verdict import Verdict
from oracle_gate.render.check import check_summary
from oracle_gate.render.markdown import STICKY_MARKER
from tests.github.clients import (
    FAST,
    HEAD_SHA,
    REPO,
    at_head,
    checks_for,
    github_for,
    publish_rendered,
    seed,
)
from tests.github_fake import FakeGitHub, TokenKind
from tests.github_fake.fixtures import FakeFactory
from tests.support import verdicts


@pytest.mark.parametrize(
    ("verdict", "conclusion", "title_start"),
    [
        (verdicts.passing(), "success", "✅ pass_clean: live_surface_covers_diff"),
        (verdicts.failing(), "failure", "❌ fail: oracle_edit_forbidden, skip_marker_added"),
        (verdicts.unscored(), "action_required", "⚠️ unscored: freeze_overlap (3 of 4 touched parent line(s)"),
    ],
    ids=["pass_clean", "fail", "unscored"],
)
def test_each_verdict_posts_one_completed_check_run(
    fake: FakeGitHub, verdict: Verdict, conclusion: str, title_start: str
) -> None:
    """One POST, no stray GET: completed, on the head SHA, with the verdict's conclusion and report."""
    result = checks_for(fake).publish(check_content(verdict), at_head(details_url="https://ci.example/run/1"))
    (run,) = fake.check_runs(REPO)
    assert (run.name, run.head_sha, run.status, run.conclusion) == (
        "Oracle Gate",
        HEAD_SHA,
        "completed",
        conclusion,
    )
    assert run.title is not None
    assert run.title.startswith(title_start)
    assert run.summary is not None
    assert verdict.reasons[0].code in run.summary
    assert run.details_url == "https://ci.example/run/1"
    assert [(r.method, r.operation_id) for r in fake.requests] == [("POST", "checks/create")]
    assert (result.check_run_id, result.conclusion, result.used_status_fallback) == (
        run.id,
        conclusion,
        False,
    )
    assert result.not_posted == ()


def test_unscored_is_action_required_which_blocks_without_claiming_failure() -> None:
    """neutral/skipped would satisfy a required check; failure would claim the code failed."""
    assert CONCLUSIONS == {"pass_clean": "success", "fail": "failure", "unscored": "action_required"}


def test_annotations_name_parent_lines_and_failing_files(fake: FakeGitHub) -> None:
    """Overlap runs become warnings on the parent path; file-scoped failures become failures."""
    checks_for(fake).publish(check_content(verdicts.unscored([40, 41, 60])), at_head())
    checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    overlap_run, fail_run = fake.check_runs(REPO)
    first, second = overlap_run.annotations
    assert (first["path"], first["start_line"], first["end_line"], first["annotation_level"]) == (
        "src/retry.py",
        40,
        41,
        "warning",
    )
    assert first["title"] == "Observed only by frozen tests"
    assert "parent commit" in first["message"]
    assert "tests/test_retry.py::test_backoff[40]" in first["message"]
    assert "tests/test_retry.py::test_backoff[41]" in first["message"]
    assert (second["start_line"], second["end_line"]) == (60, 60)
    assert [(a["path"], a["start_line"], a["annotation_level"]) for a in fail_run.annotations] == [
        ("tests/test_retry.py", 1, "failure"),
        ("tests/test_io.py", 12, "failure"),
    ]


@pytest.mark.parametrize("count", [50, 51, 130])
def test_every_annotation_is_sent_in_batches_of_at_most_50(fake: FakeGitHub, count: int) -> None:
    """Create carries the first 50; each PATCH appends the next 50; nothing is lost or repeated."""
    lines = list(range(1, 2 * count, 2))  # never adjacent: one annotation per line
    result = checks_for(fake).publish(check_content(verdicts.unscored(lines)), at_head())
    (run,) = fake.check_runs(REPO)
    assert [a["start_line"] for a in run.annotations] == lines
    sizes = [len(r.json["output"].get("annotations", [])) for r in fake.requests]
    assert sizes == [50] * (count // 50) + ([count % 50] if count % 50 else [])
    assert [r.method for r in fake.requests] == ["POST"] + ["PATCH"] * (len(sizes) - 1)
    assert (result.annotations_total, result.annotations_posted) == (count, count)
    assert run.conclusion == "action_required"
    assert all(r.json["output"]["title"] == run.title for r in fake.requests)


def test_an_annotation_batch_that_fails_is_reported_and_the_conclusion_stays(fake: FakeGitHub) -> None:
    """The run already carries its conclusion; the lost batch is named in the result."""
    fake.fail_next("PATCH", "/repos/*/check-runs/*", 422)
    result = checks_for(fake).publish(check_content(verdicts.unscored(list(range(1, 241, 2)))), at_head())
    (run,) = fake.check_runs(REPO)
    assert (run.conclusion, len(run.annotations)) == ("action_required", 50)
    assert (result.annotations_posted, result.check_run_id) == (50, run.id)
    (missing,) = result.not_posted
    assert missing.what == "annotations 51-120 of 120"
    assert "422" in missing.why


def test_a_summary_over_65535_characters_is_cut_with_a_note(fake: FakeGitHub) -> None:
    """A verdict with thousands of reasons still posts (the fake rejects > 65535 bytes), saying what was
    cut; of its 1500 annotations the first 500 are posted (10 requests) and the summary says so."""
    verdict = verdicts.with_many_reasons(1500)
    result = checks_for(fake).publish(check_content(verdict), at_head())
    (run,) = fake.check_runs(REPO)
    assert run.summary is not None
    assert len(run.summary.encode()) <= 65535
    assert "✂️ **Truncated:** the last" in run.summary
    assert "verdict.json" in run.summary
    assert run.summary.startswith("> [!NOTE]\n> 1000 more annotation(s) were left out")
    assert "**The change edits the oracle" in run.summary
    assert result.summary_truncated
    assert len(run.annotations) == 500
    assert (result.annotations_total, result.annotations_posted) == (500, 500)
    assert len(fake.log("POST")) + len(fake.log("PATCH")) == 10
    assert STICKY_MARKER not in run.summary


def test_annotations_past_the_cap_are_counted_in_the_summary(fake: FakeGitHub) -> None:
    """Seen on main: annotations were uncapped (1,000 marker lines cost 20 write requests)."""
    content = check_content(verdicts.with_many_reasons(30), max_annotations=10)
    result = checks_for(fake).publish(content, at_head())
    (run,) = fake.check_runs(REPO)
    assert len(run.annotations) == 10
    assert content.annotations_left_out == 20
    assert "20 more annotation(s) were left out: the gate posts at most 10 per run" in (run.summary or "")
    assert result.annotations_posted == 10


def test_a_summary_is_cut_by_utf8_bytes_not_characters(fake: FakeGitHub) -> None:
    """Seen on main: a fail verdict with CJK paths fit 65,535 characters but not 65,535 bytes, and
    GitHub's 422 posted no check at all. The fake counts bytes as GitHub does."""
    verdict = verdicts.with_many_reasons(150, path_prefix="测试/数据文件路径/夹具")
    summary = check_summary(verdict)
    assert len(summary) < 65535 < len(summary.encode())
    checks_for(fake).publish(check_content(verdict), at_head())
    (run,) = fake.check_runs(REPO)
    assert len((run.summary or "").encode()) <= 65535
    assert "65535-byte limit" in (run.summary or "")


def test_gate_error_posts_a_failing_check_saying_why(fake: FakeGitHub) -> None:
    """No verdict: a completed ``failure``, so a required check never hangs pending."""
    result = checks_for(fake).publish(error_check("coverage map `x.db` is unreadable @someone"), at_head())
    (run,) = fake.check_runs(REPO)
    assert (run.status, run.conclusion, run.title) == ("completed", "failure", "Oracle Gate could not run")
    assert run.summary is not None
    assert "coverage map \\`x.db\\` is unreadable @&#8203;someone" in run.summary
    assert result.conclusion == "failure"


@pytest.mark.parametrize(
    ("verdict", "state"),
    [(verdicts.passing(), "success"), (verdicts.failing(), "failure"), (verdicts.unscored(), "failure")],
    ids=["pass_clean", "fail", "unscored"],
)
def test_a_token_that_cannot_write_checks_falls_back_to_a_commit_status(
    fake: FakeGitHub, verdict: Verdict, state: str
) -> None:
    """A PAT gets 403 on the Checks API; the same context name carries the verdict as a status."""
    pat = "ghp_pat"
    fake.add_token(pat, TokenKind.PAT)
    result = checks_for(fake, token=pat).publish(check_content(verdict), at_head())
    assert fake.check_runs() == []
    (status,) = fake.statuses(REPO)
    assert (status.sha, status.state, status.context) == (HEAD_SHA, state, "Oracle Gate")
    assert status.description is not None
    assert len(status.description) <= 140
    assert verdict.verdict in status.description
    assert (result.used_status_fallback, result.status_state, result.check_run_id) == (True, state, None)
    assert result.not_posted[0].what == "check run"
    assert "You must authenticate via a GitHub App." in result.not_posted[0].why


def test_gate_error_falls_back_to_an_error_status(fake: FakeGitHub) -> None:
    fake.add_token(fake.token, TokenKind.PAT)
    result = checks_for(fake).publish(error_check("git broke"), at_head())
    (status,) = fake.statuses(REPO)
    assert (status.state, result.status_state) == ("error", "error")
    assert status.description == "Oracle Gate could not run: git broke"


def test_read_only_token_raises_not_permitted_after_trying_both(fake: FakeGitHub) -> None:
    """A fork PR's token: the check run and its status fallback are both refused."""
    fake.add_token(fake.token, TokenKind.READ_ONLY)
    with pytest.raises(NotPermitted, match="Resource not accessible by integration") as caught:
        checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert caught.value.status == 403
    assert [r.operation_id for r in fake.requests] == ["checks/create", "repos/create-commit-status"]


def test_ghes_base_url_with_api_v3_prefix(github_fake_factory: FakeFactory) -> None:
    """GITHUB_API_URL of a GHES host: every request goes under /api/v3 (the fake rejects others)."""
    fake = seed(github_fake_factory(api_prefix="/api/v3"))
    client = make_client(
        fake.token, fake.url + "/", retry=FAST, seconds_between_requests=0, seconds_between_writes=0
    )
    result = publish_rendered(
        connect(open_repo(client, REPO)),
        verdicts.unscored(list(range(1, 120, 2))),
        head_sha=HEAD_SHA,
        pr_number=7,
    )
    assert result.not_posted == ()
    assert len(fake.check_runs()[0].annotations) == 60
    assert fake.comments(REPO, 7)[0].body.startswith(STICKY_MARKER)
    assert {r.method for r in fake.requests} == {"POST", "PATCH", "GET"}


def test_a_token_with_statuses_but_not_checks_permission_falls_back_too(fake: FakeGitHub) -> None:
    """GITHUB_TOKEN with ``permissions: statuses: write`` only: the check run's 403 leads to a status."""
    fake.fail_next(
        "POST", "/repos/*/check-runs", 403, body={"message": "Resource not accessible by integration"}
    )
    result = checks_for(fake).publish(check_content(verdicts.unscored()), at_head())
    (status,) = fake.statuses(REPO)
    assert (status.state, result.used_status_fallback) == ("failure", True)
    assert status.description is not None
    assert status.description.startswith("⚠️ unscored: freeze_overlap")
    assert [n.what for n in result.not_posted] == ["check run", "2 annotation(s)"]


def test_client_refuses_a_page_size_github_would_not_honour() -> None:
    with pytest.raises(ValueError, match="per_page"):
        make_client("t", per_page=101)


TOO_LONG = {
    "message": "Invalid request.\n\nOnly 65535 characters are allowed; 78664 were supplied.",
    "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run",
}


def test_a_422_on_the_check_run_is_retried_once_with_a_minimal_summary(fake: FakeGitHub) -> None:
    """Seen on main: a 422 on the summary's size posted no check at all. Now one retry, minimal."""
    fake.fail_next("POST", "/repos/*/check-runs", 422, body=TOO_LONG)
    result = checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    (run,) = fake.check_runs(REPO)
    assert run.conclusion == "failure"
    assert "did not fit GitHub's limits" in (run.summary or "")
    assert result.summary_truncated
    assert [r.status for r in fake.log("POST")] == [422, 201]


def test_a_second_422_is_not_retried_again(fake: FakeGitHub) -> None:
    fake.fail_next("POST", "/repos/*/check-runs", 422, times=5, body=TOO_LONG)
    with pytest.raises(RequestRejected):
        checks_for(fake).publish(check_content(verdicts.failing()), at_head())
    assert len(fake.log("POST")) == 2


def test_100000_annotation_worthy_lines_post_a_capped_check_within_the_write_bound(fake: FakeGitHub) -> None:
    """TRUST.md invariant 8: 100,000 failures to annotate end in one capped check (500 annotations,
    the rest counted in the summary) in 10 writes, quickly; never the token's hourly budget."""
    started = time.monotonic()
    content = check_content(verdicts.with_many_reasons(100_000, detail_size=10))
    github = github_for(fake)
    result = github.checks.publish(content, at_head())
    (run,) = fake.check_runs(REPO)
    assert len(run.annotations) == 500
    assert "99500 more annotation(s) were left out" in (run.summary or "")
    assert len((run.summary or "").encode()) <= 65535
    writes = [r for r in fake.requests if r.method in {"POST", "PATCH"}]
    assert len(writes) == github.checks.writes.spent == 10
    assert result.annotations_posted == 500
    assert time.monotonic() - started < 60


def test_the_write_bound_stops_posting_and_says_so(fake: FakeGitHub) -> None:
    result = github_for(fake, max_writes=3).checks.publish(
        check_content(verdicts.with_many_reasons(300)), at_head()
    )
    (run,) = fake.check_runs(REPO)
    assert len(run.annotations) == 150
    assert len([r for r in fake.requests if r.method in {"POST", "PATCH"}]) == 3
    (missing,) = result.not_posted
    assert missing.what == "annotations 151-300 of 300"
    assert "API writes are spent" in missing.why
