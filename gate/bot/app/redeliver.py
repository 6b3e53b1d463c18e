"""On start: ask GitHub which deliveries failed while the server was down, and have them sent again.

``GET /app/hook/deliveries`` (the App's JWT) lists the App's deliveries newest first, paged by a
cursor. A delivery is asked again (``POST /app/hook/deliveries/{id}/attempts``) when it failed, is
within the window (GitHub keeps three days), was never received here (the store knows every
``X-GitHub-Delivery`` it accepted) and no other attempt of it succeeded. One attempt per delivery
``guid``. The redelivered payload arrives signed like any other, so it goes through the same door.
"""

from __future__ import annotations

import logging
import time
from calendar import timegm
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from oracle_gate.bot.app.clock import SYSTEM, Clock
from oracle_gate.bot.queue.store import Store
from oracle_gate.github.client import PublishError, github_call

MAX_PAGES = 10
PER_PAGE = 100
_log = logging.getLogger("oracle_gate.bot")


class JsonRequester(Protocol):
    def requestJsonAndCheck(
        self, verb: str, url: str, parameters: dict[str, Any] | None = ...
    ) -> tuple[dict[str, Any], Any]: ...


@dataclass(frozen=True)
class Redelivered:
    asked: list[str]  # guids asked to be delivered again
    looked_at: int


def _epoch(stamp: Any) -> float | None:
    try:
        return float(timegm(time.strptime(str(stamp), "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None


def _next_cursor(headers: dict[str, Any]) -> str | None:
    link = next((v for k, v in headers.items() if k.lower() == "link"), "") or ""
    for part in str(link).split(","):
        if 'rel="next"' in part:
            url = part.split(";", 1)[0].strip().strip("<>")
            cursor = parse_qs(urlsplit(url).query).get("cursor")
            return cursor[0] if cursor else None
    return None


def recent_deliveries(requester: JsonRequester, since: float) -> list[dict[str, Any]]:
    """The deliveries newer than ``since`` (epoch seconds), at most MAX_PAGES pages."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {"per_page": PER_PAGE, **({"cursor": cursor} if cursor else {})}
        with github_call("list the App's webhook deliveries"):
            headers, page = requester.requestJsonAndCheck("GET", "/app/hook/deliveries", params)
        items = [d for d in page if isinstance(d, dict)] if isinstance(page, list) else []
        fresh = [d for d in items if (_epoch(d.get("delivered_at")) or 0) >= since]
        found.extend(fresh)
        cursor = _next_cursor(headers)
        if cursor is None or len(fresh) < len(items):
            break
    return found


def to_redeliver(deliveries: list[dict[str, Any]], store: Store) -> dict[str, int]:
    """guid -> the id of its newest failed attempt, for every guid never received and never delivered."""
    succeeded = {d.get("guid") for d in deliveries if d.get("status") == "OK"}
    chosen: dict[str, int] = {}
    for d in deliveries:  # newest first: the first failed attempt seen is the newest
        guid, ident = d.get("guid"), d.get("id")
        if not isinstance(guid, str) or not isinstance(ident, int) or d.get("status") == "OK":
            continue
        if guid in succeeded or guid in chosen or store.seen(guid):
            continue
        chosen[guid] = ident
    return chosen


def redeliver_failed(
    requester: JsonRequester, store: Store, window_seconds: float, clock: Clock = SYSTEM
) -> Redelivered:
    """Ask GitHub to send again what failed within the window; a failure to ask is logged, not raised."""
    if window_seconds <= 0:
        return Redelivered([], 0)
    try:
        deliveries = recent_deliveries(requester, clock.now() - window_seconds)
    except PublishError as exc:
        _log.warning("could not list failed deliveries", extra={"detail": str(exc)})
        return Redelivered([], 0)
    asked = []
    for guid, ident in to_redeliver(deliveries, store).items():
        try:
            with github_call(f"redeliver delivery {guid}"):
                requester.requestJsonAndCheck("POST", f"/app/hook/deliveries/{ident}/attempts", None)
            asked.append(guid)
        except PublishError as exc:
            _log.warning("could not ask for a redelivery", extra={"delivery": guid, "detail": str(exc)})
    _log.info(
        "redelivery", extra={"detail": f"asked again for {len(asked)} of {len(deliveries)} recent deliveries"}
    )
    return Redelivered(asked, len(deliveries))
