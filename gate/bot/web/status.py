"""The status page (``/status``, ``/status/OWNER/NAME``) and ``/metrics``, behind
:mod:`oracle_gate.bot.web.access`.

The page is plain HTML from ``templates/status*.html.j2`` with autoescaping on: repository names,
commit ids, test ids and logins all come from GitHub or from a pull request, so they are text, never
markup. The chart is SVG drawn here (:mod:`oracle_gate.bot.web.chart`), the style is one inline
block allowed by
its hash, and the Content-Security-Policy allows nothing else: no script, no image, no font, no
frame, no form. It never shows file contents (nothing the page reads holds any).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from collections.abc import Callable
from functools import cache
from urllib.parse import quote

import jinja2
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from oracle_gate.bot.jobs import trend
from oracle_gate.bot.queue.store import Store
from oracle_gate.bot.web import chart, metrics
from oracle_gate.bot.web.access import COOKIE, Decision, StatusAccess, bearer_of

STYLE = (
    "body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff;max-width:60em}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
    "th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left}"
    "code,.repo{font-family:monospace;overflow-wrap:anywhere}"
    ".note{color:#555;font-size:0.9em}"
)
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
CSP = (
    f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("oracle_gate.templates", "."),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["percent"] = trend.percent
    env.filters["utc"] = lambda at: dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return env


def page(data: trend.RepoTrend, now: float) -> str:
    """The repository's status page as HTML text (pure, given the data and the time)."""
    totals = trend.total("total", data.weeks)
    return (
        environment()
        .get_template("status.html.j2")
        .render(
            trend=data,
            totals=totals,
            chart=Markup(chart.rate_chart(data.weeks)),  # noqa: S704 - built by rate_chart, every text escaped there
            style=Markup(STYLE),  # noqa: S704 - this module's constant (its hash is in the CSP)
            generated=environment().filters["utc"](now),
        )
    )


def index(repos: list[str]) -> str:
    """The list of repositories; the links carry no token (the cookie set with the page does)."""
    links = [(r, "/status/" + quote(r, safe="/")) for r in repos]
    return environment().get_template("status_index.html.j2").render(repos=links, style=Markup(STYLE))  # noqa: S704


def _refusal(decision: Decision) -> Response | None:
    if decision is Decision.ALLOWED:
        return None
    if decision is Decision.OFF:
        return Response("not found\n", status_code=404, media_type="text/plain")
    headers = (
        {"WWW-Authenticate": 'Bearer realm="oracle-gate status"'}
        if decision is Decision.UNAUTHENTICATED
        else {}
    )
    word = "a token is needed" if decision is Decision.UNAUTHENTICATED else "wrong token"
    return Response(f"{word}\n", status_code=decision.value, media_type="text/plain", headers=headers)


def routes(store: Store, access: StatusAccess, clock: Callable[[], float]) -> list[Route]:
    """``/status``, ``/status/{owner}/{name}`` and ``/metrics``, each checking ``access`` first."""

    def decide(request: Request) -> Response | None:
        peer = request.client.host if request.client else None
        return _refusal(
            access.decide(
                peer,
                bearer_of(request.headers.get("authorization")),
                request.query_params.get("token"),
                request.cookies.get(COOKIE),
            )
        )

    def html(request: Request, text: str) -> HTMLResponse:
        """The page, with the session cookie when the request carried the token (it was let in,
        so a token it carried was the right one; one let in by its network gets no cookie)."""
        response = HTMLResponse(text, headers=HEADERS)
        value = access.cookie_value()
        carried = bearer_of(request.headers.get("authorization")) or request.query_params.get("token")
        if value is not None and carried is not None:
            response.set_cookie(
                COOKIE,
                value,
                path="/",
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    # Plain functions: Starlette runs them in its thread pool, so their queries and rendering never
    # hold up the event loop that acknowledges deliveries (a scraper reads /metrics every few seconds).
    def status_index(request: Request) -> Response:
        refused = decide(request)
        if refused is not None:
            return refused
        return html(request, index(trend.repositories(store)))

    def status_page(request: Request) -> Response:
        refused = decide(request)
        if refused is not None:
            return refused
        repo = f"{request.path_params['owner']}/{request.path_params['name']}"
        data = trend.repo_trend(store, repo)
        if data is None:
            return Response(
                "no verdicts recorded for that repository\n", status_code=404, media_type="text/plain"
            )
        return html(request, page(data, clock()))

    def metrics_page(request: Request) -> Response:
        refused = decide(request)
        if refused is not None:
            return refused
        return Response(
            metrics.render(metrics.snapshot(store)),
            media_type=metrics.CONTENT_TYPE,
            headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
        )

    return [
        Route("/status", status_index, methods=["GET"]),
        Route("/status/{owner}/{name}", status_page, methods=["GET"]),
        Route("/metrics", metrics_page, methods=["GET"]),
    ]
