"""The subcommands of ``oracle-gate``: one module per command, each declared the same way.

:mod:`oracle_gate.commands.table` lists them and builds the parser; :mod:`~.declare` says how a
command is declared; :mod:`~.options` holds the options several commands share; :mod:`~.output` is
what every command prints with. :mod:`oracle_gate.cli` only dispatches.
"""
