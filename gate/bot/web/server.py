"""The webhook endpoint (Starlette on uvicorn): verify, store, answer; never plan or judge inline.

``POST /webhook`` (also ``/``): the body is read with a cap (``Content-Length`` first, then while
reading), its ``X-Hub-Signature-256`` checked before anything is parsed, then the raw delivery is
stored as one plan job (its JSON only checked to be an object) and the workers woken; a worker
turns it into jobs (:mod:`oracle_gate.bot.queue.planning`, TRUST.md 8). Answers: 401 unsigned or
wrongly signed,
413 too large, 400 a signed body that is not a JSON object, 202 stored / already seen, 503 (not
stored) while too many bytes of deliveries wait to be recorded (:mod:`oracle_gate.bot.web.inbox`).
``GET /healthz``: 200 with the queue's counts while the database answers.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.bot.queue import planning
from oracle_gate.bot.queue.store import Store
from oracle_gate.bot.web import signature
from oracle_gate.bot.web.access import StatusAccess
from oracle_gate.bot.web.inbox import Inbox, InboxFull
from oracle_gate.bot.web.status import routes as status_routes
from oracle_gate.errors import Refused

DELIVERY = re.compile(r"[A-Za-z0-9-]{1,100}")
EVENT = re.compile(r"[a-z_]{1,64}")
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
# The page shows text a pull request wrote (paths, test names): no script, no style, nothing loaded.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_log = logging.getLogger("oracle_gate.bot")


class TooLarge(Refused):
    """The body is larger than the server's limit (answered 413)."""


async def read_capped(request: Request, limit: int) -> bytes:
    """The body, or :class:`TooLarge` as soon as it is known to exceed ``limit`` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(status: int, message: str, delivery: str | None, **extra: object) -> JSONResponse:
    level = logging.INFO if status < 400 else logging.WARNING
    _log.log(level, message, extra={"delivery": delivery, "status": status, **extra})
    return JSONResponse({"message": message}, status_code=status)


def explanation_page(repo: str, pr: int, head: str, markdown: str) -> str:
    """The explanation as preformatted text; every character of it escaped."""
    title = html.escape(f"Oracle Gate: {repo}#{pr} at {head[:12]}")
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><h1>{title}</h1><pre>{html.escape(markdown)}</pre></body></html>"
    )


def make_app(
    store: Store,
    secret: bytes,
    max_body: int,
    inbox: Inbox,
    pool_stats: Callable[[], dict[str, int]] = dict,
    *,
    status: StatusAccess | None = None,
    pending: Callable[[], int] = lambda: 0,
    clock: Clock = SYSTEM,
) -> Starlette:
    """The app; ``inbox`` records the deliveries (off the event loop) and wakes the workers;
    ``pending`` counts the recorded deliveries not in the queue yet (queued, for ``/healthz``)."""

    async def verified_body(request: Request) -> bytes | Response:
        """The body when it is small enough and signed with the secret; else the refusal."""
        delivery = request.headers.get("x-github-delivery") or None
        try:
            body = await read_capped(request, max_body)
        except TooLarge:
            return _answer(413, "payload too large", delivery)
        if not signature.is_signed_by(secret, body, request.headers.get("x-hub-signature-256")):
            return _answer(401, "missing or wrong X-Hub-Signature-256", delivery)
        return body

    async def webhook(request: Request) -> Response:
        body = await verified_body(request)
        if isinstance(body, Response):
            return body
        delivery = request.headers.get("x-github-delivery", "")
        event = request.headers.get("x-github-event", "")
        if not DELIVERY.fullmatch(delivery) or not EVENT.fullmatch(event):
            return _answer(400, "missing or malformed X-GitHub-Delivery / X-GitHub-Event", None)
        try:
            if not isinstance(json.loads(body), dict):
                raise ValueError("the payload is not a JSON object")
        except ValueError as exc:
            return _answer(400, f"not a {event} payload: {exc}", delivery, event=event)
        # Stored as is; a worker plans its jobs (oracle_gate.bot.queue.planning), never the event loop.
        try:
            new = await inbox.put(delivery, event, planning.delivery_job(event, body), len(body))
        except InboxFull as exc:
            return _answer(503, f"busy, not stored ({exc}); redeliver it", delivery, event=event)
        if not new:
            return _answer(202, "already received", delivery, event=event)
        return _answer(202, "stored; a worker plans its jobs", delivery, event=event)

    # A plain function: Starlette runs it in its thread pool, so its read (the store's lock, which a
    # worker may hold) never stalls the event loop that acknowledges deliveries.
    def explanation(request: Request) -> Response:
        """A check's ``details_url``: the stored explanation, HTML-escaped, under an unguessable token."""
        token = str(request.path_params.get("token", ""))
        found = store.explanation(token) if TOKEN.fullmatch(token) else None
        if found is None:
            return Response("not found\n", status_code=404, media_type="text/plain")
        return HTMLResponse(explanation_page(*found), headers=PAGE_HEADERS)

    async def healthz(request: Request) -> Response:
        """On the loop: it answers only while the loop does, and starting the thread pool for it
        doubled the first answer's time (probes start at once). Its reads are short (by index)."""
        jobs = store.counts()
        if waiting := pending():
            jobs["queued"] = jobs.get("queued", 0) + waiting
        return JSONResponse(
            {
                "status": "ok",
                "jobs": jobs,
                "pool": pool_stats(),
                "installations": store.installations(),
            }
        )

    return Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/", webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/explanations/{token}", explanation, methods=["GET"]),
            *status_routes(store, status or StatusAccess(), clock.now),  # off unless configured
        ]
    )
