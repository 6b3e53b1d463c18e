"""The bot: ``oracle-gate serve``, a GitHub App webhook server judging pull requests as the App.

Four rooms. :mod:`~oracle_gate.bot.app`: the App itself (settings from the environment, its
identity and installation tokens, the manifest, rate-limit awareness, JSON logs, ``serve`` that
starts the two processes, redelivery on start). :mod:`~oracle_gate.bot.web`: the front process
(the webhook endpoint and its signature check, the received-deliveries database only it writes,
the status page, its chart and ``/metrics``, and who may read them). :mod:`~oracle_gate.bot.queue`:
the durable queue (the bot's database and its schema, the only SQL, deliveries turned into jobs,
the worker pool and the worker process, recovery, back-off, retention). :mod:`~oracle_gate.bot.jobs`:
what one job does (judge a pull request or a merge group, score a verdict, mark a stale check, and
what they need: mirrors, the trusted map store, artifacts). Nothing but the command line
(:mod:`oracle_gate.commands`: ``serve``, ``app-manifest``) imports this room.
"""
