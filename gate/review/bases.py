"""Which base branches the required check is posted for (TRUST.md invariant 5).

A pull request's author can open a second pull request with the same head against a branch it
pushed (with the oracle emptied): a verdict against that base must not land on the head SHA under
the required check's name. The gate judges every base and reports it in the job summary, but posts
the ``check-name`` only for an allowed base (input ``allowed-bases``; by default the repository's
default branch, from the event's ``repository.default_branch``); for any other base the check is
named ``<check-name> (base: <branch>)``, which branch protection does not require.
"""

from __future__ import annotations

from collections.abc import Sequence


def check_name_for_base(check_name: str, base: str | None, allowed: Sequence[str]) -> str:
    """The check name to post under for a pull request to ``base`` (None: not known, not allowed)."""
    if base is not None and base in allowed:
        return check_name
    return f"{check_name} (base: {base if base is not None else 'unknown'})"


def allowed_bases(configured: Sequence[str], default_branch: str | None) -> tuple[str, ...]:
    """The ``allowed-bases`` input, else the default branch, else none (fail closed)."""
    if configured:
        return tuple(configured)
    return (default_branch,) if default_branch else ()
