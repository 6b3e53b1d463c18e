"""``X-Hub-Signature-256``: HMAC-SHA256 of the raw body with the webhook secret, compared in constant time.

Checked before anything of the body is parsed: an unsigned or wrongly signed delivery is never read
as JSON, so a forged payload cannot reach a parser, the database or a job.
"""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The header value GitHub sends for ``body`` (tests and the benchmark sign with it too)."""
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def is_signed_by(secret: bytes, body: bytes, header: str | None) -> bool:
    """True only when ``header`` is ``sha256=<hex>`` and equals the body's HMAC under ``secret``."""
    if not secret or header is None or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode("ascii", "replace"))
