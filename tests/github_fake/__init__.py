"""A loopback fake of GitHub's REST API for tests, validated against GitHub's OpenAPI description.

Start one with the ``github_fake`` fixture (:mod:`tests.github_fake.fixtures`)
or ``with FakeGitHub() as fake:``; see :mod:`tests.github_fake.server` for the
request pipeline and :class:`FakeGitHub` for the seeding, fault-injection and
inspection API. The data it needs lives in ``tests/data/github``.
"""

from tests.github_fake.server import (
    APP_ONLY,
    DEFAULT_TOKEN,
    NOT_ACCESSIBLE,
    FakeGitHub,
    Fault,
    RecordedRequest,
    TokenKind,
    Violation,
)

__all__ = [
    "APP_ONLY",
    "DEFAULT_TOKEN",
    "NOT_ACCESSIBLE",
    "FakeGitHub",
    "Fault",
    "RecordedRequest",
    "TokenKind",
    "Violation",
]
