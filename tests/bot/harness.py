"""The bot under test: ``python -m gate serve`` as a real process on loopback, the fake GitHub as its
API, real git repositories as what it fetches (file:// URLs), and signed deliveries built from the
real payloads in tests/data/github/webhooks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from gate.bot.signature import sign
from tests.github_fake.server import FakeGitHub
from tests.support.bot_app import (
    APP_ID,
    INSTALLATION,
    REPO,
    SECRET,
    AppKey,
    Origin,
    free_port,
    make_app_key,
    pointed,
    pull_request_event,
)
from tests.support.webhooks import load

__all__ = [
    "APP_ID",
    "INSTALLATION",
    "REPO",
    "SECRET",
    "AppKey",
    "Bot",
    "BotFactory",
    "Origin",
    "free_port",
    "make_app_key",
    "pointed",
    "pull_request_event",
]


def check_run_rerequested(number: int, head: str) -> dict[str, Any]:
    out = pointed(load("check_run.rerequested"))
    out["check_run"]["head_sha"] = head
    out["check_run"]["pull_requests"] = [
        dict(out["check_run"]["pull_requests"][0], number=number)
        if out["check_run"]["pull_requests"]
        else {"number": number}
    ]
    return out


def minimal_environment(tmp_path: Path) -> dict[str, str]:
    """Only what ``from_environment`` cannot do without (a placeholder key file under ``tmp_path``);
    every other setting is left to its documented default."""
    key = tmp_path / "k.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    env = {"ORACLE_GATE_APP_ID": "1", "ORACLE_GATE_PRIVATE_KEY_FILE": str(key)}
    env["ORACLE_GATE_WEBHOOK_SECRET"] = "s"  # noqa: S105 - a test's secret
    return env


def merge_group_event(ref: str, head: str, base: str) -> dict[str, Any]:
    out = pointed(load("merge_group.checks_requested"))
    out["merge_group"].update(head_ref=ref, head_sha=head, base_sha=base)
    return out


# -- the server -----------------------------------------------------------------------------------


class Bot:
    def __init__(self, state: Path, fake: FakeGitHub, key_file: Path, origin: Origin, concurrency: int = 4):
        self.state = state
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = state / "server.log"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("ORACLE_GATE_", "GIT_"))},
            **fake.env(),
            "ORACLE_GATE_APP_ID": str(APP_ID),
            "ORACLE_GATE_PRIVATE_KEY_FILE": str(key_file),
            "ORACLE_GATE_WEBHOOK_SECRET": SECRET.decode(),
            "ORACLE_GATE_API_URL": fake.url,
            "ORACLE_GATE_GIT_URL": origin.url_template,
            "ORACLE_GATE_STATE_DIR": str(state),
            "ORACLE_GATE_CONCURRENCY": str(concurrency),
            "ORACLE_GATE_HOST": "127.0.0.1",
            "ORACLE_GATE_PORT": str(self.port),
            "ORACLE_GATE_REQUEST_PACING_MS": "0",
            "ORACLE_GATE_RETRY_BASE_MS": "200",  # a transient failure's retry: soon, but not at once
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Bot:
        self.state.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as state_log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gate", "serve"], env=self.env, stdout=state_log, stderr=state_log
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except requests.ConnectionError:
                time.sleep(0.1)
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()}")
        raise AssertionError("the server did not answer /healthz within 30 s")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc is None:
            return 0
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=60)
        finally:
            self.proc = None
        return code

    def deliver(
        self,
        event: str,
        payload: Any,
        *,
        delivery: str | None = None,
        secret: bytes = SECRET,
        signed: bool = True,
    ) -> requests.Response:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        headers = {
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "Content-Type": "application/json",
        }
        if signed:
            headers["X-Hub-Signature-256"] = sign(secret, body)
        return requests.post(f"{self.url}/webhook", data=body, headers=headers, timeout=10)

    def health(self) -> dict[str, Any]:
        answer: dict[str, Any] = requests.get(f"{self.url}/healthz", timeout=5).json()
        return answer

    def wait_idle(self, timeout: float = 60) -> dict[str, Any]:
        """Until no job is queued or running; the last /healthz answer."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            health = self.health()
            jobs = health["jobs"]
            if not jobs.get("queued") and not jobs.get("running"):
                return health
            time.sleep(0.1)
        raise AssertionError(f"jobs still pending after {timeout} s: {self.health()}")


BotFactory = Callable[..., Bot]
"""Starts a bot with settings overridden by keyword (the ``bot_factory`` fixture)."""


def workflow_run_completed(path: str, head_sha: str, **run: Any) -> dict[str, Any]:
    """The example ``workflow_run.completed``, made a successful push run of ``path`` on main.

    The package's example has no ``installation`` (it is a repository hook's delivery); GitHub adds
    ``installation`` to every delivery it sends to an App, so :func:`pointed` adds it, as GitHub does.
    """
    out = pointed(load("workflow_run.completed"))
    out["workflow_run"].update(
        path=path,
        head_sha=head_sha,
        head_branch="main",
        event="push",
        status="completed",
        conclusion="success",
    )
    out["workflow_run"].update(run)
    return out


def push_event(after: str, ref: str = "refs/heads/main") -> dict[str, Any]:
    out = pointed(load("push"))
    out.update(ref=ref, after=after)
    return out
