"""The OpenAPI subset of GitHub's REST API, loaded once, as the fake server's source of truth.

Three things come from the spec and nowhere else: which operations exist
(:func:`match` routes a request to an ``operationId``), what a valid request
and response look like (:func:`request_problem`, :func:`response_problem`,
both through openapi-core), and the shape of every response body
(:func:`example` returns a fresh copy of one of ``components/examples``).

Adjustments to the document, each needed for loopback testing and nothing else:

* ``servers`` point at loopback, with and without the GHES ``/api/v3`` prefix;
* ``check-run.conclusion`` is ``nullable`` with an ``enum`` that lacks
  ``null``, which OAS 3.0 validators reject; ``None`` is appended to the enum;
* four official examples do not validate against their own schemas; the
  missing required fields are added in :data:`_EXAMPLE_FIXES`.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

SPEC_PATH = Path(__file__).resolve().parent.parent / "data" / "github" / "openapi-subset.json"
GHES_PREFIX = "/api/v3"
# Path parameters whose values may contain "/" (a file path, a ref, "base...head").
_SLASHY_PARAMS = frozenset({"path", "ref", "basehead"})
_METHODS = ("get", "post", "patch", "put", "delete")


def _fix_language(ex: dict[str, Any]) -> None:
    ex.setdefault("language", None)
    if isinstance(ex.get("source"), dict):
        ex["source"].setdefault("language", None)


def _fix_requested_teams(ex: dict[str, Any]) -> None:
    for team in ex.get("requested_teams") or []:
        team.setdefault("type", "organization")


def _fix_role_name(ex: dict[str, Any]) -> None:
    ex["user"].setdefault("role_name", ex.get("role_name", "read"))


_EXAMPLE_FIXES = {
    "full-repository-default-response": _fix_language,
    "pull-request": _fix_requested_teams,
    "repository-collaborator-permission-response-if-user-has-admin-permissions": _fix_role_name,
}


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    """The subset with loopback servers and the ``conclusion: null`` fix (shared, do not mutate)."""
    spec: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    port = {"port": {"default": "0"}}
    spec["servers"] = [
        {"url": "http://127.0.0.1:{port}", "variables": port},
        {"url": "http://127.0.0.1:{port}" + GHES_PREFIX, "variables": port},
    ]
    spec["components"]["schemas"]["check-run"]["properties"]["conclusion"]["enum"].append(None)
    return spec


@lru_cache(maxsize=1)
def _api() -> OpenAPI:
    return OpenAPI.from_dict(document())


def warm() -> None:
    """Build the validator and the routes now (cached for the process)."""
    _api()
    routes()


def example(name: str) -> dict[str, Any]:
    """A deep copy of ``components/examples/<name>``, completed where the official one is invalid."""
    value: dict[str, Any] = copy.deepcopy(document()["components"]["examples"][name]["value"])
    fix = _EXAMPLE_FIXES.get(name)
    if fix is not None:
        fix(value)
    return value


@dataclass(frozen=True)
class Route:
    """One operation of the subset: its method, path template and a regex for concrete paths."""

    method: str
    template: str
    operation_id: str
    pattern: re.Pattern[str]

    def encoded_path(self, params: dict[str, str]) -> str:
        """The concrete path with every parameter percent-encoded, ``/`` included.

        openapi-core cannot match a ``{path}`` value that contains ``/``; GitHub
        clients send those slashes raw, so they are encoded before validating.
        """
        return re.sub(r"\{(\w+)\}", lambda m: quote(unquote(params[m.group(1)]), safe=""), self.template)


def _route(method: str, template: str, operation_id: str) -> Route:
    chunks = re.split(r"\{(\w+)\}", template)  # odd indices are parameter names
    regex = "".join(
        re.escape(chunk) if i % 2 == 0 else f"(?P<{chunk}>{'.+' if chunk in _SLASHY_PARAMS else '[^/]+'})"
        for i, chunk in enumerate(chunks)
    )
    return Route(method.upper(), template, operation_id, re.compile(f"^{regex}$"))


@lru_cache(maxsize=1)
def routes() -> tuple[Route, ...]:
    """Every operation, most literal characters first so ``/commits/{ref}/check-runs`` wins over ``{ref}``."""
    found = [
        _route(method, template, op["operationId"])
        for template, ops in document()["paths"].items()
        for method, op in ops.items()
        if method in _METHODS
    ]
    return tuple(sorted(found, key=lambda r: -len(re.sub(r"\{\w+\}", "", r.template))))


def match(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """The operation a (prefix-less, still percent-encoded) path names, and its path parameters."""
    for route in routes():
        if route.method != method.upper():
            continue
        found = route.pattern.match(path)
        if found:
            return route, found.groupdict()
    return None


def path_exists(path: str) -> bool:
    """Whether some operation of the subset has this path (with any method)."""
    return any(r.pattern.match(path) for r in routes())


def _middle_cut(text: str, keep: int = 150) -> str:
    """Long jsonschema messages start with the whole value; the verdict is at the end."""
    return text if len(text) <= 2 * keep else f"{text[:keep]} ... {text[-keep:]}"


def _describe(exc: Exception) -> str:
    """openapi-core's message plus the jsonschema errors it wraps, which say what was wrong."""
    text = str(exc)
    parts = [f"{type(exc).__name__}: {text[:200]}{'...' if len(text) > 200 else ''}"]
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        for err in getattr(cause, "schema_errors", ()) or ():
            where = "/".join(str(p) for p in err.absolute_path) or "(body)"
            parts.append(f"{where}: {_middle_cut(err.message)}")
        cause = cause.__cause__ or cause.__context__
    return "; ".join(parts)


def _mock_request(
    base: str, method: str, path: str, query: dict[str, str], body: bytes | None
) -> MockRequest:
    return MockRequest(base, method.lower(), path, args=query, data=body, content_type="application/json")


def request_problem(
    base: str, method: str, path: str, *, query: dict[str, str], body: bytes | None
) -> str | None:
    """Why openapi-core rejects this request, or None when it is valid.

    ``base`` is scheme://host:port plus the API prefix, ``path`` the encoded path after it.
    """
    try:
        _api().validate_request(_mock_request(base, method, path, query, body))
    except Exception as exc:  # noqa: BLE001 - every openapi-core error is a violation to report
        return _describe(exc)
    return None


def response_problem(
    base: str, method: str, path: str, *, query: dict[str, str], body: bytes | None, status: int, data: bytes
) -> str | None:
    """Why openapi-core rejects the fake's own response, or None when it matches the spec."""
    try:
        _api().validate_response(
            _mock_request(base, method, path, query, body), MockResponse(data, status_code=status)
        )
    except Exception as exc:  # noqa: BLE001 - reported as a bug of the fake
        return _describe(exc)
    return None
