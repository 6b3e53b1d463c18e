"""Every setting of both front doors, with its one default (issue 17).

The Action reads a setting as the input ``name`` (``INPUT_<NAME>``); the bot reads it as the
environment variable ``ORACLE_GATE_<NAME>`` (upper case, ``-`` as ``_``). A setting that only one
door has says so (``action`` / ``bot``). Defaults are written here and nowhere else: the Action's
config and the bot's config read them from :func:`default`, and tests check ``action.yml``'s
defaults, the bot's config and docs/bot-operations.md's settings table against this one.

Each setting has a :class:`Kind` (a whole number carries its bounds) and parses itself, with the
one-line :class:`UsageError` naming the input or the variable: the doors ask the table
(``SETTINGS[name].whole(raw, where)``, ``.flag``, ``.branches``, ``.comment``) and write no bound
or default of their own, and the pages give the bounds :attr:`Setting.described` gives (a test
checks both).

Standard library only: the command line and both configs import it without PyGithub or jinja2.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from oracle_gate.errors import UsageError
from oracle_gate.github.defaults import (
    DEFAULT_API_URL,
    DEFAULT_CHECK_NAME,
    DEFAULT_MAX_API_WRITES,
    DEFAULT_TIME_BUDGET,
    MAX_ANNOTATIONS_INPUT,
    MAX_ANNOTATIONS_PER_RUN,
    MAX_API_WRITES_INPUT,
    MAX_TIME_BUDGET,
    MIN_TIME_BUDGET,
    CommentMode,
)

BOT_PREFIX = "ORACLE_GATE_"
#: One judgement's budget of changed bytes (both sides of every changed file): past it the pull
#: request is ``oracle_incomplete`` without reading its blobs (TRUST.md invariant 8).
DEFAULT_MAX_CHANGED_BYTES = 64 * 1024 * 1024


class Kind(enum.Enum):
    """What a setting's value is, so that it parses itself (:meth:`Setting.parse`)."""

    TEXT = "text"  # read as given (its door checks what text it takes)
    WHOLE = "whole number"  # ASCII digits within the setting's bounds
    FLAG = "true or false"
    BRANCHES = "branch names"  # newline or comma separated
    COMMENT = "comment mode"  # one of CommentMode


@dataclass(frozen=True)
class Setting:
    """One setting: its default, what it does, which door reads it, its kind and, for a whole
    number, its bounds. It parses itself, so no door writes a bound or a default again."""

    name: str
    default: str  # as the input or the variable gives it; "" is "not set"
    doc: str
    action: bool = True  # an input of the Action
    bot: bool = True  # a variable of the bot
    low: int | None = None  # a whole number's least value (None: not a whole number)
    high: int | None = None
    kind: Kind = Kind.TEXT

    def __post_init__(self) -> None:
        if (self.kind is Kind.WHOLE) != (self.low is not None and self.high is not None):
            raise TypeError(f"setting {self.name!r}: a whole number, and only one, has bounds")

    @property
    def variable(self) -> str:
        return BOT_PREFIX + self.name.upper().replace("-", "_")

    @property
    def input(self) -> str:
        """How the Action's errors name it."""
        return f"input '{self.name}'"

    @property
    def bounds(self) -> tuple[int, int]:
        if self.low is None or self.high is None:
            raise TypeError(f"setting {self.name!r} is not a whole number")
        return self.low, self.high

    @property
    def described(self) -> str:
        """Its doc, with a whole number's bounds as the pages give them: ``... (0 to 60000)``."""
        return f"{self.doc} ({span(*self.bounds)})" if self.kind is Kind.WHOLE else self.doc

    def parse(self, raw: str, where: str) -> int | bool | tuple[str, ...] | CommentMode | str:
        """``raw`` (empty: the default) as its kind reads it; :class:`UsageError` naming ``where``
        (the input or the variable) otherwise. Typed doors call the kind's own method."""
        match self.kind:
            case Kind.WHOLE:
                return self.whole(raw, where)
            case Kind.FLAG:
                return self.flag(raw, where)
            case Kind.BRANCHES:
                return self.branches(raw, where)
            case Kind.COMMENT:
                return self.comment(raw, where)
            case Kind.TEXT:
                return self.text(raw, where)

    def text(self, raw: str, where: str) -> str:
        del where  # text is taken as given
        return self._given(raw, Kind.TEXT)

    def whole(self, raw: str, where: str) -> int:
        """A whole number within the bounds (ASCII digits: no sign, no exponent, no spaces)."""
        value = self._given(raw, Kind.WHOLE)
        return count(value, where, *self.bounds)

    def flag(self, raw: str, where: str) -> bool:
        """``true`` or ``false``, in any case."""
        value = self._given(raw, Kind.FLAG)
        if value.lower() not in ("true", "false"):
            raise UsageError(f"{where} must be true or false, got {value!r}")
        return value.lower() == "true"

    def branches(self, raw: str, where: str) -> tuple[str, ...]:
        return branch_names(self._given(raw, Kind.BRANCHES), where)

    def comment(self, raw: str, where: str) -> CommentMode:
        return comment_mode(self._given(raw, Kind.COMMENT), where)

    def _given(self, raw: str, kind: Kind) -> str:
        """``raw`` stripped, or the default when empty; :class:`TypeError` for another kind's read."""
        if self.kind is not kind:
            raise TypeError(f"setting {self.name!r} is not a {kind.value} but a {self.kind.value}")
        return raw.strip() or self.default


def number(name: str, low: int, high: int, default: str, doc: str, **doors: bool) -> Setting:
    """A whole-number setting with its bounds."""
    return Setting(name, default, doc, low=low, high=high, kind=Kind.WHOLE, **doors)


def span(low: int, high: int) -> str:
    """Bounds as every page and message gives them."""
    return f"{low} to {high}"


_BOTH = [
    Setting("check-name", DEFAULT_CHECK_NAME, "the check run's name (make it the required check)"),
    Setting(
        "allowed-bases",
        "",
        "base branches whose pull requests get the required check (default: the repository's "
        "default branch); any other base is posted as '<check-name> (base: <branch>)'",
        kind=Kind.BRANCHES,
    ),
    Setting(
        "comment",
        CommentMode.ON_CHANGE.value,
        "the sticky comment: always, on-change, never",
        kind=Kind.COMMENT,
    ),
    number(
        "max-annotations", 0, MAX_ANNOTATIONS_INPUT, str(MAX_ANNOTATIONS_PER_RUN), "annotations per check"
    ),
    number(
        "max-changed-bytes",
        1024,
        4 * 1024**3,
        str(DEFAULT_MAX_CHANGED_BYTES),
        "bytes of a change judged (both sides of every changed file); past it: unscored, unread",
    ),
    number("merge-wait-ms", 0, 60_000, "3000", "ms between two looks at a test merge not yet fresh"),
]
_ACTION = [
    Setting("github-token", "${{ github.token }}", "the token that posts", bot=False),
    Setting("coverage-file", "", "the parent's map (a manifest, or its data file)", bot=False),
    Setting("coverage-sha", "", "the commit the map was built on", bot=False),
    Setting("coverage-command", "", "build the parent's map in this run", bot=False),
    Setting("protected", "", "extra protected globs", bot=False),
    Setting(
        "trust-same-run-map",
        "false",
        "trust a map this very run built (pull_request)",
        bot=False,
        kind=Kind.FLAG,
    ),
    Setting("comment-author", "", "the login the token comments as", bot=False),
    Setting("fail-on", "fail,unscored", "verdicts that fail the step", bot=False),
    Setting(
        "allow-failing-parent", "false", "use a map of a failing parent test run", bot=False, kind=Kind.FLAG
    ),
    Setting("working-directory", ".", "the repository's directory in the workspace", bot=False),
    number(
        "time-budget",
        MIN_TIME_BUDGET,
        MAX_TIME_BUDGET,
        str(DEFAULT_TIME_BUDGET),
        "the run's wall-time budget, seconds",
        bot=False,
    ),
    number(
        "max-api-writes",
        1,
        MAX_API_WRITES_INPUT,
        str(DEFAULT_MAX_API_WRITES),
        "write requests per run",
        bot=False,
    ),
]
_BOT = [
    Setting("app-id", "", "the GitHub App's id (required)", action=False),
    Setting("private-key-file", "", "the App's private key, a PEM file (required)", action=False),
    Setting("webhook-secret", "", "the webhook secret (or webhook-secret-file; required)", action=False),
    Setting("api-url", DEFAULT_API_URL, "GitHub's API (GHES: https://HOST/api/v3)", action=False),
    Setting(
        "git-url", "", "clone URL template, {repo} is OWNER/NAME (default from the API URL)", action=False
    ),
    Setting("state-dir", "/var/lib/oracle-gate", "the database and the mirrors", action=False),
    Setting("host", "0.0.0.0", "the address to listen on", action=False),  # noqa: S104
    number("port", 0, 65535, "8080", "the port to listen on", action=False),
    number(
        "max-body",
        1024,
        100 * 1024 * 1024,
        str(25 * 1024 * 1024),
        "the largest delivery accepted, bytes (413 past it)",
        action=False,
    ),
    number("concurrency", 1, 64, "4", "worker threads", action=False),
    number("request-pacing-ms", 0, 10_000, "250", "ms between one client's API requests", action=False),
    number(
        "review-interval-ms",
        0,
        3_600_000,
        "60000",
        "a review's judgement waits this long, taking every review that comes meanwhile with it "
        "(one read of a pull request's reviews per interval)",
        action=False,
    ),
    number(
        "max-recoveries", 0, 100, "3", "a job interrupted by crashes more often than this fails", action=False
    ),
    number("job-memory-mb", 0, 1_048_576, "1024", "one judgement's memory, MiB (0: no limit)", action=False),
    number(
        "job-seconds", 0, 86_400, "600", "one judgement's wall clock, seconds (0: no limit)", action=False
    ),
    Setting("map-workflow", ".github/workflows/oracle-gate-map.yml", "the map workflow's path", action=False),
    Setting("map-artifact", "oracle-gate-map", "the name of the artifact it uploads", action=False),
    Setting("public-url", "", "public base URL for the checks' explanation pages", action=False),
    number(
        "redeliver-hours",
        0,
        72,
        "24",
        "redeliver failed deliveries this recent on start (0: off)",
        action=False,
    ),
    number("shutdown-grace", 1, 600, "30", "seconds running jobs get on SIGTERM", action=False),
    number(
        "retry-base-ms", 0, 3_600_000, "5000", "a job's wait after its first transient failure", action=False
    ),
    number("retry-cap-ms", 0, 3_600_000, "300000", "the longest such wait", action=False),
    number(
        "keep-days", 1, 3650, "30", "verified maps and explanations older than this are pruned", action=False
    ),
    number("keep-maps", 1, 1_000_000, "500", "verified maps kept, the most recently used", action=False),
    number("keep-explanations", 1, 10_000_000, "20000", "explanations kept, the newest", action=False),
    number("prune-minutes", 1, 7 * 24 * 60, "60", "how often the bounds above are applied", action=False),
    Setting(
        "score-sandbox",
        "",
        "'bwrap': score each pass_clean verdict by running head's tests in a bubblewrap sandbox, "
        "posted as '<check-name> / score' (empty: off)",
        action=False,
    ),
    number("score-cpu-seconds", 1, 86_400, "1800", "the scoring run's CPU seconds per process", action=False),
    number(
        "score-memory-mb",
        64,
        1024**2,
        "4096",
        "the scoring run's memory (address space) per process, MiB",
        action=False,
    ),
    number(
        "score-disk-mb",
        16,
        1024**2,
        "2048",
        "the scoring run's scratch space and largest file, MiB",
        action=False,
    ),
    number(
        "score-workers",
        1,
        16,
        "1",
        "scores run at once, in a pool of their own beside the judging workers (which a score never holds)",
        action=False,
    ),
    number("score-wall-seconds", 10, 86_400, "1200", "the scoring run's wall clock, seconds", action=False),
    # at least GitHub's 3 days of redeliveries: a delivery id is what makes a redelivery a no-op
    number(
        "delivery-retention-days",
        3,
        3650,
        "7",
        "finished jobs (their raw deliveries) and delivery ids older than this are pruned",
        action=False,
    ),
    Setting(
        "status-token", "", "opens the status page and /metrics to a bearer of this secret", action=False
    ),
    Setting("status-networks", "", "opens them to requests from these CIDRs (comma-separated)", action=False),
    Setting(
        "forwarded-allow-ips",
        "",
        "proxies (addresses or CIDRs, comma-separated) whose X-Forwarded-For is believed (empty: none)",
        action=False,
    ),
]
SETTINGS: dict[str, Setting] = {s.name: s for s in (*_BOTH, *_ACTION, *_BOT)}


def default(name: str) -> str:
    """The one default of the setting ``name``."""
    return SETTINGS[name].default


def comment_mode(value: str, where: str) -> CommentMode:
    """The ``comment`` setting; :class:`UsageError` naming ``where`` (the input or the variable)."""
    if value not in tuple(CommentMode):
        raise UsageError(f"{where} must be one of {', '.join(CommentMode)}; got {value!r}")
    return CommentMode(value)


def count(value: str, where: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` (ASCII digits only)."""
    if not (value.isascii() and value.isdigit()) or not low <= int(value) <= high:
        raise UsageError(f"{where} takes a whole number from {span(low, high)}, got {value!r}")
    return int(value)


def branch_names(value: str, where: str) -> tuple[str, ...]:
    """Branch names, newline or comma separated; a glob or a ref path is not a branch name here."""
    branches = [item.strip() for item in re.split(r"[\n,]", value) if item.strip()]
    bad = [b for b in branches if b.startswith(("refs/", "-")) or any(c in b for c in "*?[ \t:^~\\")]
    if bad:
        raise UsageError(f"{where} takes branch names (main, release/2.x); got {bad[0]!r}")
    return tuple(branches)
