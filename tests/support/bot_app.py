"""What the bot's tests share across tiers (tests/bot runs the server as a process; tests/container runs
it in the image): the App's key, the repository it fetches, and the real payloads pointed at it."""

from __future__ import annotations

import copy
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

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
