"""Renderings of a verdict, one module per job; none of them knows GitHub's limits or API.

``verdict_json`` (the contract's JSON and the one reader of a stored one), ``text`` (a terminal's
lines), ``markdown`` (the jinja2 templates packaged as ``oracle_gate.templates`` and their context),
``formats`` (the CLI's choice among the three), ``listings`` (the ranges and observers the
renderings share), ``replay`` (the command that replays a verdict), ``annotations`` and ``check``
(a check run's annotations, title and summary), ``explain`` (the ``/oracle-gate explain`` reply),
``job_summary`` (the Action's job summary). Fitting text to GitHub's sizes is
:mod:`oracle_gate.github.limits`.

Everything a pull request controls (paths, marker lines, details) goes through ``md`` or ``code``
(:mod:`oracle_gate.escape`), so a change cannot inject markup or mention people through the gate's
own comment.
"""
