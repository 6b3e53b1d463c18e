"""The scoring run's settings (issue 20): read from the environment with the rest of
:mod:`oracle_gate.bot.app.config`, checked even when scoring is off, so a typo is found at start.

They live beside the config, not in :mod:`oracle_gate.bot.jobs.scoring`: the settings are read before
any job exists, and the config importing the score job made a cycle (config -> scoring -> judging ->
config).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from oracle_gate.errors import UsageError
from oracle_gate.review.settings import SETTINGS, default
from oracle_gate.score import sandbox as box

BWRAP = "bwrap"
#: Files the scoring child must not read, besides the state directory: the App's key, the secret's file.
SECRET_FILES = (SETTINGS["private-key-file"].variable, SETTINGS["webhook-secret"].variable + "_FILE")
MAX_SCORE_WORKERS = 16


@dataclass(frozen=True)
class ScoreSettings:
    sandbox: str = ""  # "bwrap", or "" (off)
    limits: box.Limits = field(default_factory=box.Limits)
    hidden: tuple[Path, ...] = ()  # files the child must not read: the App's key, the secret's file
    workers: int = int(default("score-workers"))  # the score pool's size (oracle_gate.bot.app.serve)

    @property
    def enabled(self) -> bool:
        return self.sandbox == BWRAP


def settings_from_environment(env: Mapping[str, str]) -> ScoreSettings:
    """The scoring settings (checked even when off, so a typo is found at start, not when turned on);
    :class:`UsageError` naming the variable."""
    name = SETTINGS["score-sandbox"].variable
    value = env.get(name, "").strip() or default("score-sandbox")
    if value not in ("", BWRAP):
        raise UsageError(
            f"{name} must be {BWRAP!r} (score in a bubblewrap sandbox) or empty (off), got {value!r}"
        )
    hidden = tuple(Path(env[v].strip()).resolve() for v in SECRET_FILES if env.get(v, "").strip())
    return ScoreSettings(value, box.limits_from_environment(env), hidden, _workers(env))


def _workers(env: Mapping[str, str]) -> int:
    name = SETTINGS["score-workers"].variable
    raw = env.get(name, "").strip() or default("score-workers")
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_SCORE_WORKERS:
        raise UsageError(f"{name} must be a whole number from 1 to {MAX_SCORE_WORKERS}, got {raw!r}")
    return int(raw)


def ensure_sandbox(settings: ScoreSettings) -> None:
    """When scoring is on, the sandbox must work here: else ``serve`` does not start (one line)."""
    if not settings.enabled:
        return
    try:
        box.check_sandbox()
    except box.SandboxUnavailable as exc:
        raise UsageError(f"{box.BOT_SETTING}={BWRAP}, but {exc}") from exc
