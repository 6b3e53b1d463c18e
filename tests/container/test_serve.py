"""The bot in the real image: ``oracle-gate serve`` with the Entrypoint overridden as the README's
``docker run --entrypoint oracle-gate IMAGE serve`` does (a state directory mounted, the App's key and
the webhook secret mounted read-only, settings from the environment), a signed delivery from the
host, the check posted by the App on the fake GitHub."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import requests

from oracle_gate.bot.web.signature import sign
from tests.github_fake import FakeGitHub
from tests.support import container
from tests.support.bot_app import APP_ID, REPO, SECRET, Origin, free_port, make_app_key, pull_request_event
from tests.support.container import Image

pytestmark = pytest.mark.container


def wait_healthy(url: str, served: container.Served, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            pytest.fail(f"the server exited: {container.tail(served.log.read_text())}", pytrace=False)
        try:
            if requests.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    pytest.fail(f"no /healthz within {timeout} s: {container.tail(served.log.read_text())}", pytrace=False)


def wait_idle(url: str, timeout: float = 120) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs: dict[str, int] = requests.get(f"{url}/healthz", timeout=5).json()["jobs"]
        if jobs and not jobs.get("queued") and not jobs.get("running"):
            return jobs
        time.sleep(0.2)
    raise AssertionError(f"jobs pending after {timeout} s")


def test_serve_in_the_image_posts_the_check_as_the_app(
    image: Image, github_fake: FakeGitHub, tmp_path: Path
) -> None:
    key = make_app_key()
    github_fake.add_app(APP_ID, key.public_pem, "oracle-gate")
    github_fake.add_repo(REPO)
    origin = Origin(tmp_path / "origin")
    head = origin.pull(1, "in the image")
    github_fake.add_pull(REPO, 1, head_sha=head, base_sha=origin.main)
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "app.pem").write_text(key.private_pem)
    (secrets / "webhook-secret").write_text(SECRET.decode())
    state = tmp_path / "state"
    state.mkdir()
    port = free_port()
    env = {
        "ORACLE_GATE_APP_ID": str(APP_ID),
        "ORACLE_GATE_PRIVATE_KEY_FILE": "/run/secrets/app.pem",
        "ORACLE_GATE_WEBHOOK_SECRET_FILE": "/run/secrets/webhook-secret",
        "ORACLE_GATE_API_URL": github_fake.url,
        "ORACLE_GATE_GIT_URL": origin.url_template,
        "ORACLE_GATE_STATE_DIR": "/var/lib/oracle-gate",
        "ORACLE_GATE_HOST": "127.0.0.1",
        "ORACLE_GATE_PORT": str(port),
        "ORACLE_GATE_REQUEST_PACING_MS": "0",
        "NO_PROXY": "127.0.0.1",
    }
    mounts = [
        (state, "/var/lib/oracle-gate", False),
        (secrets, "/run/secrets", True),
        (tmp_path / "origin", str(tmp_path / "origin"), True),  # the file:// "github.com" to fetch from
    ]
    served = container.serve_in_container(image.name, env, mounts, tmp_path / "serve.log")
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, served)
        body = json.dumps(pull_request_event("opened", 1, head, origin.main)).encode()
        answer = requests.post(
            f"{url}/webhook",
            data=body,
            headers={
                "X-GitHub-Event": "pull_request",
                "X-GitHub-Delivery": "container-1",
                "X-Hub-Signature-256": sign(SECRET, body),
                "Content-Type": "application/json",
            },
            timeout=10,
        )
        assert answer.status_code == 202, answer.text
        assert wait_idle(url) == {"done": 1}
    finally:
        code = container.stop_serving(served)
    (run,) = github_fake.check_runs(REPO)
    assert (run.head_sha, run.app_login, run.status) == (head, "oracle-gate", "completed")
    assert run.conclusion == "action_required"  # no trusted map: unscored, never a pass
    assert any(state.iterdir()), "the state directory mount holds nothing: the database went elsewhere"
    assert code == 0, container.tail(served.log.read_text())
