"""Red team of the bot's status access (issue 31's cookie): what a client controls is never a crash."""

from __future__ import annotations

import pytest

from oracle_gate.bot.web.access import Decision, StatusAccess
from oracle_gate.github.reviews import role_of

TOKEN = "status-token-status-token"  # noqa: S105 - a test value


@pytest.mark.parametrize("cookie", ["é" * 64, "\u2603", "\udcff", ""])
def test_a_cookie_that_is_not_ascii_is_refused_not_a_crash(cookie: str) -> None:
    """A header is read as latin-1, so a cookie can hold any code point below 256 (and Starlette
    passes on what it parsed): comparing it must refuse, never raise (a 500 with a traceback)."""
    access = StatusAccess(token=TOKEN)
    assert access.decide("203.0.113.9", None, None, cookie) is Decision.UNAUTHENTICATED


def test_a_token_that_is_not_ascii_is_forbidden_not_a_crash() -> None:
    access = StatusAccess(token=TOKEN)
    assert access.decide("203.0.113.9", "é" * 30, None, None) is Decision.FORBIDDEN
    assert access.decide("203.0.113.9", None, "\u2603", None) is Decision.FORBIDDEN
    assert access.decide("203.0.113.9", None, "\udcff", None) is Decision.FORBIDDEN


@pytest.mark.parametrize(
    ("answer", "permission"),
    [
        ({"permission": "write", "role_name": "maintain"}, "maintain"),
        ({"permission": "write", "role_name": "write"}, "write"),
        ({"permission": "read", "role_name": "triage"}, "read"),
        ({"permission": "admin", "role_name": "admin"}, "admin"),
        ({"permission": "write", "role_name": "agents"}, "write"),  # a custom role: its base role
        ({"permission": "read", "role_name": "maintain"}, "read"),  # not as GitHub answers: the base
        ({"role_name": "maintain"}, "none"),
        ([], "none"),
    ],
)
def test_the_maintain_role_is_read_from_role_name(answer: object, permission: str) -> None:
    assert role_of(answer) == permission
