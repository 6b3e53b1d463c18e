"""Adopting the gate in a repository: ``oracle-gate init`` writes the setup, ``oracle-gate doctor``
checks through GitHub's API that what makes the check real is in place."""
