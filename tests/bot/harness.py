"""The bot under test: ``python -m oracle_gate serve`` as a real process on loopback, the fake GitHub as its
API, real git repositories as what it fetches (file:// URLs), and signed deliveries built from the
real payloads in tests/data/github/webhooks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.bot_app import (
    APP_ID,
    INSTALLATION,
    REPO,
    SECRET,
    AppKey,
    Origin,
    free_port,
    make_app_key,
    pointed,
    pull_request_event,
)
from tests.support.bot_process import Bot
from tests.support.webhooks import load

__all__ = [
    "APP_ID",
    "INSTALLATION",
    "REPO",
    "SECRET",
    "AppKey",
    "Bot",
    "BotFactory",
    "Origin",
    "free_port",
    "make_app_key",
    "pointed",
    "pull_request_event",
]


def check_run_rerequested(number: int, head: str) -> dict[str, Any]:
    out = pointed(load("check_run.rerequested"))
    out["check_run"]["head_sha"] = head
    out["check_run"]["pull_requests"] = [
        dict(out["check_run"]["pull_requests"][0], number=number)
        if out["check_run"]["pull_requests"]
        else {"number": number}
    ]
    return out


def minimal_environment(tmp_path: Path) -> dict[str, str]:
    """Only what ``from_environment`` cannot do without (a placeholder key file under ``tmp_path``);
    every other setting is left to its documented default."""
    key = tmp_path / "k.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    env = {"ORACLE_GATE_APP_ID": "1", "ORACLE_GATE_PRIVATE_KEY_FILE": str(key)}
    env["ORACLE_GATE_WEBHOOK_SECRET"] = "s"  # noqa: S105 - a test's secret
    return env


def merge_group_event(ref: str, head: str, base: str) -> dict[str, Any]:
    out = pointed(load("merge_group.checks_requested"))
    out["merge_group"].update(head_ref=ref, head_sha=head, base_sha=base)
    return out


# -- the server -----------------------------------------------------------------------------------


BotFactory = Callable[..., Bot]
"""Starts a bot with settings overridden by keyword (the ``bot_factory`` fixture)."""


def workflow_run_completed(path: str, head_sha: str, **run: Any) -> dict[str, Any]:
    """The example ``workflow_run.completed``, made a successful push run of ``path`` on main.

    The package's example has no ``installation`` (it is a repository hook's delivery); GitHub adds
    ``installation`` to every delivery it sends to an App, so :func:`pointed` adds it, as GitHub does.
    """
    out = pointed(load("workflow_run.completed"))
    out["workflow_run"].update(
        path=path,
        head_sha=head_sha,
        head_branch="main",
        event="push",
        status="completed",
        conclusion="success",
    )
    out["workflow_run"].update(run)
    return out


def push_event(after: str, ref: str = "refs/heads/main") -> dict[str, Any]:
    out = pointed(load("push"))
    out.update(ref=ref, after=after)
    return out
