"""What a step reads from and says to the Actions runner: the event payload, workflow commands,
outputs, the job summary, the exit status.

Pure formatting plus :class:`Log`, the one writer of log lines, which redacts secrets from
everything and prints text a pull request controls with workflow commands switched off, and the
writers of the files the runner reads after the step.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from oracle_gate import escape, files
from oracle_gate.exit_status import ExitStatus
from oracle_gate.github.limits import fit_job_summary
from oracle_gate.judge.verdict import Verdict
from oracle_gate.review.events import EventError, payload_of

OUTPUT_NAMES = (
    "verdict",
    "reasons",
    "overlap-count",
    "overlap-ratio",
    "check-run-id",
    "comment-id",
    "verdict-json",
)
ERROR_VERDICT = "error"  # the `verdict` output when the gate could not run


def read_event(path: Path) -> dict[str, Any]:
    """The event payload GitHub wrote for the run; :class:`EventError` when it cannot be had."""
    try:
        data = files.read_bounded(path, files.MAX_EVENT_BYTES)
    except OSError as exc:
        raise EventError(str(path), f"cannot read the event payload: {exc.strerror or exc}") from exc
    return payload_of(data, str(path))


# -- outputs and exit status: pure -----------------------------------------------------------------------


def exit_status(verdict: str, fail_on: Iterable[str]) -> ExitStatus:
    """1 when the verdict is one the workflow asked to fail on, else 0 (the check run's
    conclusion does not depend on it)."""
    return ExitStatus.FAILED if verdict in set(fail_on) else ExitStatus.OK


def verdict_outputs(
    v: Verdict | None,
    *,
    verdict_json: str = "",
    check_run_id: int | None = None,
    comment_id: int | None = None,
) -> dict[str, str]:
    """Every output of action.yml, as strings; all empty but ``verdict`` when there is no verdict."""
    values = dict.fromkeys(OUTPUT_NAMES, "")
    if v is not None:
        values.update(
            {
                "verdict": v.verdict,
                "reasons": ",".join(v.codes),
                "overlap-count": str(v.overlap_count),
                "overlap-ratio": str(v.overlap_ratio),
            }
        )
    values.update(
        {
            "verdict-json": verdict_json,
            "check-run-id": "" if check_run_id is None else str(check_run_id),
            "comment-id": "" if comment_id is None else str(comment_id),
        }
    )
    return values


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped, so text can neither end the command
    nor start another one on a new line."""
    return escape.command_data(text)


def escape_property(text: str) -> str:
    """A workflow command property value (``title=...``): also ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(name: str, message: str, **properties: str) -> str:
    """``::name key=value,...::message`` with everything escaped."""
    props = ",".join(f"{k}={escape_property(v)}" for k, v in properties.items())
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def format_outputs(values: Mapping[str, str], delimiter: Callable[[], str] | None = None) -> str:
    """``GITHUB_OUTPUT`` lines in the multi-line form ``name<<DELIM`` / value / ``DELIM``.

    The delimiter is random and checked against the value, so no value (a reason code list, a
    path) can end its own entry early and set another output.
    """
    make = delimiter or (lambda: f"ghadelimiter_{uuid.uuid4()}")
    chunks = []
    for name, value in values.items():
        if not name or any(c in name for c in "\r\n<"):
            raise ValueError(f"bad output name {name!r}")
        mark = make()
        while mark in value or mark in name:
            mark = make()
        chunks.append(f"{name}<<{mark}\n{value}\n{mark}\n")
    return "".join(chunks)


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


@dataclass
class Log:
    """Lines for the Actions log; every one goes through :func:`redact` first."""

    stream: TextIO
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def line(self, text: str) -> None:
        self.stream.write(redact(text, self.secrets) + "\n")
        self.stream.flush()

    def command(self, name: str, message: str) -> None:
        self.line(workflow_command(name, redact(message, self.secrets)))

    def notice(self, message: str) -> None:
        self.command("notice", message)

    def warning(self, message: str) -> None:
        self.command("warning", message)

    def error(self, message: str) -> None:
        self.command("error", message)

    def untrusted(self, text: str) -> None:
        """Text a pull request controls (paths, details): printed with workflow commands off."""
        token = uuid.uuid4().hex
        self.line(f"::stop-commands::{token}")
        self.line(text.rstrip("\n"))
        self.line(f"::{token}::")


def append_text(path: Path, text: str) -> None:
    """Append to a file the runner reads after the step (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def write_outputs(path: Path | None, values: Mapping[str, str], secrets: Iterable[str]) -> None:
    """Append ``values`` to ``GITHUB_OUTPUT`` (when set), secrets redacted."""
    if path is None:
        return
    clean = {k: redact(v, secrets) for k, v in values.items()}
    append_text(path, format_outputs(clean))


def write_summary(path: Path | None, markdown: str, secrets: Iterable[str]) -> None:
    """Append ``markdown`` to ``GITHUB_STEP_SUMMARY`` (when set), secrets redacted, cut to fit."""
    if path is None:
        return
    append_text(path, fit_job_summary(redact(markdown, secrets)))
