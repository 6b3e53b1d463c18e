"""Jinja2 templates of the reports: a package so they ship inside the wheel as ``oracle_gate.templates``."""
