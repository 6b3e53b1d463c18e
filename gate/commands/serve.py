"""``oracle-gate serve``: the GitHub App's webhook server (:mod:`oracle_gate.bot`)."""

from __future__ import annotations

import argparse
import os

from oracle_gate.commands.declare import Subcommand
from oracle_gate.exit_status import ExitStatus


def run(args: argparse.Namespace) -> ExitStatus:
    from oracle_gate.bot.app.config import from_environment
    from oracle_gate.bot.app.serve import serve

    return ExitStatus(serve(from_environment(os.environ)))


COMMAND = Subcommand(
    "serve",
    help="run the GitHub App webhook server (the bot)",
    description="Serve GitHub App webhooks: verify each delivery's signature, queue it, judge pull "
    "requests in a bounded worker pool and post the verdict as the App. Configured from the "
    "environment only (ORACLE_GATE_APP_ID, ORACLE_GATE_PRIVATE_KEY_FILE, ORACLE_GATE_WEBHOOK_SECRET, "
    "ORACLE_GATE_API_URL, ORACLE_GATE_STATE_DIR, ORACLE_GATE_CONCURRENCY, ...; every setting is in "
    "docs/bot-operations.md): no secret is ever a flag.",
    run=run,
)
