"""Who may read the status page and ``/metrics``: a bearer token, or an allow-listed network; off by default.

The two settings are defined, with their defaults (unset), in :mod:`oracle_gate.review.settings`; what
a valid value is, is checked here.

Both pages say nothing a pull request could not already see on GitHub, but they aggregate every
repository the App is installed on, so they are closed unless an operator opens them:

* ``ORACLE_GATE_STATUS_TOKEN``: a secret of at least 16 characters. A request carries it as
  ``Authorization: Bearer TOKEN`` (preferred: proxies do not log headers) or as ``?token=TOKEN`` (for a
  browser or a scraper that cannot set headers). Compared in constant time.
* ``ORACLE_GATE_STATUS_NETWORKS``: comma-separated CIDRs (``10.0.0.0/8,127.0.0.1/32``); a request from
  one of them needs no token. The address is the TCP peer's (TRUST.md invariant 16): a client writes
  ``X-Forwarded-For`` itself, so the server believes it only from the proxies
  ``ORACLE_GATE_FORWARDED_ALLOW_IPS`` names (unset: from none; uvicorn's own default would believe
  it from 127.0.0.1, so that anything on the host, or a proxy passing the header on, could claim
  any address).

A page opened with the token (either way) sets a cookie, ``oracle-gate-status`` (``HttpOnly``,
``SameSite=Strict``), holding a keyed digest of the token, never the token: the page's links then
carry no secret, and following them (every click after the first) needs no token in the address.
A cookie that does not match the token now (it was rotated) is ignored, not refused.

Neither set: both answer 404, as if they did not exist. Set, but the request has no token and is not
from a listed network: 401 (with ``WWW-Authenticate: Bearer``); a wrong token: 403.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from oracle_gate.errors import UsageError
from oracle_gate.review.settings import SETTINGS, default

MIN_TOKEN = 16
COOKIE = "oracle-gate-status"
_COOKIE_KEY = b"oracle-gate status cookie v1"
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Decision(Enum):
    OFF = 404
    UNAUTHENTICATED = 401
    FORBIDDEN = 403
    ALLOWED = 200


@dataclass(frozen=True)
class StatusAccess:
    token: str | None = field(default=None, repr=False)
    networks: tuple[Network, ...] = ()

    @property
    def enabled(self) -> bool:
        return self.token is not None or bool(self.networks)

    def decide(
        self, peer: str | None, bearer: str | None, query_token: str | None, cookie: str | None = None
    ) -> Decision:
        """Whether a request from ``peer`` carrying these credentials may read the pages."""
        if not self.enabled:
            return Decision.OFF
        given = bearer if bearer is not None else query_token
        if given is not None and self.token is not None:
            same = hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.token.encode())
            return Decision.ALLOWED if same else Decision.FORBIDDEN
        if self._listed(peer) or (given is None and self._session(cookie)):
            return Decision.ALLOWED
        return Decision.UNAUTHENTICATED if given is None else Decision.FORBIDDEN

    def cookie_value(self) -> str | None:
        """What the ``oracle-gate-status`` cookie holds: a digest keyed by the token (None: no token)."""
        if self.token is None:
            return None
        return hmac.new(self.token.encode(), _COOKIE_KEY, "sha256").hexdigest()

    def _session(self, cookie: str | None) -> bool:
        expected = self.cookie_value()
        if cookie is None or expected is None:
            return False
        # As bytes: a cookie is whatever the client sent (a header is read as latin-1), and
        # compare_digest refuses a str that is not ASCII with a TypeError (a 500, not a refusal).
        return hmac.compare_digest(cookie.encode("utf-8", "surrogateescape"), expected.encode())

    def _listed(self, peer: str | None) -> bool:
        try:
            address = ipaddress.ip_address(peer or "")
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def bearer_of(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header; None for any other header."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def from_environment(env: Mapping[str, str]) -> StatusAccess:
    """The access settings (``status-token``, ``status-networks`` in :mod:`oracle_gate.review.settings`,
    their one definition and default), or :class:`UsageError` naming the variable that is wrong."""
    token_variable = SETTINGS["status-token"].variable
    networks_variable = SETTINGS["status-networks"].variable
    token = env.get(token_variable, "").strip() or default("status-token") or None
    if token is not None and (len(token) < MIN_TOKEN or not token.isascii() or not token.isprintable()):
        raise UsageError(f"{token_variable} must be at least {MIN_TOKEN} printable ASCII characters")
    networks = []
    for raw in (env.get(networks_variable, "").strip() or default("status-networks")).split(","):
        if raw.strip():
            try:
                networks.append(ipaddress.ip_network(raw.strip(), strict=True))
            except ValueError as exc:
                raise UsageError(f"{networks_variable}: {raw.strip()!r} is not a CIDR ({exc})") from exc
    return StatusAccess(token, tuple(networks))


def trusted_proxies(env: Mapping[str, str]) -> tuple[str, ...]:
    """The proxies whose ``X-Forwarded-For`` the server believes (``forwarded-allow-ips``): addresses
    or CIDRs; :class:`UsageError` for anything else, ``*`` included (believing every peer is the
    hole TRUST.md invariant 16 closes). Empty: none is, and uvicorn reads no forwarded header."""
    variable = SETTINGS["forwarded-allow-ips"].variable
    proxies = []
    for raw in (env.get(variable, "").strip() or default("forwarded-allow-ips")).split(","):
        if raw.strip():
            try:
                proxies.append(str(ipaddress.ip_network(raw.strip(), strict=True)))
            except ValueError as exc:
                raise UsageError(
                    f"{variable}: {raw.strip()!r} is not an address or a CIDR of a proxy ({exc})"
                ) from exc
    return tuple(proxies)
