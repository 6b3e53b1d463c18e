"""``/oracle-gate rerun`` and ``/oracle-gate explain``: one grammar and one permission rule for both
front doors.

The grammar: the comment's first non-blank line is the command, ``/oracle-gate`` then one of
:data:`COMMANDS`, separated and surrounded by nothing but spaces or tabs; case does not matter
(``/Oracle-Gate Rerun`` is ``rerun``). Anything else on that line, or a command on a later line, is
no command: a quoted or pasted command in the middle of a discussion must not re-run the gate.

The comment is text anyone can write (up to GitHub's 65,536 characters, or a forged payload's many
MiB): :func:`parse_command` looks at most at :data:`MAX_COMMAND_LINE` characters after the leading
blank space and uses no backtracking pattern, so its time is linear in the comment's length.

Who may command: a user whose permission (``repos/get-collaborator-permission-level``) is one of
:data:`WRITERS`. The permission is learned *before* the command has any effect: a command from
anyone else gets :data:`REFUSED_REACTION` and changes nothing (no judgement queued, cancelled or
superseded).
"""

from __future__ import annotations

from enum import StrEnum


class Command(StrEnum):
    RERUN = "rerun"
    EXPLAIN = "explain"


COMMANDS = frozenset(Command)
PREFIX = "/oracle-gate"
#: The longest first line that can still be a command ("/oracle-gate" "explain" and some blanks).
MAX_COMMAND_LINE = 200
BLANKS = " \t"
#: Permission levels (repos/get-collaborator-permission-level) whose comments may command.
WRITERS = frozenset({"admin", "maintain", "write"})
ACCEPTED_REACTION = "eyes"
REFUSED_REACTION = "-1"


def parse_command(body: str) -> Command | None:
    """The command the comment ``body`` gives, or None (linear time on any input)."""
    text = body.lstrip()  # every kind of blank and newline before the first line
    line = text[: MAX_COMMAND_LINE + 1].split("\n", 1)[0].rstrip("\r")
    if len(line) > MAX_COMMAND_LINE:
        return None
    words = line.strip(BLANKS).split()
    if len(words) != 2 or words[0].lower() != PREFIX:
        return None
    if any(ch not in BLANKS for ch in _between(line.strip(BLANKS), words)):
        return None
    name = words[1].lower()
    return Command(name) if name in COMMANDS else None


def _between(line: str, words: list[str]) -> str:
    """What separates the two words (str.split also splits on form feeds and Unicode spaces)."""
    return line[len(words[0]) : len(line) - len(words[1])]


def may_command(permission: str | None) -> bool:
    """True when a user with ``permission`` may command the gate (None: not known, so no)."""
    return permission in WRITERS


def reaction_for(permitted: bool) -> str:
    """The one reaction both front doors put on a command's comment."""
    return ACCEPTED_REACTION if permitted else REFUSED_REACTION


def refusal(user: str, name: str, permission: str | None) -> str:
    """The log line for a refused command."""
    return (
        f"/oracle-gate {name} by {user} ignored: their permission is {permission or 'unknown'!r}; "
        f"commands need {', '.join(sorted(WRITERS))}"
    )
