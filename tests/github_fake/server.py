"""A stateful fake of GitHub's REST API on 127.0.0.1, validating every request against the spec.

One :class:`FakeGitHub` is a real HTTP server (werkzeug, one thread per
request) living in the test process: all state is here, requests arrive over
HTTP, so a client in another process (``entrypoint.py`` run as a subprocess
with ``GITHUB_API_URL=fake.url``) is served exactly like PyGithub in-process.

Every request goes through the same steps, in this order:

1. recorded in :attr:`FakeGitHub.requests` (method, path, query, JSON body, headers);
2. routed to an operation of the OpenAPI subset and validated with
   openapi-core, then checked against the documented rules the spec is looser
   on (:mod:`tests.github_fake.rules`). A failure answers 4xx with the reason
   and is recorded in :attr:`FakeGitHub.violations`: the ``github_fake``
   fixture fails the test at teardown if any was recorded;
3. authenticated: no ``Authorization`` header answers 401 "Requires
   authentication", an unknown token 401 "Bad credentials";
4. a matching injected fault (:meth:`FakeGitHub.fail_next`) answers instead;
5. the token's kind may forbid the write (:class:`TokenKind`);
6. the operation's handler answers from state, with bodies built from the
   spec's examples (:mod:`tests.github_fake.responses`); 2xx responses are
   validated against the spec too (a mismatch is a violation: a bug of the fake).
"""

from __future__ import annotations

import fnmatch
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from http import HTTPStatus
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlencode

from werkzeug.exceptions import ClientDisconnected
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from tests.github_fake import responses, reviews, rules, settings, spec
from tests.github_fake.state import (
    PERMISSIONS,
    ArtifactState,
    CheckRunState,
    CommentState,
    CommitState,
    HookDeliveryState,
    PullFileState,
    PullState,
    ReactionState,
    RepoState,
    State,
    StatusState,
    WorkflowRunState,
    now_iso,
)

DEFAULT_TOKEN = "ghs_FakeInstallationToken0123456789abcdef"  # noqa: S105 - a fake token for a fake server
DEFAULT_PER_PAGE = 30
# Where artifacts/{id}/zip redirects: like GitHub's pre-signed blob URL, outside the API, no token needed.
BLOB_PREFIX = "/_fake-blob/artifacts/"
MAX_LISTED_PULL_FILES = 3000  # pulls/list-files: "Responses include a maximum of 3000 files."
WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
NOT_ACCESSIBLE = "Resource not accessible by integration"
APP_ONLY = "You must authenticate via a GitHub App."
SECONDARY_RATE_LIMIT = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID 0000:FAKE."
)
_FAULT_MESSAGES = {
    500: "Server Error",
    502: "Server Error",
    503: "Service Unavailable",
    422: "Validation Failed",
}


# App endpoints any token may read (GitHub: "You can use this endpoint without authentication").
ANY_TOKEN = frozenset({"apps/get-by-slug"})


class TokenKind(StrEnum):
    """What a token may write, modelled on the three tokens an Action meets."""

    #: GITHUB_TOKEN or an App installation token with write permissions: may write anything.
    APP = "app"
    #: A personal access token: Checks API writes answer 403 "You must authenticate via a GitHub App."
    PAT = "pat"
    #: GITHUB_TOKEN of a fork PR: every write answers 403 "Resource not accessible by integration".
    READ_ONLY = "read_only"


@dataclass
class Token:
    kind: TokenKind
    login: str
    #: the App's slug for a GitHub App's JWT (``app_jwt``) or one of its installation tokens
    app: str | None = None
    app_jwt: bool = False


@dataclass(frozen=True)
class App:
    """A GitHub App the fake knows: JWTs signed with its key authenticate as it (``apps/*`` only)."""

    app_id: int
    public_key_pem: str
    slug: str


@dataclass
class Fault:
    """An injected answer for the next ``times`` requests matching ``method`` and ``path_pattern``.

    ``path_pattern`` is an ``fnmatch`` glob over the path without the API
    prefix or query (``*`` also matches ``/``), e.g. ``/repos/*/check-runs``.
    ``status=None`` answers normally after ``delay`` seconds (a slow response).
    """

    method: str
    path_pattern: str
    status: int | None
    times: int
    headers: dict[str, str]
    body: Any
    delay: float
    hits: int = 0
    #: Apply the request, then answer ``status`` anyway: a write whose answer was lost (a 502 from a
    #: proxy, a read timeout), which a client must reconcile before re-sending.
    applied: bool = False
    #: With ``applied``: seconds to wait after applying, before answering (a client killed meanwhile
    #: never learns that its write landed).
    after: float = 0.0
    #: Answer normally, but only once this is set (:meth:`FakeGitHub.hold_next`): a test decides when
    #: the client's request ends, whatever the machine's load, instead of guessing a delay.
    release: threading.Event | None = None

    def matches(self, method: str, path: str) -> bool:
        return (
            self.hits < self.times
            and self.method in ("*", method)
            and fnmatch.fnmatchcase(path, self.path_pattern)
        )


@dataclass
class RecordedRequest:
    """One request as it arrived; ``status`` is the answer given."""

    method: str
    path: str  # without the API prefix and query, still percent-encoded
    query: dict[str, str]
    json: Any
    headers: dict[str, str]
    operation_id: str | None = None
    status: int = 0
    injected: bool = False  # answered by a Fault
    lost_answer: Fault | None = None  # applied, then answered by this Fault
    at: float = field(default_factory=time.monotonic)  # when it arrived (time.monotonic)

    @property
    def authorization(self) -> str | None:
        return self.headers.get("Authorization")


@dataclass(frozen=True)
class Violation:
    """A request GitHub would reject (or a response of the fake that breaks the spec)."""

    method: str
    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.method} {self.path}: {self.problem}"


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    """A validated, authenticated request, as a handler sees it."""

    route: spec.Route
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    token: Token

    @property
    def repo(self) -> str:
        return f"{self.params['owner']}/{self.params['repo']}"

    def int_param(self, name: str) -> int:
        return int(self.params[name])


class _QuietHandler(WSGIRequestHandler):
    """No access log on stderr: the request log is :attr:`FakeGitHub.requests`."""

    def log(self, type: str, message: str, *args: Any) -> None:
        return


class FakeGitHub:
    """The fake server: start it, seed state, point a client at :attr:`url`, assert on state and log.

    ``api_prefix="/api/v3"`` serves GHES-style URLs only (a request without
    the prefix is a violation).
    """

    def __init__(self, *, api_prefix: str = "", validate_responses: bool = True) -> None:
        self.api_prefix = api_prefix.rstrip("/")
        self.validate_responses = validate_responses
        self.state = State()
        self.token = DEFAULT_TOKEN
        self.tokens: dict[str, Token] = {DEFAULT_TOKEN: Token(TokenKind.APP, "github-actions[bot]")}
        self.requests: list[RecordedRequest] = []
        self.violations: list[Violation] = []
        self.faults: list[Fault] = []
        self.apps: dict[int, App] = {}
        self.installation_tokens: list[str] = []
        #: overrides of the X-RateLimit-* headers of every answer (e.g. a nearly spent budget)
        self.rate_limit_headers: dict[str, str] = {}
        #: repository settings doctor reads (branches, protection, rulesets, environments ...)
        self.settings = settings.Settings()
        #: v3.5 approvals: pull request reviews and team members
        self.reviews = reviews.Reviews()
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> Self:
        # Load the OpenAPI description before serving (seconds, once per process): a client's first
        # request must not wait for it, since some tests give their client a 1 s timeout.
        spec.warm()
        self._server = make_server("127.0.0.1", 0, self._wsgi, threaded=True, request_handler=_QuietHandler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes any delayed response
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake GitHub server is not started")
        return self._server.server_port

    @property
    def host_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The API base URL a client uses (``GITHUB_API_URL``), prefix included."""
        return self.host_url + self.api_prefix

    def env(self) -> dict[str, str]:
        """Environment for a client in a subprocess: the API URL, and no proxy for loopback."""
        return {"GITHUB_API_URL": self.url, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}

    # -- seeding ---------------------------------------------------------------------------------

    def add_token(
        self,
        token: str,
        kind: TokenKind | str = TokenKind.APP,
        login: str | None = None,
        *,
        app: str | None = None,
    ) -> None:
        """Accept ``token`` (or change what an accepted one may do); comments it writes are by ``login``;
        with ``app`` it is an installation token of that App (its check runs are that App's)."""
        kind = TokenKind(kind)
        default_login = "github-actions[bot]" if kind != TokenKind.PAT else "a-maintainer"
        if app is not None:
            default_login = f"{app}[bot]"
        with self._lock:
            self.tokens[token] = Token(kind, login or default_login, app=app)

    def add_app(self, app_id: int, public_key_pem: str, slug: str = "oracle-gate") -> App:
        """A GitHub App: its JWTs (RS256, ``iss`` = ``app_id``) may call ``apps/*``; the installation
        tokens it creates may write anything and post as ``<slug>[bot]``."""
        with self._lock:
            app = App(app_id, public_key_pem, slug)
            self.apps[app_id] = app
            return app

    def add_repo(self, full_name: str, *, private: bool = False, default_branch: str = "main") -> RepoState:
        with self._lock:
            repo = RepoState(full_name, responses.stable_id(full_name), private, default_branch)
            self.state.repos[full_name] = repo
            return repo

    def add_pull(
        self,
        full_name: str,
        number: int,
        *,
        head_sha: str,
        base_sha: str,
        fork: bool = False,
        author: str = "agent-bot",
        head_ref: str = "feature",
        base_ref: str = "main",
        labels: Iterable[str] = (),
    ) -> PullState:
        """A pull request (and its issue); ``fork=True`` puts its head in ``<author>/<repo>``."""
        with self._lock:
            repo = self._repo_or_raise(full_name)
            pull = PullState(
                full_name,
                number,
                self.state.next_id(),
                head_sha,
                base_sha,
                head_ref,
                base_ref,
                fork,
                author,
                head_owner=author if fork else repo.owner,
                labels=list(labels),
            )
            self.state.pulls[(full_name, number)] = pull
            return pull

    def add_pull_files(
        self, full_name: str, number: int, paths: Iterable[str], *, status: str = "modified"
    ) -> None:
        """Files the pull request changes, as ``pulls/list-files`` lists them (appended in order)."""
        for path in paths:
            self.add_pull_file(full_name, number, path, status=status)

    def add_pull_file(
        self,
        full_name: str,
        number: int,
        filename: str,
        *,
        status: str = "modified",
        previous_filename: str | None = None,
    ) -> PullFileState:
        """One changed file; ``previous_filename`` (with ``status="renamed"``) is a rename's old path."""
        if (previous_filename is None) == (status == "renamed"):
            raise ValueError("previous_filename goes with status 'renamed', and only with it")
        with self._lock:
            pull = self.state.pulls.get((full_name, number))
            if pull is None:
                raise KeyError(f"no pull request #{number} in {full_name}: add_pull first")
            entry = PullFileState(filename, status, previous_filename)
            pull.files.append(entry)
            return entry

    def add_commit(self, full_name: str, sha: str, parents: Iterable[str]) -> CommitState:
        """A commit ``repos/get-commit`` knows (by its full SHA), with its parents in order."""
        with self._lock:
            self._repo_or_raise(full_name)
            commit = CommitState(full_name, sha, list(parents))
            self.state.commits[(full_name, sha)] = commit
            return commit

    def add_comment(
        self, full_name: str, issue_number: int, body: str, *, user: str = "someone"
    ) -> CommentState:
        """An existing comment (e.g. another bot's) on an issue or pull request."""
        with self._lock:
            if not self.state.issue_exists(full_name, issue_number):
                raise KeyError(f"no issue or pull request #{issue_number} in {full_name}: add_pull first")
            stamp = now_iso()
            comment = CommentState(full_name, issue_number, self.state.next_id(), body, user, stamp, stamp)
            self.state.comments.append(comment)
            return comment

    def set_mergeable(self, full_name: str, number: int, answers: Iterable[bool | None]) -> None:
        """What the next pulls/get requests answer as ``mergeable`` (the last one stays)."""
        with self._lock:
            self.state.pulls[(full_name, number)].mergeable = list(answers) or [True]

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        """What ``repos/get-collaborator-permission-level`` answers for ``login`` (default "none")."""
        if permission not in PERMISSIONS:
            raise ValueError(f"permission must be one of {PERMISSIONS}")
        with self._lock:
            self._repo_or_raise(full_name).permissions[login] = permission

    def add_workflow_run(
        self,
        full_name: str,
        path: str,
        head_sha: str,
        *,
        artifacts: dict[str, bytes] | None = None,
        **fields: Any,
    ) -> WorkflowRunState:
        """A run of the workflow file ``path`` (``.github/workflows/F``) and its artifacts (name -> zip).

        ``fields`` override the run's ``head_branch``, ``event``, ``status``, ``conclusion``, ``head_repo``.
        """
        with self._lock:
            self._repo_or_raise(full_name)
            run = WorkflowRunState(full_name, self.state.next_id(), path, head_sha, **fields)
            self.state.workflow_runs.append(run)
            for name, data in (artifacts or {}).items():
                self.add_artifact(run, name, data)
            return run

    def add_artifact(self, run: WorkflowRunState, name: str, zip_bytes: bytes) -> ArtifactState:
        """An artifact ``name`` of ``run`` whose download is ``zip_bytes``."""
        with self._lock:
            item = ArtifactState(run.repo, self.state.next_id(), run.id, name, zip_bytes)
            self.state.artifacts.append(item)
            return item

    def add_hook_delivery(
        self, guid: str, event: str, status_code: int, *, action: str | None = None, age: float = 60.0
    ) -> HookDeliveryState:
        """A delivery of the App's webhook ``age`` seconds ago (listed newest first)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - age))
        with self._lock:
            item = HookDeliveryState(self.state.next_id(), guid, event, action, status_code, stamp)
            self.state.hook_deliveries.append(item)
            return item

    def _repo_or_raise(self, full_name: str) -> RepoState:
        try:
            return self.state.repos[full_name]
        except KeyError:
            raise KeyError(f"no repository {full_name} in the fake: add_repo first") from None

    # -- faults ----------------------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        path_pattern: str,
        status: int | None = 502,
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: Any = None,
        delay: float = 0.0,
    ) -> Fault:
        """Answer the next ``times`` matching requests with ``status`` (after ``delay`` seconds).

        The request is still validated and recorded; the state is not touched
        (unless ``status`` is None: then it is answered normally, late).
        """
        fault = Fault(method.upper(), path_pattern, status, times, dict(headers or {}), body, delay)
        with self._lock:
            self.faults.append(fault)
        return fault

    def lose_answer_next(self, method: str, path_pattern: str, status: int = 502, *, times: int = 1) -> Fault:
        """Apply the next ``times`` matching requests, then answer ``status`` as if the answer had
        been lost on the way (the state changes; the client sees a failure)."""
        fault = Fault(method.upper(), path_pattern, status, times, {}, None, 0.0, applied=True)
        with self._lock:
            self.faults.append(fault)
        return fault

    def hold_answer_next(self, method: str, path_pattern: str, seconds: float, *, times: int = 1) -> Fault:
        """Apply the next matching request, then answer (502) only after ``seconds``: the window in
        which a crash of the client leaves a write applied that it never saw answered."""
        fault = Fault(method.upper(), path_pattern, 502, times, {}, None, 0.0, applied=True, after=seconds)
        with self._lock:
            self.faults.append(fault)
        return fault

    def hold_next(self, method: str, path_pattern: str) -> threading.Event:
        """Answer the next matching request normally, but only when the returned event is set: the
        request (and the job that made it) stays in flight until the test says."""
        release = threading.Event()
        fault = Fault(method.upper(), path_pattern, None, 1, {}, None, 0.0, release=release)
        with self._lock:
            self.faults.append(fault)
        return release

    def slow_next(self, method: str, path_pattern: str, delay: float, *, times: int = 1) -> Fault:
        """Answer normally, but only after ``delay`` seconds (to exercise client timeouts)."""
        return self.fail_next(method, path_pattern, None, times=times, delay=delay)

    def secondary_rate_limit(
        self, method: str, path_pattern: str, *, retry_after: int = 1, status: int = 403, times: int = 1
    ) -> Fault:
        """GitHub's secondary rate limit: 403 (or 429) with ``retry-after`` and its message."""
        return self.fail_next(
            method,
            path_pattern,
            status,
            times=times,
            headers={"Retry-After": str(retry_after)},
            body=responses.error(SECONDARY_RATE_LIMIT, status),
        )

    def primary_rate_limit(
        self, method: str, path_pattern: str, *, reset_in: int = 0, status: int = 403, times: int = 1
    ) -> Fault:
        """Primary limit exhausted: ``x-ratelimit-remaining: 0``, ``x-ratelimit-reset`` in ``reset_in`` s."""
        return self.fail_next(
            method,
            path_pattern,
            status,
            times=times,
            headers={
                "X-RateLimit-Limit": "1000",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Used": "1000",
                "X-RateLimit-Resource": "core",
                "X-RateLimit-Reset": str(int(time.time()) + reset_in),
            },
            body=responses.error("API rate limit exceeded for installation ID 1.", status),
        )

    # -- inspection ------------------------------------------------------------------------------

    def take_violations(self) -> list[Violation]:
        """The violations so far, forgotten (for a test that provokes them on purpose)."""
        with self._lock:
            found, self.violations = self.violations, []
            return found

    def log(self, method: str | None = None, path_pattern: str = "*") -> list[RecordedRequest]:
        """Recorded requests, optionally only those with ``method`` and a path matching the glob."""
        with self._lock:
            return [
                r
                for r in self.requests
                if (method is None or r.method == method.upper())
                and fnmatch.fnmatchcase(r.path, path_pattern)
            ]

    def check_runs(self, full_name: str | None = None) -> list[CheckRunState]:
        with self._lock:
            return [r for r in self.state.check_runs if full_name in (None, r.repo)]

    def statuses(self, full_name: str | None = None) -> list[StatusState]:
        with self._lock:
            return [s for s in self.state.statuses if full_name in (None, s.repo)]

    def comments(self, full_name: str, issue_number: int) -> list[CommentState]:
        with self._lock:
            return self.state.issue_comments(full_name, issue_number)

    def reactions(self, comment_id: int) -> list[ReactionState]:
        with self._lock:
            return [r for r in self.state.reactions if r.comment_id == comment_id]

    # -- HTTP plumbing ---------------------------------------------------------------------------

    def _wsgi(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        request = Request(environ)
        try:
            reply = self._handle(request, environ)
        except ClientDisconnected:
            # The client went away before its body arrived (a bot killed mid-send): GitHub never saw a
            # request, so there is nothing to apply or call a violation; the answer goes nowhere.
            return Response(status=400)(environ, start_response)
        except Exception:  # noqa: BLE001 - a crash of the fake must fail the test, not hang it
            self._violate(request.method, request.path, "the fake crashed:\n" + traceback.format_exc())
            reply = Reply(500, responses.error("the fake GitHub crashed; see the violations", 500))
        response = self._response(reply)
        return response(environ, start_response)

    def _response(self, reply: Reply) -> Response:
        headers = {
            "X-GitHub-Request-Id": "0000:FAKE",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Used": "1",
            "X-RateLimit-Resource": "core",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
            **self.rate_limit_headers,
            **reply.headers,
        }
        if isinstance(reply.body, bytes):
            return Response(
                reply.body, status=reply.status, headers=reply.headers, mimetype="application/zip"
            )
        data = b"" if reply.body is None else json.dumps(reply.body).encode()
        mimetype = "application/json" if reply.body is not None else None
        return Response(data, status=reply.status, headers=headers, mimetype=mimetype)

    def _violate(self, method: str, path: str, problem: str) -> None:
        with self._lock:
            self.violations.append(Violation(method, path, problem))

    def _handle(self, request: Request, environ: dict[str, Any]) -> Reply:
        raw = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or request.path).split("?", 1)[0]
        method = request.method.upper()
        query = dict(request.args.items())
        data = request.get_data()
        record = RecordedRequest(method, raw, query, None, dict(request.headers.items()))
        with self._lock:
            self.requests.append(record)
        if raw.startswith(BLOB_PREFIX):
            return self._blob(record)
        reply = self._answer(record, data)
        record.status = reply.status
        return reply

    def _answer(self, record: RecordedRequest, data: bytes) -> Reply:
        """Steps 2-6 of the module docstring."""
        routed = self._route(record, data)
        if isinstance(routed, Reply):
            return routed
        route, params, encoded = routed
        token = self._authenticate(record)
        if isinstance(token, Reply):
            return token
        call = Call(route, record.path, params, record.query, record.json, token)
        early = self._inject_fault(record) or self._refuse_write(call, record.method)
        if early is not None:
            return early
        reply = self._dispatch(call)
        if self.validate_responses and 200 <= reply.status < 300 and reply.body is not None:
            self._check_response(call, encoded, data, reply)
        if record.lost_answer is not None:
            self._stopping.wait(record.lost_answer.after)
            return self._fault_reply(record.lost_answer)
        return reply

    def _route(self, record: RecordedRequest, data: bytes) -> Reply | tuple[spec.Route, dict[str, str], str]:
        """The operation, its path parameters and the encoded path; a violation answers instead.

        ``record`` gets its path without the API prefix and its parsed JSON body.
        """
        if not record.path.startswith(self.api_prefix + "/"):
            return self._reject(record, 404, f"Not Found: the API is under {self.api_prefix!r}")
        record.path = record.path[len(self.api_prefix) :]
        try:
            record.json = json.loads(data) if data else None
        except ValueError:
            return self._reject(record, 400, "Problems parsing JSON")
        matched = spec.match(record.method, record.path)
        if matched is None:
            what = "method not allowed" if spec.path_exists(record.path) else "no such path"
            return self._reject(record, 404, f"Not Found: {what} in the OpenAPI subset")
        route, params = matched
        record.operation_id = route.operation_id
        encoded = self.api_prefix + route.encoded_path(params)
        problem = spec.request_problem(
            self.host_url, record.method, encoded, query=record.query, body=data or None
        )
        if problem:
            return self._reject(record, 422, f"Invalid request for {route.operation_id}: {problem}")
        broken = rules.problems(route.operation_id, record.query, record.json)
        if broken:
            return self._reject(record, 422, "Validation Failed", broken)
        return route, params, encoded

    def _inject_fault(self, record: RecordedRequest) -> Reply | None:
        """The first matching fault's answer, after its delay (None: answer normally)."""
        fault = self._take_fault(record.method, record.path)
        if fault is None:
            return None
        if self._stopping.wait(fault.delay) or not self._released(fault):
            return Reply(503, responses.error("the fake GitHub is shutting down", 503))
        if fault.status is None:
            return None
        record.injected = True
        if fault.applied:
            record.lost_answer = fault
            return None
        return self._fault_reply(fault)

    def _released(self, fault: Fault) -> bool:
        """Wait for a held request's release; False if the fake stops first."""
        while fault.release is not None and not fault.release.wait(0.05):
            if self._stopping.is_set():
                return False
        return True

    def _reject(self, record: RecordedRequest, status: int, message: str, errors: Any = None) -> Reply:
        detail = message if not errors else f"{message}: {json.dumps(errors)}"
        self._violate(record.method, record.path, detail)
        return Reply(status, responses.error(message, status, errors))

    def _authenticate(self, record: RecordedRequest) -> Token | Reply:
        header = record.headers.get("Authorization", "")
        if not header:
            return Reply(401, responses.error("Requires authentication", 401))
        scheme, _, value = header.partition(" ")
        token = self.tokens.get(value.strip()) if scheme.lower() in ("token", "bearer") else None
        if token is None and scheme.lower() == "bearer" and value.count(".") == 2:
            token = self._app_jwt(value.strip())
        if token is None:
            return Reply(401, responses.error("Bad credentials", 401))
        app_only = (record.operation_id or "").startswith("apps/") and record.operation_id not in ANY_TOKEN
        if token.app_jwt != app_only:
            # GitHub: an App's JWT reaches only the App endpoints; installation tokens the others.
            return Reply(401, responses.error("A JSON web token could not be decoded", 401))
        return token

    def _app_jwt(self, value: str) -> Token | None:
        """The App whose key signed this JWT (RS256, unexpired, ``iss`` its id), as a token."""
        import jwt

        try:
            claims = jwt.decode(value, options={"verify_signature": False})
            app = self.apps.get(int(claims.get("iss", 0)))
            if app is None:
                return None
            jwt.decode(value, app.public_key_pem, algorithms=["RS256"], options={"require": ["exp", "iat"]})
        except (jwt.PyJWTError, ValueError, TypeError):
            return None
        return Token(TokenKind.APP, app.slug, app=app.slug, app_jwt=True)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(method, path):
                    fault.hits += 1
                    return fault
        return None

    def _fault_reply(self, fault: Fault) -> Reply:
        assert fault.status is not None
        body = fault.body
        if body is None:
            phrase = _FAULT_MESSAGES.get(fault.status) or HTTPStatus(fault.status).phrase
            body = responses.error(phrase, fault.status)
        return Reply(fault.status, body, dict(fault.headers))

    def _refuse_write(self, call: Call, method: str) -> Reply | None:
        if method not in WRITE_METHODS:
            return None
        if call.token.kind == TokenKind.READ_ONLY:
            return Reply(403, responses.error(NOT_ACCESSIBLE, 403))
        if call.token.kind == TokenKind.PAT and call.route.operation_id.startswith("checks/"):
            return Reply(403, responses.error(APP_ONLY, 403))
        return None

    def _check_response(self, call: Call, encoded: str, data: bytes, reply: Reply) -> None:
        problem = spec.response_problem(
            self.host_url,
            call.route.method,
            encoded,
            query=call.query,
            body=data or None,
            status=reply.status,
            data=json.dumps(reply.body).encode(),
        )
        if problem:
            self._violate(call.route.method, call.path, f"the fake's own response breaks the spec: {problem}")

    def _dispatch(self, call: Call) -> Reply:
        handler = _HANDLERS.get(call.route.operation_id)
        if handler is None:
            message = f"{call.route.operation_id} is in the subset but not implemented by the fake"
            self._violate(
                call.route.method, call.path, message + " (add a handler in tests/github_fake/server.py)"
            )
            return Reply(501, responses.error(message, 501))
        with self._lock:
            return handler(self, call)

    # -- handlers (called with the lock held) ----------------------------------------------------

    def _not_found(self) -> Reply:
        return Reply(404, responses.error("Not Found", 404))

    def _page(self, call: Call, items: list[Any]) -> tuple[list[Any], dict[str, str]]:
        """One page of ``items`` and GitHub's ``Link`` header (first/prev/next/last)."""
        per_page = int(call.query.get("per_page", DEFAULT_PER_PAGE))
        page = max(1, int(call.query.get("page", 1)))
        last = max(1, -(-len(items) // per_page))
        rels: list[tuple[str, int]] = []
        if page > 1:
            rels += [("prev", page - 1), ("first", 1)]
        if page < last:
            rels += [("next", page + 1), ("last", last)]
        base = f"{self.url}{call.path}"
        header = ", ".join(f'<{base}?{urlencode({**call.query, "page": n})}>; rel="{rel}"' for rel, n in rels)
        headers = {"Link": header} if header else {}
        return items[(page - 1) * per_page : page * per_page], headers

    def _app_get(self, call: Call) -> Reply:
        app = next(a for a in self.apps.values() if a.slug == call.token.app)
        return Reply(200, responses.app(app.app_id, app.slug, self.url))

    def _installation_token(self, call: Call) -> Reply:
        """A new token for the installation, written by ``<slug>[bot]``, expiring in an hour."""
        token = f"ghs_{call.token.app}{self.state.next_id()}"
        self.tokens[token] = Token(TokenKind.APP, f"{call.token.app}[bot]", app=call.token.app)
        self.installation_tokens.append(token)
        expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
        return Reply(201, responses.installation_token(token, expires, self.url))

    def _repos_get(self, call: Call) -> Reply:
        repo = self.state.repos.get(call.repo)
        return Reply(200, responses.repository(repo, self.url)) if repo else self._not_found()

    def _user_get_authenticated(self, call: Call) -> Reply:
        """``GET /user``: a user token's own account; an installation token (GITHUB_TOKEN, an App's)
        has no user and gets GitHub's 403 "Resource not accessible by integration"."""
        if call.token.kind != TokenKind.PAT:
            return Reply(403, responses.error(NOT_ACCESSIBLE, 403))
        return Reply(200, responses.authenticated_user(call.token.login, self.url))

    def _commit_get(self, call: Call) -> Reply:
        """``GET /repos/{o}/{r}/commits/{ref}`` by full SHA. An unknown SHA gets GitHub's 422 "No commit
        found for SHA"; the fake resolves no branch names or abbreviations."""
        if call.repo not in self.state.repos:
            return self._not_found()
        ref = call.params["ref"]
        commit = self.state.commits.get((call.repo, ref))
        if commit is None:
            return Reply(422, responses.error(f"No commit found for SHA: {ref}", 422))
        return Reply(200, responses.commit(commit, self.url))

    def _pulls_get(self, call: Call) -> Reply:
        pull = self.state.pulls.get((call.repo, call.int_param("pull_number")))
        if pull is None:
            return self._not_found()
        answer = responses.pull_request(pull, self.state.repos[call.repo], self.url)
        answer["mergeable"] = pull.mergeable.pop(0) if len(pull.mergeable) > 1 else pull.mergeable[0]
        if answer["mergeable"] is None:
            answer["mergeable_state"] = "unknown"
        return Reply(200, answer)

    def _pulls_list_files(self, call: Call) -> Reply:
        """Every page of the PR's files, up to GitHub's documented cap of 3000 files."""
        pull = self.state.pulls.get((call.repo, call.int_param("pull_number")))
        if pull is None:
            return self._not_found()
        page, headers = self._page(call, pull.files[:MAX_LISTED_PULL_FILES])
        return Reply(200, [responses.diff_entry(pull, f, self.url) for f in page], headers)

    def _check_run_json(self, run: CheckRunState) -> dict[str, Any]:
        pulls = [p for p in self.state.pulls.values() if p.repo == run.repo and p.head_sha == run.head_sha]
        return responses.check_run(run, [p for p in pulls if not p.fork], self.url)

    def _checks_create(self, call: Call) -> Reply:
        if call.repo not in self.state.repos:
            return self._not_found()
        body = call.body
        run = CheckRunState(call.repo, self.state.next_id(), body["name"], body["head_sha"])
        run.app_login = call.token.app or run.app_login
        run.started_at = now_iso()
        _apply_check_run(run, body)
        self.state.check_runs.append(run)
        return Reply(201, self._check_run_json(run))

    def _checks_update(self, call: Call) -> Reply:
        run = self.state.check_run(call.repo, call.int_param("check_run_id"))
        if run is None:
            return self._not_found()
        _apply_check_run(run, call.body)
        run.updates += 1
        return Reply(200, self._check_run_json(run))

    def _checks_get(self, call: Call) -> Reply:
        run = self.state.check_run(call.repo, call.int_param("check_run_id"))
        return Reply(200, self._check_run_json(run)) if run else self._not_found()

    def _checks_list_for_ref(self, call: Call) -> Reply:
        """Check runs on a commit SHA (refs are not resolved by the fake), newest first."""
        runs = [r for r in self.state.check_runs if r.repo == call.repo and r.head_sha == call.params["ref"]]
        runs.sort(key=lambda r: -r.id)
        if "check_name" in call.query:
            runs = [r for r in runs if r.name == call.query["check_name"]]
        if "status" in call.query:
            runs = [r for r in runs if r.status == call.query["status"]]
        if call.query.get("filter", "latest") == "latest":
            runs = [r for i, r in enumerate(runs) if all(o.name != r.name for o in runs[:i])]
        page, headers = self._page(call, runs)
        body = {"total_count": len(runs), "check_runs": [self._check_run_json(r) for r in page]}
        return Reply(200, body, headers)

    def _issue_or_none(self, call: Call) -> Reply | None:
        exists = self.state.issue_exists(call.repo, call.int_param("issue_number"))
        return None if exists else self._not_found()

    def _comments_list(self, call: Call) -> Reply:
        missing = self._issue_or_none(call)
        if missing:
            return missing
        comments = self.state.issue_comments(call.repo, call.int_param("issue_number"))
        since = call.query.get("since")
        if since:
            comments = [c for c in comments if c.updated_at >= since]
        page, headers = self._page(call, comments)
        return Reply(200, [responses.issue_comment(c, self.url) for c in page], headers)

    def _comments_create(self, call: Call) -> Reply:
        missing = self._issue_or_none(call)
        if missing:
            return missing
        stamp = now_iso()
        comment = CommentState(
            call.repo,
            call.int_param("issue_number"),
            self.state.next_id(),
            call.body["body"],
            call.token.login,
            stamp,
            stamp,
        )
        self.state.comments.append(comment)
        return Reply(201, responses.issue_comment(comment, self.url))

    def _comment_get(self, call: Call) -> Reply:
        comment = self.state.comment(call.repo, call.int_param("comment_id"))
        return Reply(200, responses.issue_comment(comment, self.url)) if comment else self._not_found()

    def _comment_update(self, call: Call) -> Reply:
        comment = self.state.comment(call.repo, call.int_param("comment_id"))
        if comment is None:
            return self._not_found()
        comment.body = call.body["body"]
        comment.updated_at = now_iso()
        return Reply(200, responses.issue_comment(comment, self.url))

    def _comment_delete(self, call: Call) -> Reply:
        comment = self.state.comment(call.repo, call.int_param("comment_id"))
        if comment is None:
            return self._not_found()
        self.state.comments.remove(comment)
        return Reply(204)

    def _reaction_create(self, call: Call) -> Reply:
        """201 for a new reaction; 200 with the existing one when this user already reacted so."""
        comment_id = call.int_param("comment_id")
        if self.state.comment(call.repo, comment_id) is None:
            return self._not_found()
        content, login = call.body["content"], call.token.login
        for r in self.state.reactions:
            if r.comment_id == comment_id and r.content == content and r.user == login:
                return Reply(200, responses.reaction(r, self.url))
        reaction = ReactionState(call.repo, comment_id, self.state.next_id(), content, login, now_iso())
        self.state.reactions.append(reaction)
        return Reply(201, responses.reaction(reaction, self.url))

    def _status_create(self, call: Call) -> Reply:
        if call.repo not in self.state.repos:
            return self._not_found()
        body = call.body
        st = StatusState(
            call.repo,
            call.params["sha"],
            self.state.next_id(),
            body["state"],
            body.get("context", "default"),
            body.get("description"),
            body.get("target_url"),
            call.token.login,
            now_iso(),
        )
        self.state.statuses.append(st)
        return Reply(201, responses.status(st, self.url))

    def _permission_get(self, call: Call) -> Reply:
        repo = self.state.repos.get(call.repo)
        if repo is None:
            return self._not_found()
        return Reply(200, responses.collaborator_permission(repo, call.params["username"], self.url))

    def _labels_list(self, call: Call) -> Reply:
        missing = self._issue_or_none(call)
        if missing:
            return missing
        pull = self.state.pulls[(call.repo, call.int_param("issue_number"))]
        repo = self.state.repos[call.repo]
        page, headers = self._page(call, pull.labels)
        return Reply(200, [responses.label(repo, name, self.url) for name in page], headers)

    def _rate_limit(self, call: Call) -> Reply:
        return Reply(200, responses.rate_limit(self.url))

    def _workflow_runs_list(self, call: Call) -> Reply:
        """Runs of one workflow file (by file name or id), newest first, filtered as GitHub filters."""
        repo = self.state.repos.get(call.repo)
        if repo is None:
            return self._not_found()
        wanted = call.params["workflow_id"]
        runs = [
            r
            for r in reversed(self.state.workflow_runs)
            if r.repo == call.repo and wanted in (r.path.rsplit("/", 1)[-1], str(responses.stable_id(r.path)))
        ]
        q = call.query
        runs = [
            r
            for r in runs
            if q.get("branch", r.head_branch) == r.head_branch
            and q.get("event", r.event) == r.event
            and q.get("head_sha", r.head_sha) == r.head_sha
            and q.get("status", r.status) in (r.status, r.conclusion)
        ]
        page, headers = self._page(call, runs)
        body = {
            "total_count": len(runs),
            "workflow_runs": [responses.workflow_run(r, repo, self.url) for r in page],
        }
        return Reply(200, body, headers)

    def _run_artifacts_list(self, call: Call) -> Reply:
        repo = self.state.repos.get(call.repo)
        run_id = call.int_param("run_id")
        run = next((r for r in self.state.workflow_runs if r.repo == call.repo and r.id == run_id), None)
        if repo is None or run is None:
            return self._not_found()
        items = [a for a in self.state.artifacts if a.run_id == run_id]
        if "name" in call.query:
            items = [a for a in items if a.name == call.query["name"]]
        page, headers = self._page(call, items)
        body = {
            "total_count": len(items),
            "artifacts": [responses.artifact(a, run, repo, self.url) for a in page],
        }
        return Reply(200, body, headers)

    def _artifact_download(self, call: Call) -> Reply:
        """302 to a pre-signed blob URL (served by the fake itself), 410 once the artifact expired."""
        if call.params["archive_format"] != "zip":
            self._violate("GET", call.path, "archive_format must be zip (the only format GitHub serves)")
            return self._not_found()
        artifact_id = call.int_param("artifact_id")
        item = next((a for a in self.state.artifacts if a.repo == call.repo and a.id == artifact_id), None)
        if item is None:
            return self._not_found()
        if item.expired:
            return Reply(410, responses.error("Artifact has expired", 410))
        return Reply(302, None, {"Location": f"{self.host_url}{BLOB_PREFIX}{item.id}?sig=fake"})

    def _blob(self, record: RecordedRequest) -> Reply:
        """The pre-signed URL's answer: the zip's bytes. GitHub's blob store wants no token; a client
        that sends one there leaks it, so it is a violation."""
        if record.headers.get("Authorization"):
            self._violate(record.method, record.path, "a token was sent to the artifact's blob URL")
        found = record.path[len(BLOB_PREFIX) :]
        with self._lock:
            item = next((a for a in self.state.artifacts if str(a.id) == found), None)
        record.status = 200 if item else 404
        return Reply(200, item.zip_bytes) if item else Reply(404, responses.error("BlobNotFound", 404))

    def _hook_deliveries_list(self, call: Call) -> Reply:
        """Newest first; ``cursor`` is the id to continue after (GitHub's is opaque, from the Link header)."""
        items = sorted(self.state.hook_deliveries, key=lambda d: -d.id)
        if "cursor" in call.query:
            items = [d for d in items if d.id < int(call.query["cursor"])]
        if "status" in call.query:
            items = [d for d in items if d.status.lower() == call.query["status"]]
        per_page = int(call.query.get("per_page", DEFAULT_PER_PAGE))
        page, headers = items[:per_page], {}
        if len(items) > per_page:
            cursor = urlencode({**call.query, "cursor": page[-1].id})
            headers["Link"] = f'<{self.url}{call.path}?{cursor}>; rel="next"'
        return Reply(200, [responses.hook_delivery(d, self.url) for d in page], headers)

    def _hook_redeliver(self, call: Call) -> Reply:
        delivery_id = call.int_param("delivery_id")
        if all(d.id != delivery_id for d in self.state.hook_deliveries):
            return self._not_found()
        self.state.redelivered.append(delivery_id)
        return Reply(202, {})


def _apply_check_run(run: CheckRunState, body: dict[str, Any]) -> None:
    """Create/update semantics: a conclusion completes the run; annotations are appended."""
    for key in ("name", "head_sha", "details_url", "external_id", "started_at", "completed_at"):
        if key in body:
            setattr(run, key, body[key])
    if "status" in body:
        run.status = body["status"]
    if "conclusion" in body:
        run.conclusion = body["conclusion"]
        run.status = "completed"
        run.completed_at = body.get("completed_at") or now_iso()
    output = body.get("output")
    if output:
        run.title = output.get("title", run.title)
        run.summary = output.get("summary", run.summary)
        run.text = output.get("text", run.text)
        run.annotations.extend(output.get("annotations") or [])


_HANDLERS: dict[str, Callable[[FakeGitHub, Call], Reply]] = {
    "apps/get-authenticated": FakeGitHub._app_get,
    "apps/create-installation-access-token": FakeGitHub._installation_token,
    "repos/get": FakeGitHub._repos_get,
    "pulls/get": FakeGitHub._pulls_get,
    "repos/get-commit": FakeGitHub._commit_get,
    "pulls/list-files": FakeGitHub._pulls_list_files,
    "checks/create": FakeGitHub._checks_create,
    "checks/update": FakeGitHub._checks_update,
    "checks/get": FakeGitHub._checks_get,
    "checks/list-for-ref": FakeGitHub._checks_list_for_ref,
    "issues/list-comments": FakeGitHub._comments_list,
    "users/get-authenticated": FakeGitHub._user_get_authenticated,
    "issues/create-comment": FakeGitHub._comments_create,
    "issues/get-comment": FakeGitHub._comment_get,
    "issues/update-comment": FakeGitHub._comment_update,
    "issues/delete-comment": FakeGitHub._comment_delete,
    "reactions/create-for-issue-comment": FakeGitHub._reaction_create,
    "repos/create-commit-status": FakeGitHub._status_create,
    "repos/get-collaborator-permission-level": FakeGitHub._permission_get,
    "issues/list-labels-on-issue": FakeGitHub._labels_list,
    "rate-limit/get": FakeGitHub._rate_limit,
    "actions/list-workflow-runs": FakeGitHub._workflow_runs_list,
    "actions/list-workflow-run-artifacts": FakeGitHub._run_artifacts_list,
    "actions/download-artifact": FakeGitHub._artifact_download,
    "apps/list-webhook-deliveries": FakeGitHub._hook_deliveries_list,
    "apps/redeliver-webhook-delivery": FakeGitHub._hook_redeliver,
}
_HANDLERS.update(settings.HANDLERS)
_HANDLERS.update(reviews.HANDLERS)
