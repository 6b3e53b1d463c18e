"""Why an oracle input is unusable, and which file it is about.

Every problem of the policy, the freeze manifest, the fixture lock and the coverage map becomes an
``oracle_incomplete`` reason whose ``path`` is the problem's source, so a report can point at the
malformed file. The text (``str(problem)``) is the reason's detail.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem of an oracle input: ``source`` is the file (None when there is none, as when no
    coverage map was given), ``message`` what is wrong with it."""

    source: str | None
    message: str
    #: Whether the text starts with the source. False only where the message names its place another
    #: way (a freeze entry's binding names the entry), so that text stays as it always was.
    prefixed: bool = True

    def __str__(self) -> str:
        if self.source is None or not self.prefixed:
            return self.message
        return f"{self.source}: {self.message}"
