"""The server's settings, read from the environment once, checked, typed; secrets kept out of repr.

Every variable (``ORACLE_GATE_<NAME>``), what it means and its one default are in the table of
:mod:`oracle_gate.review.settings` (docs/bot-operations.md's "Every setting" lists them);
nothing here writes a default.

The settings both front doors share (``ORACLE_GATE_ALLOWED_BASES``, ``ORACLE_GATE_COMMENT``,
``ORACLE_GATE_MAX_ANNOTATIONS``) and the judgement's bounds (``ORACLE_GATE_MAX_CHANGED_BYTES``,
``ORACLE_GATE_MERGE_WAIT_MS``) take their one default from :mod:`oracle_gate.review.settings`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from oracle_gate.bot.app.score_settings import ScoreSettings, settings_from_environment
from oracle_gate.bot.queue.backoff import DEFAULT_BASE_SECONDS, DEFAULT_CAP_SECONDS
from oracle_gate.bot.queue.delivery_jobs import DEFAULT_MAP_WORKFLOW
from oracle_gate.bot.queue.housekeeping import (
    DAY,
    DEFAULT_PRUNE_MINUTES,
    Limits,
)
from oracle_gate.bot.web import access
from oracle_gate.errors import UsageError
from oracle_gate.github.defaults import (
    CommentMode,
)
from oracle_gate.review.settings import SETTINGS, default

PREFIX = "ORACLE_GATE_"
# Every default below is read from the one table, oracle_gate.review.settings; none is written here.
DEFAULT_STATE_DIR = Path(default("state-dir"))
DEFAULT_MAX_BODY = int(default("max-body"))  # GitHub caps webhook payloads at 25 MB
DEFAULT_MAP_ARTIFACT = default("map-artifact")
WORKFLOW_PATH = re.compile(r"\.github/workflows/[A-Za-z0-9_.-]+\.ya?ml")
ARTIFACT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
DEFAULT_COMMENT = CommentMode(default("comment"))


@dataclass(frozen=True)
class BotConfig:
    app_id: int
    private_key: str = field(repr=False)
    webhook_secret: bytes = field(repr=False)
    api_url: str = default("api-url")
    git_url: str = "https://github.com/{repo}.git"  # derived from api_url (default_git_url)
    state_dir: Path = DEFAULT_STATE_DIR
    concurrency: int = int(default("concurrency"))
    max_body: int = DEFAULT_MAX_BODY
    check_name: str = default("check-name")
    host: str = default("host")  # a container's server listens on every interface
    port: int = int(default("port"))
    pacing: float = int(default("request-pacing-ms")) / 1000  # seconds between one client's requests
    map_workflow: str = DEFAULT_MAP_WORKFLOW
    map_artifact: str = DEFAULT_MAP_ARTIFACT
    redeliver_hours: int = int(default("redeliver-hours"))
    public_url: str | None = None
    shutdown_grace: int = int(default("shutdown-grace"))
    retry_base: float = DEFAULT_BASE_SECONDS  # seconds; see oracle_gate.bot.queue.backoff
    retry_cap: float = DEFAULT_CAP_SECONDS
    keep: Limits = field(default_factory=Limits)
    prune_minutes: int = DEFAULT_PRUNE_MINUTES
    max_recoveries: int = int(default("max-recoveries"))  # oracle_gate.bot.queue.recovery
    job_memory_mb: int = int(default("job-memory-mb"))  # oracle_gate.bot.jobs.bounded
    job_seconds: int = int(default("job-seconds"))  # oracle_gate.bot.jobs.bounded: TRUST.md 8
    # The judgement's settings, shared with the Action (oracle_gate.review.settings).
    allowed_bases: tuple[str, ...] = ()  # empty: the repository's default branch
    comment: CommentMode = DEFAULT_COMMENT
    max_annotations: int = int(default("max-annotations"))
    max_changed_bytes: int = int(default("max-changed-bytes"))
    merge_wait: float = int(default("merge-wait-ms")) / 1000  # seconds between looks at a test merge
    review_interval: float = int(default("review-interval-ms")) / 1000  # oracle_gate.bot.queue.delivery_jobs
    status: access.StatusAccess = field(default_factory=access.StatusAccess)  # off by default
    forwarded_allow_ips: tuple[str, ...] = ()  # proxies whose X-Forwarded-For is believed: none
    score: ScoreSettings = field(default_factory=ScoreSettings)  # off by default

    @property
    def database(self) -> Path:
        return self.state_dir / "oracle-gate.sqlite3"

    @property
    def received_database(self) -> Path:
        """Deliveries received and not queued yet (:mod:`oracle_gate.bot.web.received`)."""
        return self.state_dir / "oracle-gate-received.sqlite3"

    @property
    def mirrors(self) -> Path:
        return self.state_dir / "mirrors"

    @property
    def maps(self) -> Path:
        """Verified maps, kept per repository and parent SHA."""
        return self.state_dir / "maps"

    def clone_url(self, repo: str) -> str:
        return self.git_url.replace("{repo}", repo)


def default_git_url(api_url: str) -> str:
    """https://github.com/{repo}.git for api.github.com, https://HOST/{repo}.git for GHES."""
    parts = urlsplit(api_url)
    host = "github.com" if parts.hostname == "api.github.com" else parts.netloc
    return f"{parts.scheme or 'https'}://{host}/{{repo}}.git"


def _int(env: Mapping[str, str], name: str) -> int:
    """``ORACLE_GATE_<name>`` as the table's setting parses it (its bounds, its default when unset)."""
    setting = SETTINGS[name.lower().replace("_", "-")]
    return setting.whole(env.get(setting.variable, ""), setting.variable)


def _read_file(name: str, path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{PREFIX}{name}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from exc


def _secret(env: Mapping[str, str]) -> bytes:
    value = env.get(PREFIX + "WEBHOOK_SECRET", "")
    if not value and env.get(PREFIX + "WEBHOOK_SECRET_FILE"):
        value = _read_file("WEBHOOK_SECRET_FILE", env[PREFIX + "WEBHOOK_SECRET_FILE"]).strip()
    if not value:
        raise UsageError(f"{PREFIX}WEBHOOK_SECRET (or {PREFIX}WEBHOOK_SECRET_FILE) is not set")
    return value.encode()


def _private_key(env: Mapping[str, str]) -> str:
    path = env.get(PREFIX + "PRIVATE_KEY_FILE", "").strip()
    if not path:
        raise UsageError(f"{PREFIX}PRIVATE_KEY_FILE is not set (the App's private key, a PEM file)")
    key = _read_file("PRIVATE_KEY_FILE", path)
    if "PRIVATE KEY-----" not in key:
        raise UsageError(f"{PREFIX}PRIVATE_KEY_FILE: {path} is not a PEM private key")
    return key


def _api_url(env: Mapping[str, str]) -> str:
    url = (env.get(PREFIX + "API_URL") or default("api-url")).strip().rstrip("/")
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise UsageError(f"{PREFIX}API_URL must be an http(s) URL, got {url!r}")
    return url


def _matching(env: Mapping[str, str], name: str, pattern: re.Pattern[str], what: str) -> str:
    value = env.get(PREFIX + name, "").strip() or default(name.lower().replace("_", "-"))
    if not pattern.fullmatch(value):
        raise UsageError(f"{PREFIX}{name} must be {what}, got {value!r}")
    return value


def from_environment(env: Mapping[str, str]) -> BotConfig:
    """The settings, or :class:`UsageError` naming the first variable that is missing or wrong."""
    app_id = env.get(PREFIX + "APP_ID", "").strip()
    if not (app_id.isascii() and app_id.isdigit()) or int(app_id) < 1:
        raise UsageError(f"{PREFIX}APP_ID must be the App's numeric id, got {app_id!r}")
    api_url = _api_url(env)
    git_url = env.get(PREFIX + "GIT_URL", "").strip() or default_git_url(api_url)
    if "{repo}" not in git_url:
        raise UsageError(f"{PREFIX}GIT_URL must contain {{repo}}, got {git_url!r}")
    return BotConfig(
        app_id=int(app_id),
        private_key=_private_key(env),
        webhook_secret=_secret(env),
        api_url=api_url,
        git_url=git_url,
        state_dir=Path(env.get(PREFIX + "STATE_DIR") or default("state-dir")),
        concurrency=_int(env, "CONCURRENCY"),
        max_body=_int(env, "MAX_BODY"),
        check_name=(env.get(PREFIX + "CHECK_NAME") or default("check-name")).strip(),
        host=env.get(PREFIX + "HOST", "").strip() or default("host"),
        port=_int(env, "PORT"),
        pacing=_int(env, "REQUEST_PACING_MS") / 1000,
        map_workflow=_matching(env, "MAP_WORKFLOW", WORKFLOW_PATH, "a file in .github/workflows/"),
        map_artifact=_matching(env, "MAP_ARTIFACT", ARTIFACT_NAME, "an artifact name"),
        redeliver_hours=_int(env, "REDELIVER_HOURS"),
        public_url=_public_url(env),
        shutdown_grace=_int(env, "SHUTDOWN_GRACE"),
        retry_base=_int(env, "RETRY_BASE_MS") / 1000,
        retry_cap=_int(env, "RETRY_CAP_MS") / 1000,
        keep=_limits(env),
        prune_minutes=_int(env, "PRUNE_MINUTES"),
        max_recoveries=_int(env, "MAX_RECOVERIES"),
        job_memory_mb=_int(env, "JOB_MEMORY_MB"),
        job_seconds=_int(env, "JOB_SECONDS"),
        review_interval=_int(env, "REVIEW_INTERVAL_MS") / 1000,
        status=access.from_environment(env),
        forwarded_allow_ips=access.trusted_proxies(env),
        score=settings_from_environment(env),
        **_judgement_settings(env),
    )


def _judgement_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings the bot shares with the Action, each with its one default."""

    bases, comment = SETTINGS["allowed-bases"], SETTINGS["comment"]
    return {
        "allowed_bases": bases.branches(env.get(bases.variable, ""), bases.variable),
        "comment": comment.comment(env.get(comment.variable, ""), comment.variable),
        "max_annotations": _int(env, "MAX_ANNOTATIONS"),
        "max_changed_bytes": _int(env, "MAX_CHANGED_BYTES"),
        "merge_wait": _int(env, "MERGE_WAIT_MS") / 1000,
    }


def _limits(env: Mapping[str, str]) -> Limits:
    return Limits(
        max_age=_int(env, "KEEP_DAYS") * DAY,
        max_maps=_int(env, "KEEP_MAPS"),
        max_explanations=_int(env, "KEEP_EXPLANATIONS"),
        max_delivery_age=_int(env, "DELIVERY_RETENTION_DAYS") * DAY,
    )


def _public_url(env: Mapping[str, str]) -> str | None:
    url = env.get(PREFIX + "PUBLIC_URL", "").strip().rstrip("/")
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise UsageError(f"{PREFIX}PUBLIC_URL must be an http(s) base URL, got {url!r}")
    return url
