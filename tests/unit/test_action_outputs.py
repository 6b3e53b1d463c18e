"""Workflow commands, GITHUB_OUTPUT and the exit-status policy (oracle_gate.action.workflow_io, pure)."""

from __future__ import annotations

import io
import itertools

import pytest

from oracle_gate.action.workflow_io import (
    OUTPUT_NAMES,
    Log,
    escape_data,
    escape_property,
    exit_status,
    format_outputs,
    redact,
    verdict_outputs,
    workflow_command,
)
from oracle_gate.git import credential_environment
from tests.support import verdicts
from tests.support.harness import parse_outputs


def test_command_data_cannot_end_the_line_or_start_another_command() -> None:
    """A path with a newline followed by '::error::' stays inside one command line."""
    message = "src/a.py\n::error::injected 100%\r\n"
    line = workflow_command("warning", message)
    assert line == "::warning::src/a.py%0A::error::injected 100%25%0D%0A"
    assert "\n" not in line
    assert "\r" not in line


def test_percent_is_escaped_first_so_escapes_are_not_doubled_or_forged() -> None:
    assert escape_data("%0A") == "%250A"
    assert escape_data("a\nb") == "a%0Ab"


def test_properties_also_escape_colon_and_comma() -> None:
    assert escape_property("a:b,c\n") == "a%3Ab%2Cc%0A"
    assert workflow_command("error", "m", title="x:y,z") == "::error title=x%3Ay%2Cz::m"


def test_outputs_are_multi_line_safe_and_read_back_exactly() -> None:
    values = {"verdict": "fail", "reasons": "a\nb", "comment-id": "", "evil": "x\nverdict=pass_clean\nEOF"}
    text = format_outputs(values)
    assert parse_outputs(text) == values


def test_a_value_containing_the_delimiter_gets_another_one() -> None:
    marks = itertools.chain(["DELIM", "DELIM"], itertools.repeat("OTHER"))
    text = format_outputs({"reasons": "before\nDELIM\nverdict<<X"}, delimiter=lambda: next(marks))
    assert text == "reasons<<OTHER\nbefore\nDELIM\nverdict<<X\nOTHER\n"
    assert parse_outputs(text) == {"reasons": "before\nDELIM\nverdict<<X"}


@pytest.mark.parametrize("name", ["", "a\nb", "a<<b"])
def test_bad_output_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="bad output name"):
        format_outputs({name: "x"})


@pytest.mark.parametrize(
    ("verdict", "fail_on", "status"),
    [
        ("pass_clean", {"fail", "unscored"}, 0),
        ("fail", {"fail", "unscored"}, 1),
        ("unscored", {"fail", "unscored"}, 1),
        ("unscored", {"fail"}, 0),
        ("fail", set(), 0),
        ("pass_clean", {"pass_clean"}, 1),
    ],
)
def test_exit_status_follows_fail_on(verdict: str, fail_on: set[str], status: int) -> None:
    assert exit_status(verdict, fail_on) == status


def test_every_output_is_set_from_a_verdict() -> None:
    values = verdict_outputs(verdicts.unscored([3, 4, 9]), verdict_json="verdict.json", check_run_id=7)
    assert tuple(values) == OUTPUT_NAMES
    assert values == {
        "verdict": "unscored",
        "reasons": "freeze_overlap",
        "overlap-count": "3",
        "overlap-ratio": "0.75",
        "check-run-id": "7",
        "comment-id": "",
        "verdict-json": "verdict.json",
    }
    assert set(verdict_outputs(None).values()) == {""}


def test_secrets_are_redacted_and_the_credential_is_only_in_the_environment() -> None:
    assert redact("token ghs_abc in ghs_abc", ["ghs_abc", ""]) == "token *** in ***"
    env = credential_environment("http.https://github.com/.extraheader", "ghs_abc")
    assert env == {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.https://github.com/.extraheader",
        "GIT_CONFIG_VALUE_0": "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2FiYw==",
    }


def test_untrusted_text_is_printed_with_workflow_commands_off_and_secrets_redacted() -> None:
    stream = io.StringIO()
    log = Log(stream, ("ghs_secret",))
    log.untrusted("path\n::error::from the pull request ghs_secret\n")
    lines = stream.getvalue().splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 32
    assert lines[1:] == ["path", "::error::from the pull request ***", f"::{token}::"]
    log.warning("a\nb ghs_secret")
    assert stream.getvalue().splitlines()[-1] == "::warning::a%0Ab ***"
