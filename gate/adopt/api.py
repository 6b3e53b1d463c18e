"""The few GETs ``oracle-gate doctor`` makes, with ``requests``: read-only, bounded, one answer each.

Doctor reads; only ``doctor --fix`` writes, and only settings (an environment, its branch policy, a
ruleset), never a secret. An answer it cannot use (403, 5xx, not JSON, too large) is reported as a
finding by the caller, never a traceback; the token is sent only to the API URL it was given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests

MAX_ANSWER = 8 * 1024 * 1024
TIMEOUT = 30


@dataclass(frozen=True)
class Answer:
    status: int  # 0: no answer at all (network error, not JSON, too large)
    body: Any
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 200


class Api:
    def __init__(self, token: str, api_url: str) -> None:
        self.api_url = api_url.rstrip("/")
        self.session = requests.Session()
        self.session.trust_env = False  # no proxy or .netrc credentials of the environment
        self.session.headers.update(
            {
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "oracle-gate-doctor",
            }
        )

    def get(self, path: str, **query: str | int) -> Answer:
        return self.send("GET", path, query=query)

    def write(self, method: str, path: str, body: dict[str, Any]) -> Answer:
        """A PUT or POST of ``body`` (``doctor --fix`` only)."""
        return self.send(method, path, body=body)

    def send(
        self, method: str, path: str, *, query: dict[str, str | int] | None = None, body: Any = None
    ) -> Answer:
        try:
            with self.session.request(
                method,
                f"{self.api_url}{path}",
                params=query,
                json=body,
                timeout=TIMEOUT,
                stream=True,
                allow_redirects=False,
            ) as response:
                data = response.raw.read(MAX_ANSWER + 1, decode_content=True)
                status = response.status_code
        except requests.RequestException as exc:
            return Answer(0, None, f"no answer from {self.api_url} ({type(exc).__name__})")
        if len(data) > MAX_ANSWER:
            return Answer(0, None, f"an answer larger than {MAX_ANSWER} bytes")
        try:
            body = json.loads(data) if data else None
        except ValueError:
            return Answer(0, None, f"an answer that is not JSON (HTTP {status})")
        message = body.get("message", "") if isinstance(body, dict) else ""
        ok = status == 200 or (method != "GET" and status == 201)
        return Answer(200 if ok else status, body, "" if ok else f"HTTP {status} {message}".strip())

    def repo(self, full_name: str, rest: str = "") -> str:
        """``/repos/OWNER/NAME`` + ``rest``, each segment of ``rest`` percent-encoded but ``/``."""
        return f"/repos/{full_name}" + quote(rest, safe="/")
