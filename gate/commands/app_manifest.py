"""``oracle-gate app-manifest``: the manifest that creates the bot's GitHub App."""

from __future__ import annotations

import argparse

from oracle_gate.commands.declare import Subcommand
from oracle_gate.commands.output import emit
from oracle_gate.exit_status import ExitStatus


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hook-url", required=True, help="where GitHub sends webhooks (the server's /webhook)")
    p.add_argument("--name", default="Oracle Gate", help="the App's name (unique on GitHub)")


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.bot.app.manifest import app_manifest

    emit(app_manifest(args.hook_url, name=args.name))
    return ExitStatus.OK


COMMAND = Subcommand(
    "app-manifest",
    help="print the GitHub App manifest for the bot",
    description="Print the manifest that creates the bot's GitHub App in one step (its permissions, "
    "its events, its webhook URL).",
    add_arguments=add_arguments,
    run=run,
)
