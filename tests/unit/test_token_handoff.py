"""The token reaches main through a pipe, never through an environment block."""

from __future__ import annotations

import os

import pytest

from oracle_gate.action import entry
from oracle_gate.action.token_handoff import (
    MAX_TOKEN_BYTES,
    TOKEN_FD,
    TOKEN_INPUT,
    HandoffError,
    environ_with_token,
    reexec_without_token,
)


def test_the_token_is_read_once_from_the_pipe_and_the_descriptor_closed() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"ghs_installation")
    os.close(write_end)
    private = environ_with_token({TOKEN_FD: str(read_end), "GITHUB_SHA": "x"})
    assert private == {TOKEN_INPUT: "ghs_installation", "GITHUB_SHA": "x"}
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(read_end)


def test_without_a_pipe_the_environment_is_copied_unchanged() -> None:
    environ = {"GITHUB_SHA": "x"}
    private = environ_with_token(environ)
    assert private == environ
    assert private is not environ


@pytest.mark.parametrize("where", ["not-a-number", "987654"])
def test_a_bad_descriptor_is_a_one_line_error(where: str) -> None:
    with pytest.raises(HandoffError, match="descriptor"):
        environ_with_token({TOKEN_FD: where})


def test_a_token_too_long_for_a_pipe_is_refused_before_any_exec() -> None:
    with pytest.raises(HandoffError, match="longer than"):
        reexec_without_token({TOKEN_INPUT: "x" * (MAX_TOKEN_BYTES + 1)}, ["entrypoint.py"])


def test_no_token_no_exec() -> None:
    reexec_without_token({"GITHUB_SHA": "x"}, ["entrypoint.py"])  # returns: this process goes on


def test_entry_and_handoff_name_the_same_input() -> None:
    assert entry.TOKEN_INPUT == TOKEN_INPUT
