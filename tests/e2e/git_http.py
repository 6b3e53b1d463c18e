"""A private git remote over smart HTTP on loopback: ``git http-backend`` behind Basic auth.

It stands in for ``https://github.com/OWNER/NAME.git`` of a private repository: every request
must carry ``Authorization: basic base64(x-access-token:TOKEN)`` (what actions/checkout and the
gate send), else it answers 401 like GitHub. ``requests`` records what arrived.
"""

from __future__ import annotations

import base64
import os
import subprocess
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response


class _Quiet(WSGIRequestHandler):
    def log(self, type: str, message: str, *args: Any) -> None:
        return


@dataclass
class GitRequest:
    method: str
    path: str
    authorized: bool


@dataclass
class GitHttpServer:
    project_root: Path  # directory holding the bare repositories
    token: str
    requests: list[GitRequest] = field(default_factory=list)
    # Read now: an in-process action run replaces os.environ (PATH with a git shim) while this serves.
    path: str = field(default_factory=lambda: os.environ.get("PATH", "/usr/bin:/bin"))
    _server: BaseWSGIServer | None = None
    _thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self._server = make_server("127.0.0.1", 0, self._wsgi, threaded=True, request_handler=_Quiet)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._server is not None
        assert self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_port}"

    def expected_header(self) -> str:
        return "basic " + base64.b64encode(f"x-access-token:{self.token}".encode()).decode()

    def _wsgi(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        request = Request(environ)
        sent = request.headers.getlist("Authorization")
        if len(sent) > 1:  # GitHub answers 400 "Duplicate header: Authorization"
            self.requests.append(GitRequest(request.method, request.path, False))
            return Response("Duplicate header: Authorization", 400)(environ, start_response)
        authorized = sent == [self.expected_header()] or [s.lower() for s in sent] == [
            self.expected_header().lower()
        ]
        self.requests.append(GitRequest(request.method, request.path, authorized))
        if not authorized:
            response = Response("Unauthorized", 401, {"WWW-Authenticate": 'Basic realm="GitHub"'})
            return response(environ, start_response)
        return self._backend(request)(environ, start_response)

    def _backend(self, request: Request) -> Response:
        """Run ``git http-backend`` as a CGI program for this request."""
        env = {
            "PATH": self.path,
            "GIT_PROJECT_ROOT": str(self.project_root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "REQUEST_METHOD": request.method,
            "PATH_INFO": request.path,
            "QUERY_STRING": request.query_string.decode(),
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "REMOTE_USER": "x-access-token",
            "REMOTE_ADDR": "127.0.0.1",
        }
        if request.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = request.headers["Content-Encoding"]
        if request.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = request.headers["Git-Protocol"]
        body = request.get_data()
        env["CONTENT_LENGTH"] = str(len(body))
        proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False)
        head, _, payload = proc.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = proc.stdout.partition(b"\n\n")
        status, headers = 200, {}
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers[name.strip()] = value.strip()
        return Response(payload, status, headers)
