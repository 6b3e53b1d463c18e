"""Adopting the gate in a repository: ``oracle-gate init`` writes the setup, ``oracle-gate doctor``
checks through GitHub's API that what makes the check real is in place."""

# The Action's defaults (gate.action.defaults, which only the Action, the bot and the command line
# import); tests/unit/test_adopt_render.py keeps them equal.
DEFAULT_CHECK_NAME = "Oracle Gate"
DEFAULT_API_URL = "https://api.github.com"
