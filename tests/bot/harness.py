"""The bot under test: ``python -m gate serve`` as a real process on loopback, the fake GitHub as its
API, real git repositories as what it fetches (file:// URLs), and signed deliveries built from the
real payloads in tests/data/github/webhooks."""

from __future__ import annotations

import copy
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gate.bot.signature import sign
from tests.github_fake.server import FakeGitHub
from tests.support.repo import Repo
from tests.support.webhooks import load

SECRET = b"webhook-secret-for-tests"
APP_ID = 4242
INSTALLATION = 777
REPO = "octo/repo"


@dataclass(frozen=True)
class AppKey:
    private_pem: str
    public_pem: str


def make_app_key() -> AppKey:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return AppKey(private, public)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Origin:
    """The repository the bot fetches from: ``main`` and pull requests with GitHub's refs
    (``refs/pull/N/head`` and the test merge ``refs/pull/N/merge``)."""

    def __init__(self, root: Path) -> None:
        self.repo = Repo(root / "octo" / "repo")
        self.repo.write("oracle-gate.toml", "")
        self.repo.write("src/app.py", "def f():\n    return 1\n")
        self.repo.git("add", "-A")
        self.repo.git("commit", "-q", "-m", "base")
        self.main = self.repo.git("rev-parse", "HEAD")
        self.url_template = f"file://{root}/{{repo}}"

    def pull(self, number: int, content: str) -> str:
        """Push a new head for pull request ``number`` (and its test merge); returns the head SHA."""
        r = self.repo
        r.git("checkout", "-q", "--detach", self.main)
        r.write("src/app.py", f"def f():\n    return {content!r}\n")
        r.git("commit", "-q", "-am", f"pull {number}: {content}")
        head = r.git("rev-parse", "HEAD")
        r.git("checkout", "-q", "--detach", self.main)
        r.git("merge", "-q", "--no-ff", "-m", f"merge {number}", head)
        merge = r.git("rev-parse", "HEAD")
        r.git("update-ref", f"refs/pull/{number}/head", head)
        r.git("update-ref", f"refs/pull/{number}/merge", merge)
        r.git("checkout", "-q", "main")
        return head

    def group(self, head_of: str) -> tuple[str, str]:
        """A merge group ref holding ``head_of`` merged onto main: (ref, sha)."""
        r = self.repo
        r.git("checkout", "-q", "--detach", self.main)
        r.git("merge", "-q", "--no-ff", "-m", "merge group", head_of)
        sha = r.git("rev-parse", "HEAD")
        ref = "refs/heads/gh-readonly-queue/main/pr-1-" + self.main
        r.git("update-ref", ref, sha)
        r.git("checkout", "-q", "main")
        return ref, sha


# -- payloads: the real examples, pointed at the test repository -------------------------------------


def pointed(payload: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(payload)
    out["repository"]["full_name"] = REPO
    out["repository"]["name"] = REPO.split("/")[1]
    out["repository"]["default_branch"] = "main"
    out["installation"] = {"id": INSTALLATION, "node_id": out.get("installation", {}).get("node_id", "x")}
    return out


def pull_request_event(action: str, number: int, head: str, base: str) -> dict[str, Any]:
    name = {"opened": "pull_request.opened", "synchronize": "pull_request.synchronize"}.get(
        action, "pull_request.reopened"
    )
    out = pointed(load(name))
    out["action"] = action
    out["number"] = number
    out["pull_request"]["number"] = number
    out["pull_request"]["head"]["sha"] = head
    out["pull_request"]["base"]["sha"] = base
    return out


def check_run_rerequested(number: int, head: str) -> dict[str, Any]:
    out = pointed(load("check_run.rerequested"))
    out["check_run"]["head_sha"] = head
    out["check_run"]["pull_requests"] = [
        dict(out["check_run"]["pull_requests"][0], number=number)
        if out["check_run"]["pull_requests"]
        else {"number": number}
    ]
    return out


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
