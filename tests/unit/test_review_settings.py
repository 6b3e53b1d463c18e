"""One definition of every setting and its default (oracle_gate.review.settings): action.yml, the Action's
config and the bot's config all agree with it."""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no stubs; types-PyYAML is not pinned

from oracle_gate.action.config import ActionConfig
from oracle_gate.bot.app import config as bot_config
from oracle_gate.bot.web import access
from oracle_gate.errors import UsageError
from oracle_gate.review.settings import SETTINGS, branch_names, default

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
ACTION_SETTINGS = {name for name, s in SETTINGS.items() if s.action}
BOT_SETTINGS = {name for name, s in SETTINGS.items() if s.bot}


def test_every_action_input_is_a_setting_with_action_ymls_default() -> None:
    assert set(ACTION["inputs"]) == ACTION_SETTINGS
    for name, spec in ACTION["inputs"].items():
        assert str(spec.get("default", "")) == default(name), name


def test_the_actions_config_takes_every_default_from_the_settings(tmp_path: Path) -> None:
    env = {
        "INPUT_GITHUB-TOKEN": "t",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(tmp_path / "e.json"),
        "GITHUB_SHA": "0" * 40,
    }
    config = ActionConfig.from_environ(env)
    assert config.check_name == default("check-name")
    assert config.comment == default("comment")
    assert str(config.max_annotations) == default("max-annotations")
    assert str(config.max_api_writes) == default("max-api-writes")
    assert str(config.time_budget) == default("time-budget")
    assert str(int(config.merge_wait * 1000)) == default("merge-wait-ms")
    assert config.allowed_bases == ()
    assert ActionConfig.from_environ({**env, "INPUT_MERGE-WAIT-MS": "250"}).merge_wait == 0.25
    with pytest.raises(UsageError, match="input 'merge-wait-ms' takes a whole number from 0 to 60000"):
        ActionConfig.from_environ({**env, "INPUT_MERGE-WAIT-MS": "-1"})


def test_the_bots_config_has_every_shared_setting_with_its_default(tmp_path: Path) -> None:
    key = tmp_path / "k.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    env = {
        "ORACLE_GATE_APP_ID": "1",
        "ORACLE_GATE_PRIVATE_KEY_FILE": str(key),
        "ORACLE_GATE_WEBHOOK_SECRET": "s",
    }
    config = bot_config.from_environment(env)
    assert config.check_name == default("check-name")
    assert config.comment == default("comment")
    assert str(config.max_annotations) == default("max-annotations")
    assert config.allowed_bases == ()
    assert (config.host, str(config.port), str(config.max_body)) == (
        default("host"),
        default("port"),
        default("max-body"),
    )
    assert str(config.concurrency) == default("concurrency")
    assert str(config.state_dir) == default("state-dir")
    assert config.api_url == default("api-url")
    assert str(int(config.pacing * 1000)) == default("request-pacing-ms")
    assert str(config.max_changed_bytes) == default("max-changed-bytes")
    assert str(int(config.merge_wait * 1000)) == default("merge-wait-ms")
    assert str(config.max_recoveries) == default("max-recoveries")
    assert str(config.job_memory_mb) == default("job-memory-mb")


def test_the_bot_reads_the_actions_settings(tmp_path: Path) -> None:
    key = tmp_path / "k.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    env = {
        "ORACLE_GATE_APP_ID": "1",
        "ORACLE_GATE_PRIVATE_KEY_FILE": str(key),
        "ORACLE_GATE_WEBHOOK_SECRET": "s",
        "ORACLE_GATE_ALLOWED_BASES": "main, release/2.x",
        "ORACLE_GATE_COMMENT": "never",
        "ORACLE_GATE_MAX_ANNOTATIONS": "7",
    }
    config = bot_config.from_environment(env)
    assert config.allowed_bases == ("main", "release/2.x")
    assert (config.comment, config.max_annotations) == ("never", 7)
    with pytest.raises(UsageError, match="ORACLE_GATE_COMMENT"):
        bot_config.from_environment({**env, "ORACLE_GATE_COMMENT": "sometimes"})
    with pytest.raises(UsageError, match="ORACLE_GATE_ALLOWED_BASES"):
        bot_config.from_environment({**env, "ORACLE_GATE_ALLOWED_BASES": "refs/heads/main"})


@pytest.mark.parametrize("bad", ["refs/heads/main", "ma*n", "a b", "-x", "a:b", "a~1"])
def test_a_base_is_a_branch_name(bad: str) -> None:
    with pytest.raises(UsageError, match="input 'x'"):
        branch_names(bad, "input 'x'")


def test_the_bot_operations_page_lists_every_bot_setting_with_its_default() -> None:
    page = (ROOT / "docs" / "bot-operations.md").read_text()
    table = page.split("**Every setting**", 1)[1].split("**What the server answers**", 1)[0]
    for name in sorted(BOT_SETTINGS):
        setting = SETTINGS[name]
        row = next((line for line in table.splitlines() if f"`{setting.variable}`" in line), None)
        assert row is not None, f"docs/bot-operations.md's settings table lacks {setting.variable}"
        if setting.default and name not in ("git-url",):
            assert f"`{setting.default}`" in row, f"the page gives another default for {setting.variable}"
    for status in ("`202`", "`401`", "`413`"):
        assert status in page.split("**What the server answers**", 1)[1][:800]


BOT_NUMBERS = {
    "concurrency": ("concurrency", "7"),
    "port": ("port", "9191"),
    "max-body": ("max_body", "4096"),
    "redeliver-hours": ("redeliver_hours", "5"),
    "shutdown-grace": ("shutdown_grace", "11"),
    "max-recoveries": ("max_recoveries", "9"),
    "job-memory-mb": ("job_memory_mb", "77"),
    "prune-minutes": ("prune_minutes", "13"),
}


@pytest.mark.parametrize("name", sorted(BOT_NUMBERS))
def test_the_bots_config_reads_its_defaults_from_the_table(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Change a default in the table only: the bot's config follows (no second default in config.py)."""
    attribute, value = BOT_NUMBERS[name]
    monkeypatch.setitem(SETTINGS, name, dataclasses.replace(SETTINGS[name], default=value))
    key = tmp_path / "k.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n")
    env = {"ORACLE_GATE_APP_ID": "1", "ORACLE_GATE_PRIVATE_KEY_FILE": str(key)}
    env["ORACLE_GATE_WEBHOOK_SECRET"] = "s"  # noqa: S105 - a test's secret
    assert str(getattr(bot_config.from_environment(env), attribute)) == value


@pytest.mark.parametrize("module", ["app/config.py", "web/access.py"])
def test_every_variable_the_bot_reads_is_in_the_table(module: str) -> None:
    source = (ROOT / "gate" / "bot" / module).read_text()
    read = set(re.findall(r'PREFIX \+ "([A-Z_]+)"', source)) | set(re.findall(r'env, "([A-Z_]+)"', source))
    read |= set(re.findall(r'"ORACLE_GATE_([A-Z_]+)"', source))
    variables = {s.variable.removeprefix("ORACLE_GATE_") for s in SETTINGS.values() if s.bot}
    assert read - variables - {"WEBHOOK_SECRET_FILE"} == set()


def test_the_status_pages_settings_are_bot_settings_of_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defined once, in the table (read as ``ORACLE_GATE_STATUS_*``); the access module only checks them."""
    for name in ("status-token", "status-networks"):
        assert (SETTINGS[name].bot, SETTINGS[name].action, SETTINGS[name].default) == (True, False, "")
    assert access.from_environment({}) == access.StatusAccess()  # off by default
    opened = dataclasses.replace(SETTINGS["status-networks"], default="127.0.0.0/8")
    monkeypatch.setitem(SETTINGS, "status-networks", opened)
    assert access.from_environment({}).networks == (ipaddress.ip_network("127.0.0.0/8"),)
    with pytest.raises(UsageError, match=r"^ORACLE_GATE_STATUS_NETWORKS: 'everyone' is not a CIDR"):
        access.from_environment({"ORACLE_GATE_STATUS_NETWORKS": "everyone"})
