"""The bot: ``oracle-gate serve``, a GitHub App webhook server judging pull requests as the App.

Flat modules, one job each: :mod:`config` (environment -> typed settings), :mod:`signature`
(HMAC check of a delivery), :mod:`events` (payload -> jobs, pure), :mod:`store` (SQLite: deliveries,
jobs, verdicts), :mod:`workers` (the bounded pool), :mod:`auth` (App JWT and installation tokens
through PyGithub), :mod:`mirror` (per-repository bare mirrors), :mod:`judging` (one job: fetch, judge,
post), :mod:`server` (the ASGI app and uvicorn), :mod:`logs` (JSON log lines), :mod:`manifest`
(the App manifest). Nothing but :mod:`oracle_gate.cli` imports this room.
"""
