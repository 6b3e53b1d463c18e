"""``python -m oracle_gate serve`` as a real process on loopback, pointed at a fake GitHub and an origin to
fetch from: the bot's tier (tests/bot) and the parity table of both front doors (tests/e2e) start it
the same way."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import requests

from oracle_gate.bot.web.signature import sign
from tests.github_fake.server import FakeGitHub
from tests.support.bot_app import APP_ID, SECRET, Origin, free_port


def bot_environment(
    state: Path, fake: FakeGitHub, key_file: Path, origin: Origin, *, concurrency: int, port: int
) -> dict[str, str]:
    """The server's settings for a test: this process's environment but the bot's own and git's,
    the fake GitHub, the origin to fetch from, no pacing and a short retry."""
    return {
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
        "ORACLE_GATE_PORT": str(port),
        "ORACLE_GATE_REQUEST_PACING_MS": "0",
        "ORACLE_GATE_RETRY_BASE_MS": "200",  # a transient failure's retry: soon, but not at once
        # a review is judged at once (coalescing still applies; tests/bot/test_review_flood.py
        # checks the interval with a clock of its own)
        "ORACLE_GATE_REVIEW_INTERVAL_MS": "0",
    }


class Bot:
    def __init__(self, state: Path, fake: FakeGitHub, key_file: Path, origin: Origin, concurrency: int = 4):
        self.state = state
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = state / "server.log"
        self.env = bot_environment(state, fake, key_file, origin, concurrency=concurrency, port=self.port)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Bot:
        self.state.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as state_log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "oracle_gate", "serve"],
                env=self.env,
                stdout=state_log,
                stderr=state_log,
            )
        # Started means its workers too: the worker process (forked, at a lower priority) publishes
        # its pool's size when its threads run; before that /healthz says 0 workers, and on a busy
        # machine a test that waits for a job to run could wait out its own deadline there.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                answer = requests.get(f"{self.url}/healthz", timeout=1)
                if answer.status_code == 200 and answer.json()["pool"].get("workers", 0) > 0:
                    return self
            except requests.ConnectionError:
                pass
            time.sleep(0.1)
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()}")
        raise AssertionError(f"the server and its workers were not up within 60 s: {self.log.read_text()}")

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

    def planned(self, answer: requests.Response) -> str:
        """What the worker made of the delivery ``answer`` answered (the server only stores it: the
        plan job's detail, e.g. ``queued 1 job(s)`` or ``ignored: ...``)."""
        self.wait_idle()
        delivery = answer.request.headers["X-GitHub-Delivery"]
        with sqlite3.connect(self.state / "oracle-gate.sqlite3") as db:
            row = db.execute(
                "SELECT detail FROM jobs WHERE delivery = ? AND json_extract(spec, '$.kind') = 'plan'",
                (delivery,),
            ).fetchone()
        return str(row[0]) if row else ""

    def health(self) -> dict[str, Any]:
        answer: dict[str, Any] = requests.get(f"{self.url}/healthz", timeout=5).json()
        return answer

    def jobs_become(self, jobs: dict[str, int], timeout: float = 60) -> bool:
        """Whether /healthz's job counts become ``jobs`` within ``timeout`` seconds (a loaded
        machine: the workers run at a lower priority)."""
        deadline = time.monotonic() + timeout
        while self.health()["jobs"] != jobs:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

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


def left_behind(log: Path, timeout: float = 10) -> list[int]:
    """Processes still holding ``log`` (a server's output) open ``timeout`` seconds after the server
    stopped or was killed: what it left running (its worker process, a fork server, a judging child
    all write there). Empty when everything ended."""
    deadline = time.monotonic() + timeout
    while True:
        found = _holding(log)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _holding(path: Path) -> list[int]:
    target = str(path.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if any(os.readlink(fd) == target for fd in (entry / "fd").iterdir()):
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found
