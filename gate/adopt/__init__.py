"""Adopting the gate in a repository: ``oracle-gate init`` writes the setup, ``oracle-gate doctor``
checks through GitHub's API that what makes the check real is in place."""

# The defaults both front doors share, defined once in oracle_gate.github.defaults.
from oracle_gate.github.defaults import DEFAULT_API_URL, DEFAULT_CHECK_NAME

__all__ = ["DEFAULT_API_URL", "DEFAULT_CHECK_NAME"]
