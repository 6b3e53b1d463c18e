"""The one bound on a run's write requests, shared by its checks and its comments (TRUST.md
invariant 8: a change cannot make the gate spend the token's hourly budget)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from oracle_gate.github.client import GitHubUnavailable, PublishError, github_call
from oracle_gate.github.defaults import DEFAULT_MAX_API_WRITES

MAX_WRITES_PER_RUN = DEFAULT_MAX_API_WRITES  # oracle_gate.github.defaults says what it leaves room for

#: The logger of everything that posts (checks, comments): the Action quiets it to errors and says
#: what was not posted itself (oracle_gate.action.outcome).
POSTING_LOGGER = "oracle_gate.github.posting"
_log = logging.getLogger(POSTING_LOGGER)
T = TypeVar("T")


class WritesSpent(PublishError):
    """The run's bound on write requests was reached; the rest is not posted (and said so)."""


class WriteBudget:
    """How many write requests a run may still send; one budget per repository connection
    (:func:`oracle_gate.github.repository.connect`), whoever writes. Only :meth:`write` changes it:
    the limit is fixed at construction."""

    __slots__ = ("_limit", "_spent")

    def __init__(self, limit: int = MAX_WRITES_PER_RUN) -> None:
        self._limit = limit
        self._spent = 0

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def spent(self) -> int:
        return self._spent

    @contextmanager
    def write(self, what: str) -> Iterator[None]:
        """One write request, counted; :class:`WritesSpent` once the limit is reached (nothing sent)."""
        if self._spent >= self._limit:
            raise WritesSpent(what, f"the run's {self._limit} API writes are spent")
        self._spent += 1
        with github_call(what):
            yield

    def __repr__(self) -> str:
        return f"WriteBudget({self._spent}/{self._limit})"


#: Attempts at one POST that creates something (check run, comment); between two, the poster
#: re-lists to adopt what a lost answer had created (POSTs are not retried by the HTTP layer).
POST_ATTEMPTS = 4


def post_exactly_once(post: Callable[[], T], landed: Callable[[], T | None], listed: str) -> T:
    """``post()`` (a POST that creates something), at most :data:`POST_ATTEMPTS` times, yet creating
    it once: after a 5xx or a timeout the POST may have landed (GitHub has no idempotency keys), so
    ``landed()`` re-lists the ``listed`` and what it finds is adopted instead of posting again."""
    for attempt in range(POST_ATTEMPTS):
        try:
            return post()
        except GitHubUnavailable as err:
            _log.warning("%s; re-listing the %s before trying again", err, listed)
            found = landed()
            if found is not None:
                return found
            if attempt + 1 == POST_ATTEMPTS:
                raise
    raise AssertionError("unreachable")
