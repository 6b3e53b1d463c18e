"""The fake GitHub itself: validation is live, rules are enforced, state and paging behave like GitHub.

Driven with plain ``requests`` so each test controls the exact bytes sent.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.github.clients import HEAD_SHA, PR, REPO
from tests.github_fake import APP_ONLY, NOT_ACCESSIBLE, FakeGitHub, TokenKind
from tests.github_fake.fixtures import FakeFactory
from tests.github_fake.spec import example, response_problem

ROOT = Path(__file__).resolve().parents[2]


def call(
    fake: FakeGitHub, method: str, path: str, body: Any = None, *, token: str | None = "", **params: str
) -> requests.Response:
    headers = {} if token is None else {"Authorization": f"token {token or fake.token}"}
    return requests.request(
        method, fake.url + path, json=body, params=params or None, headers=headers, timeout=10
    )


def check_run_body(**extra: Any) -> dict[str, Any]:
    return {"name": "Oracle Gate", "head_sha": HEAD_SHA, **extra}


def annotation(n: int, **extra: Any) -> dict[str, Any]:
    return {
        "path": "src/a.py",
        "start_line": n,
        "end_line": n,
        "annotation_level": "warning",
        "message": f"m{n}",
        **extra,
    }


def rejected(fake: FakeGitHub, response: requests.Response, status: int, needle: str) -> None:
    """The request was answered ``status`` and recorded as exactly one violation naming ``needle``."""
    assert response.status_code == status, response.text
    violations = fake.take_violations()
    assert len(violations) == 1, violations
    assert needle in violations[0].problem


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (check_run_body(conclusion="bogus"), "'bogus' is not one of"),
        (check_run_body(status="completed", conclusion="success", output={"summary": "s"}), "'title'"),
        ({"head_sha": HEAD_SHA}, "'name' is a required property"),
        (
            check_run_body(
                conclusion="success",
                output={"title": "t", "summary": "s", "annotations": [annotation(n) for n in range(1, 52)]},
            ),
            "is too long",
        ),
        (check_run_body(conclusion="success", output={"title": "t", "summary": "x" * 65536}), "is too long"),
    ],
    ids=["bad-conclusion", "output-without-title", "no-name", "51-annotations", "summary-65536"],
)
def test_spec_violations_are_rejected_and_recorded(fake: FakeGitHub, body: Any, needle: str) -> None:
    """openapi-core validation is live: an invalid check run is refused and nothing is stored."""
    rejected(fake, call(fake, "POST", f"/repos/{REPO}/check-runs", body), 422, needle)
    assert fake.check_runs() == []


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (check_run_body(status="completed"), "conclusion is required"),
        (check_run_body(completed_at="2025-01-01T00:00:00Z"), "conclusion is required"),
        (check_run_body(conclusion="stale"), "only GitHub can set"),
        (
            check_run_body(
                conclusion="success",
                output={"title": "t", "summary": "s", "annotations": [annotation(1, title="x" * 256)]},
            ),
            "title is longer than 255",
        ),
        (
            check_run_body(
                conclusion="success",
                output={
                    "title": "t",
                    "summary": "s",
                    "annotations": [annotation(1, end_line=2, start_column=1)],
                },
            ),
            "one-line annotation",
        ),
    ],
    ids=["completed-no-conclusion", "completed_at-no-conclusion", "stale", "annotation-title-256", "columns"],
)
def test_documented_rules_the_spec_misses_are_enforced(fake: FakeGitHub, body: Any, needle: str) -> None:
    """Rules from GitHub's docs that the OpenAPI schema is looser on answer 422 too."""
    rejected(fake, call(fake, "POST", f"/repos/{REPO}/check-runs", body), 422, needle)


def test_comment_body_over_65536_characters_gets_githubs_message(fake: FakeGitHub) -> None:
    """GitHub's (undocumented) comment limit, with the message GitHub gives."""
    response = call(fake, "POST", f"/repos/{REPO}/issues/{PR}/comments", {"body": "x" * 65537})
    assert response.json()["errors"][0]["message"] == "Body is too long (maximum is 65536 characters)"
    rejected(fake, response, 422, "Body is too long")
    ok = call(fake, "POST", f"/repos/{REPO}/issues/{PR}/comments", {"body": "x" * 65536})
    assert ok.status_code == 201


def test_per_page_over_100_is_rejected(fake: FakeGitHub) -> None:
    """The spec has no maximum for per_page; GitHub's docs say 100."""
    rejected(fake, call(fake, "GET", f"/repos/{REPO}/issues/{PR}/comments", per_page="101"), 422, "per_page")


def test_bad_status_state_is_rejected(fake: FakeGitHub) -> None:
    response = call(fake, "POST", f"/repos/{REPO}/statuses/{HEAD_SHA}", {"state": "bogus"})
    rejected(fake, response, 422, "'bogus' is not one of")


def test_unknown_path_and_method_are_rejected(fake: FakeGitHub) -> None:
    """Anything outside the OpenAPI subset fails loudly (operations the publisher must not use)."""
    rejected(fake, call(fake, "GET", f"/repos/{REPO}/issues/{PR}"), 404, "no such path")
    rejected(fake, call(fake, "PUT", f"/repos/{REPO}/issues/{PR}/comments", {"body": "x"}), 404, "method")


def test_ghes_fake_serves_only_under_api_v3(github_fake_factory: FakeFactory) -> None:
    """With the GHES prefix the API lives under /api/v3; a client that drops it is caught."""
    fake = github_fake_factory(api_prefix="/api/v3")
    fake.add_repo(REPO)
    assert fake.url.endswith("/api/v3")
    good = call(fake, "GET", f"/repos/{REPO}")
    assert good.status_code == 200
    assert good.json()["url"] == f"{fake.url}/repos/{REPO}"
    bare = requests.get(
        f"{fake.host_url}/repos/{REPO}", headers={"Authorization": f"token {fake.token}"}, timeout=10
    )
    rejected(fake, bare, 404, "/api/v3")


def test_token_is_required(fake: FakeGitHub) -> None:
    """No token: 401 "Requires authentication"; an unknown one: 401 "Bad credentials"."""
    assert call(fake, "GET", f"/repos/{REPO}", token=None).json()["message"] == "Requires authentication"
    response = call(fake, "GET", f"/repos/{REPO}", token="ghp_wrong")  # noqa: S106 - a wrong token, on purpose
    assert (response.status_code, response.json()["message"]) == (401, "Bad credentials")
    assert fake.log("GET")[-1].authorization == "token ghp_wrong"


def test_read_only_token_cannot_write_anything(fake: FakeGitHub) -> None:
    """A fork PR's GITHUB_TOKEN: reads work, every write is 403 "Resource not accessible by integration"."""
    fake.add_token(fake.token, TokenKind.READ_ONLY)
    assert call(fake, "GET", f"/repos/{REPO}/pulls/{PR}").status_code == 200
    for method, path, body in [
        ("POST", f"/repos/{REPO}/check-runs", check_run_body(conclusion="success")),
        ("POST", f"/repos/{REPO}/statuses/{HEAD_SHA}", {"state": "success"}),
        ("POST", f"/repos/{REPO}/issues/{PR}/comments", {"body": "hi"}),
    ]:
        response = call(fake, method, path, body)
        assert (response.status_code, response.json()["message"]) == (403, NOT_ACCESSIBLE)
    assert (fake.check_runs(), fake.statuses(), fake.comments(REPO, PR)) == ([], [], [])


def test_personal_access_token_cannot_write_checks_but_can_write_statuses(fake: FakeGitHub) -> None:
    pat = "ghp_personal"
    fake.add_token(pat, TokenKind.PAT)
    refused = call(fake, "POST", f"/repos/{REPO}/check-runs", check_run_body(conclusion="success"), token=pat)
    assert (refused.status_code, refused.json()["message"]) == (403, APP_ONLY)
    posted = call(fake, "POST", f"/repos/{REPO}/statuses/{HEAD_SHA}", {"state": "success"}, token=pat)
    assert posted.status_code == 201
    assert posted.json()["creator"]["login"] == "a-maintainer"


def test_annotations_are_appended_across_updates(fake: FakeGitHub) -> None:
    """Create with 50, PATCH 50 then 20: the run holds all 120 in order, title/summary replaced."""
    first = [annotation(n) for n in range(1, 51)]
    created = call(
        fake,
        "POST",
        f"/repos/{REPO}/check-runs",
        check_run_body(conclusion="failure", output={"title": "t", "summary": "s", "annotations": first}),
    ).json()
    for start, stop in [(51, 101), (101, 121)]:
        batch = [annotation(n) for n in range(start, stop)]
        output = {"summary": f"s{start}", "annotations": batch}
        response = call(fake, "PATCH", f"/repos/{REPO}/check-runs/{created['id']}", {"output": output})
        assert response.status_code == 200
    (run,) = fake.check_runs()
    assert [a["start_line"] for a in run.annotations] == list(range(1, 121))
    assert (run.conclusion, run.status, run.title, run.summary, run.updates) == (
        "failure",
        "completed",
        "t",
        "s101",
        2,
    )
    assert response.json()["output"]["annotations_count"] == 120


def test_comments_are_paginated_with_link_headers(fake: FakeGitHub) -> None:
    """Default 30 per page; rel="next"/"last" links that lead through every comment exactly once."""
    for i in range(65):
        fake.add_comment(REPO, PR, f"comment {i}")
    first = call(fake, "GET", f"/repos/{REPO}/issues/{PR}/comments")
    assert len(first.json()) == 30
    assert set(first.links) == {"next", "last"}
    assert first.links["last"]["url"].endswith("page=3")
    bodies: list[str] = []
    url: str | None = first.url
    while url:
        page = requests.get(url, headers={"Authorization": f"token {fake.token}"}, timeout=10)
        bodies += [c["body"] for c in page.json()]
        url = page.links.get("next", {}).get("url")
    assert bodies == [f"comment {i}" for i in range(65)]
    last = call(fake, "GET", f"/repos/{REPO}/issues/{PR}/comments", per_page="50", page="2")
    assert len(last.json()) == 15
    assert set(last.links) == {"prev", "first"}


def test_faults_answer_the_given_number_of_times_then_stop(fake: FakeGitHub) -> None:
    fault = fake.fail_next("GET", "/repos/*/pulls/*", 502, times=2)
    statuses = [call(fake, "GET", f"/repos/{REPO}/pulls/{PR}").status_code for _ in range(3)]
    assert statuses == [502, 502, 200]
    assert fault.hits == 2
    assert [r.injected for r in fake.log("GET")] == [True, True, False]


def test_responses_come_from_the_spec_examples(fake: FakeGitHub) -> None:
    """A pull request keeps every field of GitHub's example; the stateful ones are the fake's."""
    pull = call(fake, "GET", f"/repos/{REPO}/pulls/{PR}").json()
    assert set(pull) == set(example("pull-request"))
    assert (pull["number"], pull["head"]["sha"], pull["base"]["repo"]["full_name"]) == (PR, HEAD_SHA, REPO)
    assert pull["url"] == f"{fake.url}/repos/{REPO}/pulls/{PR}"
    assert "api.github.com" not in json.dumps(pull)


def test_fork_pull_request_has_its_head_in_the_fork(fake: FakeGitHub) -> None:
    fake.add_pull(REPO, 8, head_sha="3" * 40, base_sha="4" * 40, fork=True, author="contributor")
    pull = call(fake, "GET", f"/repos/{REPO}/pulls/8").json()
    assert pull["head"]["repo"]["fork"] is True
    assert pull["head"]["repo"]["full_name"] == "contributor/agent-repo"
    assert pull["head"]["label"] == "contributor:feature"


def test_response_validation_catches_a_broken_body() -> None:
    """The check the fake runs on its own responses is not a no-op."""
    broken = example("issue-comment")
    del broken["id"]
    problem = response_problem(
        "http://127.0.0.1:1",
        "GET",
        "/repos/o/r/issues/comments/1",
        query={},
        body=None,
        status=200,
        data=json.dumps(broken).encode(),
    )
    assert problem is not None
    assert "'id' is a required property" in problem


def test_a_separate_process_is_served_from_the_test_process_state(fake: FakeGitHub) -> None:
    """What the end-to-end tests need: a subprocess talks HTTP, the state stays here."""
    script = textwrap.dedent(
        f"""
        import json, os, urllib.request
        request = urllib.request.Request(
            os.environ["GITHUB_API_URL"] + "/repos/{REPO}/issues/{PR}/comments",
            data=json.dumps({{"body": "from a subprocess"}}).encode(),
            headers={{"Authorization": "token " + os.environ["TOKEN"], "Content-Type": "application/json"}},
        )
        print(urllib.request.urlopen(request, timeout=10).status)
        """
    )
    env = {**fake.env(), "TOKEN": fake.token, "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "201"
    assert [c.body for c in fake.comments(REPO, PR)] == ["from a subprocess"]


def test_slashes_in_path_parameters_are_routed_and_validated(fake: FakeGitHub) -> None:
    """The percent-encoding gotcha: ``/contents/src/a.py`` reaches repos/get-content with its slashes."""
    fake.settings.put_file(REPO, "main", "src/pkg/a.py", b"x = 1\n")
    response = call(fake, "GET", f"/repos/{REPO}/contents/src/pkg/a.py", ref="main")
    assert response.status_code == 200
    assert response.json()["path"] == "src/pkg/a.py"
    assert fake.log()[-1].operation_id == "repos/get-content"
    assert not fake.violations


def test_the_fixture_teardown_fails_a_test_that_left_violations() -> None:
    """What makes an invalid request fail the test even when the client swallowed the 4xx."""
    from tests.github_fake.fixtures import _assert_no_violations

    with FakeGitHub() as fake:
        fake.add_repo(REPO)
        call(fake, "POST", f"/repos/{REPO}/check-runs", check_run_body(conclusion="bogus"))
        with pytest.raises(
            AssertionError, match="GitHub would reject:\n  - POST /repos/octo-org/agent-repo/check-runs"
        ):
            _assert_no_violations(fake)
        _assert_no_violations(fake)  # taken: a second check passes


def test_a_client_killed_while_sending_is_no_request(fake: FakeGitHub) -> None:
    """A bot killed mid-send leaves a body shorter than its Content-Length: GitHub never sees that
    request, so the fake applies nothing and records no violation (it used to record a crash)."""
    path = f"{fake.url}/repos/{REPO}/issues/{PR}/comments".removeprefix(fake.host_url)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token {fake.token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", fake.port), timeout=10) as sock:
        sock.sendall(head.encode() + b'{"body": "half')
        sock.shutdown(socket.SHUT_WR)
        sock.recv(1024)  # the fake has read what there was
    assert fake.take_violations() == []
    assert fake.comments(REPO, PR) == []
